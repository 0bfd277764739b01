package learn

import (
	"context"
	"errors"
	"graphcc/internal/testfabric"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

func TestExplorer(t *testing.T) {
	f := testfabric.SmallClos(t)
	agents := f.Agents()

	// Epsilon 0 is GraphCC.
	fctG, recG := runPolicy(t, f, mustGraphCC(t, seededModel(1), f, gnn.FeatureConfig{}))
	x0 := NewExplorer(mustGraphCC(t, seededModel(1), f, gnn.FeatureConfig{}), 5)
	x0.Epsilon = 0
	fct0, rec0 := runPolicy(t, f, x0)
	if !slices.Equal(fct0, fctG) || !slices.Equal(rec0.written, recG.written) {
		t.Error("Explorer with epsilon 0 differs from GraphCC")
	}

	// Epsilon 1 explores; OnStep sees every transition, chained.
	var (
		steps         int
		lastNext      []float64
		distinct      = map[int]bool{}
		chainBroken   bool
		rewardOutside bool
	)
	x1 := NewExplorer(mustGraphCC(t, seededModel(1), f, gnn.FeatureConfig{}), 5)
	x1.Shape = Convex
	x1.OnStep = func(prev []float64, actions []int, rewards []float64, next []float64) {
		steps++
		if len(prev) != len(f.Ports)*gnn.NumFeatures || len(next) != len(prev) || len(actions) != len(agents) || len(rewards) != len(agents) {
			t.Fatalf("OnStep lengths %d %d %d %d", len(prev), len(actions), len(rewards), len(next))
		}
		if lastNext != nil && !slices.Equal(prev, lastNext) {
			chainBroken = true
		}
		for _, r := range rewards {
			if r < 0 || r > 1 {
				rewardOutside = true
			}
		}
		lastNext = slices.Clone(next)
	}
	// Record the actions each Decide chose, to check OnStep's actions.
	var chosen [][]int
	wrapped := policyFunc(func(tel *control.Telemetry, ecn []control.ECN) {
		x1.Decide(tel, ecn)
		chosen = append(chosen, slices.Clone(x1.G.LastActions()))
		for _, a := range x1.G.LastActions() {
			distinct[a] = true
		}
	})
	_, rec1 := runPolicy(t, f, wrapped)
	if steps != rec1.decides-1 {
		t.Errorf("OnStep called %d times for %d decisions", steps, rec1.decides)
	}
	if chainBroken {
		t.Error("a transition's prev features are not the previous transition's next")
	}
	if rewardOutside {
		t.Error("a reward is outside [0, 1]")
	}
	// 80 uniform draws over 120 actions hit about 58 distinct ones.
	if len(distinct) < 40 {
		t.Errorf("epsilon 1 chose only %d distinct actions over %d agent decisions", len(distinct), rec1.decides*len(agents))
	}
	if slices.Equal(chosen[0], chosen[1]) {
		t.Error("epsilon 1 chose the same actions twice in a row")
	}

	// OnStep's actions are those of the previous Decide.
	x2 := NewExplorer(mustGraphCC(t, seededModel(3), f, gnn.FeatureConfig{}), 9)
	x2.Epsilon = 0.5
	var prevChosen, bad int
	var pending []int
	x2.OnStep = func(_ []float64, actions []int, _ []float64, _ []float64) {
		if !slices.Equal(actions, pending) {
			bad++
		}
		prevChosen++
	}
	_, rec2 := runPolicy(t, f, policyFunc(func(tel *control.Telemetry, ecn []control.ECN) {
		x2.Decide(tel, ecn)
		pending = slices.Clone(x2.G.LastActions())
	}))
	if bad > 0 || prevChosen != rec2.decides-1 {
		t.Errorf("OnStep got other actions than the previous Decide's %d of %d times", bad, prevChosen)
	}

	// The same seed explores the same way; Reset restarts the transitions.
	run := func(x *Explorer) []control.ECN {
		_, r := runPolicy(t, f, x)
		return r.written
	}
	xa := NewExplorer(mustGraphCC(t, seededModel(1), f, gnn.FeatureConfig{}), 11)
	xb := NewExplorer(mustGraphCC(t, seededModel(1), f, gnn.FeatureConfig{}), 11)
	xa.Epsilon, xb.Epsilon = 0.3, 0.3
	if !slices.Equal(run(xa), run(xb)) {
		t.Error("Explorers of the same seed differ")
	}
	n := 0
	xa.OnStep = func(_ []float64, _ []int, _ []float64, _ []float64) { n++ }
	xa.Reset()
	for _, r := range xa.LastRewards() {
		if r != 0 {
			t.Fatal("LastRewards not cleared by Reset")
		}
	}
	_, rr := runPolicy(t, f, xa)
	if n != rr.decides-1 {
		t.Errorf("after Reset: OnStep called %d times for %d decisions", n, rr.decides)
	}
}

// TestExplorerHostProfiles: an exploring profiles model picks host actions
// in its table, labels a teacher's profile with that profile's action,
// and allocates nothing per step.
func TestExplorerHostProfiles(t *testing.T) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	x := NewExplorer(mustGraphCC(t, profilesModel(t, gnn.DefaultShape(), 7), f, gnn.FeatureConfig{}), 1)
	rpc := testProfiles()[4]
	if err := x.SetTeacher(hostTeacher{Policy: control.Static{}, fixed: &rpc}, nil, control.DefaultHostParams()); err != nil {
		t.Fatal(err)
	}
	x.Epsilon = 0.5
	nA := len(f.Agents())
	var seen [gnn.MaxHostProfiles + 1]bool
	steps := 0
	x.OnStep = func(_ []float64, labels []int, _, _ []float64) {
		steps++
		for _, l := range labels[nA:] {
			if l != 4 {
				t.Fatalf("host label %d, want profile 4", l)
			}
		}
		for _, a := range x.G.LastHostActions() {
			seen[a] = true
		}
	}
	ecn, hosts := control.StaticSettings(f), make([]control.HostParams, len(f.Ports))
	if n := testing.AllocsPerRun(50, func() { x.Decide(tel, ecn); x.DecideHosts(tel, hosts) }); n != 0 {
		t.Errorf("Explorer.Decide and DecideHosts with profiles: %v allocations", n)
	}
	if n := slices.Index(seen[:], false); steps == 0 || n != 5 || slices.Contains(seen[n:], true) {
		t.Errorf("%d steps; host actions explored %v, want all 5 and only those", steps, seen[:8])
	}
}

// TestTrainImitatesHostProfile trains a profiles model with
// ImitateObjective to copy a teacher whose hosts run googlerpc60's tuned
// constants (profile 4: a 15 µs timer, 40 Mbps AI, outside the grid),
// then checks that the greedy policy gives the hosts exactly those
// constants on every host-step, and that the checkpoint records the table.
func TestTrainImitatesHostProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ep := tinyEpisode(t)
	f, flows, _ := ep(0)
	rpc := testProfiles()[4]
	if gnn.NearestHostAction(rpc) == 0 || gnn.HostAction(gnn.NearestHostAction(rpc)) == rpc {
		t.Fatal("the teacher's constants are in the grid: the test shows nothing")
	}
	c := tinyTrain("graphcc", 1, ep)
	c.Episodes, c.ActionSet, c.Objective, c.TeacherName, c.Hosts = 20, gnn.ActionsExtended, ImitateObjective, "rpc", true
	c.HostTable = testHostTable(t)
	var last *Checkpoint
	c.Checkpoint, c.CheckpointEvery = func(ck *Checkpoint) error { last = ck; return nil }, 10
	c.Teacher = func(tf *topo.Fabric, _ uint64) (control.Policy, []control.ECN, error) {
		return hostTeacher{Policy: busyTeacher{f: tf, set: gnn.ActionsExtended, busy: 7, idle: 7}, fixed: &rpc}, nil, nil
	}
	res, err := Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.HostActions != 5 || !slices.Equal(res.Model.HostTable.Profiles(), testProfiles()) {
		t.Fatalf("trained model: %d host actions on %v", res.Model.HostActions, res.Model.HostTable.Profiles())
	}
	if got := last.Config["host_table"]; got != c.HostTable.Fingerprint() {
		t.Errorf("checkpoint host_table %q", got)
	}
	grid := c
	grid.HostTable, grid.Resume, grid.Episodes = gnn.HostTable{}, last, 30
	if _, err := NewTrainer(grid); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "host_table") {
		t.Errorf("a run on the grid resumed a checkpoint on profiles: %v", err)
	}
	a := &hostConstants{g: mustGraphCC(t, res.Model, f, gnn.FeatureConfig{}), want: rpc}
	defer a.g.Inference().Close()
	p := replay.DefaultParams()
	p.Window = -1
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: p, Policy: a, Until: 2*topo.Second + 5*topo.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Logf("the teacher's constants on %d of %d host-steps", a.right, a.steps)
	if a.steps == 0 || a.right != a.steps {
		t.Errorf("the teacher's constants on %d of %d host-steps, want all", a.right, a.steps)
	}
}

// hostConstants runs g alone and counts the host-steps whose constants
// (DecideHosts) are want.
type hostConstants struct {
	g            *gnn.GraphCC
	want         control.HostParams
	right, steps int
}

func (a *hostConstants) Decide(t *control.Telemetry, ecn []control.ECN) { a.g.Decide(t, ecn) }

func (a *hostConstants) DecidesHosts() bool { return true }

func (a *hostConstants) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	a.g.DecideHosts(t, hosts)
	for _, p := range a.g.Hosts() {
		a.steps++
		if hosts[p] == a.want {
			a.right++
		}
	}
}

// TestTrainHosts trains a host-head model briefly: the model has a host
// head, the replay buffer holds the host agents' actions from the host
// table beside the switch agents', a checkpoint of a run without hosts
// does not resume one with them, and the trained model sets the hosts'
// constants in the simulator to the settings of its host actions.
func TestTrainHosts(t *testing.T) {
	c := resumeTrain(t, "graphcc")
	c.Hosts = true
	var last *Checkpoint
	c.Checkpoint = func(ck *Checkpoint) error { last = ck; return nil }
	c.CheckpointEvery = 10
	res, err := Train(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	if m.HostActions != gnn.NumHostActions || m.NumParams() != hostShape().NumParams() {
		t.Fatalf("trained model of shape %+v", m.Shape)
	}
	f, flows, _ := c.Episode(1)
	nA, nH := len(f.Agents()), len(control.HostPorts(f))
	b := last.Buffer
	if b.Agents() != nA+nH {
		t.Fatalf("replay buffer of %d agents, want %d switch and %d host agents", b.Agents(), nA, nH)
	}
	acts := make([]int, b.Agents())
	hostSeen := map[int]bool{}
	for i := range b.Len() {
		b.Actions(i, acts)
		for _, a := range acts[nA:] {
			if a < 0 || a >= gnn.NumHostActions {
				t.Fatalf("slot %d: host action %d", i, a)
			}
			hostSeen[a] = true
		}
	}
	if len(hostSeen) < gnn.NumHostActions/2 {
		t.Errorf("the host agents explored only %d host actions", len(hostSeen))
	}
	plain := resumeTrain(t, "graphcc")
	plain.Episodes = 2
	plain.Resume = last
	if _, err := NewTrainer(plain); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "hosts") {
		t.Errorf("a run without hosts resumed a checkpoint with them: %v", err)
	}
	rec := &hostRecorder{GraphCC: mustGraphCC(t, m, f, c.Features)}
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: rec, Seed: 1, Until: trace.FirstStart(flows) + 2*topo.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if rec.calls == 0 {
		t.Fatal("the simulator never asked the trained model for the hosts' constants")
	}
}

// hostRecorder checks every DecideHosts of its GraphCC against its host
// actions.
type hostRecorder struct {
	*gnn.GraphCC
	calls int
}

func (r *hostRecorder) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	r.GraphCC.DecideHosts(t, hosts)
	r.calls++
	for j, p := range r.Hosts() {
		if hosts[p] != gnn.HostAction(r.LastHostActions()[j]) {
			panic("DecideHosts wrote another setting than the host action's")
		}
	}
}

// TestHostReward: a host agent's reward is minus the excess slowdown of
// the flows it sent that finished in the interval, over PathRewardScale;
// the switch agents' is their objective's.
func TestHostReward(t *testing.T) {
	f := testfabric.SmallClos(t)
	c := &Config{Objective: PathObjective, Hosts: true}
	e := newEpisodeReward(c, f)
	hosts := control.HostPorts(f)
	nA := len(f.Agents())
	fin := e.onFinish()
	// a flow of slowdown 3 from the first host across one switch port
	path := []topo.PortID{hosts[0], f.Agents()[2]}
	fin(trace.FCT{Size: 1000, FCT: 3000, Standalone: 1000}, path)
	r := make([]float64, nA+len(hosts))
	e.set(r)
	for i := range r {
		want := 0.0
		if i == 2 {
			want = -2.0 / PathRewardScale
		}
		if i == nA+slices.Index(e.hosts, hosts[0]) {
			want = -2.0 / PathRewardScale
		}
		if r[i] != want {
			t.Errorf("reward %d = %v, want %v", i, r[i], want)
		}
	}
	e.set(r)
	if slices.ContainsFunc(r, func(v float64) bool { return v != 0 }) {
		t.Errorf("rewards %v after an interval without finished flows, want 0", r)
	}
}

// TestTrainHostsRefusesFailedLinks: a host-head run on episodes whose
// fabric lost a link fails, naming what is not supported.
func TestTrainHostsRefusesFailedLinks(t *testing.T) {
	base, failed := testfabric.FailedClos(t)
	c := resumeTrain(t, "graphcc")
	c.Hosts, c.Fabric, c.Episodes = true, base, 2
	c.Episode = func(uint64) (*topo.Fabric, []trace.Flow, error) { return failed, nil, nil }
	c.Warmup, c.Batch = 1, 1
	c.EpisodeTime = 1 * topo.Millisecond
	if _, err := Train(t.Context(), c); err == nil || !strings.Contains(err.Error(), "failed links: not supported") {
		t.Errorf("hosts on a fabric with failed links: %v", err)
	}
}
