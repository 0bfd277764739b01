package agent

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/gnn"
	"graphcc/hostgen"
	"graphcc/topo"
)

// fakeNet is a fabric of fake switches for the agents: telemetry drawn
// from a PCG per switch and read, in-band frames handed to the
// neighbour's inbox, ECN writes recorded.
type fakeNet struct {
	f   *topo.Fabric
	sws map[topo.NodeID]*fakeSwitch
}

type fakeSwitch struct {
	net   *fakeNet
	node  topo.NodeID
	rng   *rand.Rand
	reads int
	inbox chan fakeFrame
	dead  chan struct{}
	once  sync.Once

	mu  sync.Mutex
	ecn []control.ECN
}

type fakeFrame struct {
	from  topo.PortID
	frame []byte
}

func newFakeNet(f *topo.Fabric) *fakeNet {
	n := &fakeNet{f: f, sws: map[topo.NodeID]*fakeSwitch{}}
	for _, s := range f.Switches() {
		n.sws[s] = &fakeSwitch{net: n, node: s, rng: rand.New(rand.NewPCG(uint64(s), 7)),
			inbox: make(chan fakeFrame, 4096), dead: make(chan struct{}), ecn: make([]control.ECN, len(f.Ports))}
	}
	return n
}

func (s *fakeSwitch) Name() string { return s.net.f.Nodes[s.node].Name }

// kill makes the switch fail every call from now on.
func (s *fakeSwitch) kill() { s.once.Do(func() { close(s.dead) }) }

func (s *fakeSwitch) alive() error {
	select {
	case <-s.dead:
		return fmt.Errorf("switch %s: connection lost", s.Name())
	default:
		return nil
	}
}

func (s *fakeSwitch) ReadTelemetry(_ context.Context, dst []control.PortSample) error {
	if err := s.alive(); err != nil {
		return err
	}
	s.reads++
	f := s.net.f
	for _, p := range f.Out(s.node) {
		smp := control.PortSample{TxBytes: s.rng.Int64N(400_000), QueueBytes: -1, EnqDepthMax: -1, FlowStarts: s.rng.Int64N(4)}
		smp.MarkedBytes = s.rng.Int64N(smp.TxBytes + 1)
		for range s.rng.IntN(50) {
			smp.EnqHist.Add(s.rng.Int64N(200))
		}
		dst[p] = smp
		if !f.Nodes[f.Ports[p].Dst].Switch {
			dst[p.Reverse()] = control.PortSample{TxBytes: s.rng.Int64N(400_000), QueueBytes: -1, EnqDepthMax: -1}
		}
	}
	return nil
}

func (s *fakeSwitch) SetECN(_ context.Context, ecn []control.ECN) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.net.f.Out(s.node) {
		if s.ecn[p] != ecn[p] {
			s.ecn[p] = ecn[p]
			n++
		}
	}
	return n, nil
}

func (s *fakeSwitch) held(p topo.PortID) control.ECN {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ecn[p]
}

func (s *fakeSwitch) Send(_ context.Context, out topo.PortID, frame []byte) error {
	if err := s.alive(); err != nil {
		return err
	}
	peer := s.net.sws[s.net.f.Ports[out].Dst]
	select {
	case peer.inbox <- fakeFrame{from: out, frame: frame}:
	default: // a full inbox drops, as a link would
	}
	return nil
}

func (s *fakeSwitch) Receive(ctx context.Context) (topo.PortID, []byte, time.Time, error) {
	select {
	case fr := <-s.inbox:
		return fr.from, fr.frame, time.Now(), nil
	case <-s.dead:
		return -1, nil, time.Time{}, s.alive()
	case <-ctx.Done():
		return -1, nil, time.Time{}, ctx.Err()
	}
}

// fakeHosts are the hosts of a run with a host-head model: the constants
// in force, by PortID.
type fakeHosts struct {
	mu    sync.Mutex
	cur   []control.HostParams
	calls int
}

func (h *fakeHosts) SetDCQCN(_ context.Context, hosts []control.HostParams) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	copy(h.cur, hosts)
	h.calls++
	return nil
}

func (h *fakeHosts) get(p topo.PortID) control.HostParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur[p]
}

// centralHosts is the control loop's Hosts in a run with a host head: it
// records the loop's hosts' constants of every step (those in force,
// which without a miss are the central step's) and hands them to the
// shadow.
type centralHosts struct {
	shadow *Shadow
	steps  [][]control.HostParams
}

func (c *centralHosts) SetDCQCN(ctx context.Context, hosts []control.HostParams) error {
	c.steps = append(c.steps, slices.Clone(hosts))
	return c.shadow.SetDCQCN(ctx, hosts)
}

// agentsRun is a run of every switch's agent on a fakeNet, their reports
// to a Shadow, and the central GraphCC on it through controller.RunLoop.
type agentsRun struct {
	f        *topo.Fabric
	m        *gnn.Model
	net      *fakeNet
	shadow   *Shadow
	reports  map[string][]*Report
	errs     map[string]error
	stats    *controller.LoopStats
	mu       sync.Mutex
	roundOut time.Duration
	// kill, if set, names the switch whose agent fails after killAfter
	// steps.
	kill      string
	killAfter int
	// With a host head: the hosts, the constants each leaf's hosts held
	// right after the shadow took its report of a step (by switch, step,
	// then in the report's host order), and the central step's.
	hosts   *fakeHosts
	applied map[string][][]control.HostParams
	central *centralHosts
	// floor, if set, holds the agents to a fixed base (Config.Floor; its
	// Hosts are filled in) and the central step is the gnn.Floor of it.
	floor *Floor
}

// base is the hosts' starting constants in a run with a host head.
func base(f *topo.Fabric) []control.HostParams {
	b := make([]control.HostParams, len(f.Ports))
	for _, p := range control.HostPorts(f) {
		b[p] = control.DefaultHostParams()
	}
	return b
}

// report records agent i's report r and hands it to the shadow; with a
// host head it records what r's hosts then hold.
func (a *agentsRun) report(ctx context.Context, i int, sw *fakeSwitch, r *Report) error {
	a.mu.Lock()
	a.reports[sw.Name()] = append(a.reports[sw.Name()], r)
	a.mu.Unlock()
	if sw.Name() == a.kill && int(r.Step)+1 == a.killAfter {
		sw.kill()
	}
	if err := a.shadow.Add(ctx, i, r); err != nil || a.hosts == nil {
		return err
	}
	held := make([]control.HostParams, 0, len(r.Hosts))
	for _, p := range r.Ports[len(r.Chosen):] {
		held = append(held, a.hosts.get(p))
	}
	a.mu.Lock()
	a.applied[sw.Name()] = append(a.applied[sw.Name()], held)
	a.mu.Unlock()
	return nil
}

// run runs steps steps, the interval real each.
func (a *agentsRun) run(t *testing.T, steps int, real time.Duration) {
	t.Helper()
	const interval = 100 * topo.Microsecond
	clock, err := hostgen.NewClock(time.Now(), float64(real)/float64(interval/topo.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	a.net = newFakeNet(a.f)
	sws := a.f.Switches()
	a.shadow = NewShadow(a.f, len(sws), nil, nil)
	lc := controller.LoopConfig{Fabric: a.f, Runtime: a.shadow, Policy: a.centralPolicy(t),
		Clock: clock, Interval: interval, Static: control.StaticSettings(a.f)}
	if a.m.HostActions > 0 {
		a.hosts, a.applied = &fakeHosts{cur: base(a.f)}, map[string][][]control.HostParams{}
		a.shadow = NewShadow(a.f, len(sws), a.hosts, base(a.f))
		a.central = &centralHosts{shadow: a.shadow}
		lc.Runtime, lc.Hosts, lc.HostStart = a.shadow, a.central, base(a.f)
		if a.floor != nil {
			a.floor.Hosts = base(a.f)
		}
	}
	if a.floor != nil {
		lc.Static, a.shadow.static = a.floor.Base, a.floor.Base
	}
	lc.Policy = a.shadow.LoopPolicy(lc.Policy)
	a.reports, a.errs = map[string][]*Report{}, map[string]error{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	epoch := clock.Now()
	var wg sync.WaitGroup
	for i, n := range sws {
		sw := a.net.sws[n]
		c := Config{Fabric: a.f, Switch: n, Model: a.m, Static: control.StaticSettings(a.f), Clock: clock,
			Epoch: epoch, Interval: interval, RoundTimeout: a.roundOut, MissLimit: control.DefaultMissLimit, Steps: steps, Floor: a.floor}
		wg.Go(func() {
			err := Run(ctx, c, sw, func(r *Report) error { return a.report(ctx, i, sw, r) })
			a.shadow.End(i)
			if err != nil { // as Processes does for an agent that ends mid-run
				if herr := a.shadow.HostsToBase(ctx, i); herr != nil {
					t.Error(herr)
				}
			}
			a.mu.Lock()
			a.errs[sw.Name()] = err
			a.mu.Unlock()
		})
	}
	loopCtx, stop := context.WithCancel(ctx)
	done := 0
	lc.OnStep = func(*control.Telemetry, []control.ECN) {
		if done++; done == steps {
			stop()
		}
	}
	st, err := controller.RunLoop(loopCtx, lc)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	a.stats = st
	wg.Wait()
}

// centralPolicy is the run's central step: the model's GraphCC, or with a
// floor the gnn.Floor over its base.
func (a *agentsRun) centralPolicy(t *testing.T) control.Policy {
	g, err := gnn.NewGraphCC(a.m, a.f, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if a.floor == nil {
		return g
	}
	fl, err := gnn.NewFloor(g, control.Static{}, a.floor.Base, a.f, a.floor.Gates)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

func embedded(t *testing.T) *gnn.Model {
	m, err := gnn.EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every agent on its fake switch, messages through the fakes: the shadow
// central step decides exactly as the agents on every port of every step,
// every message is on time, and each step sends K × the directed
// switch-switch links.
//
// With a host head, the same holds for the hosts: no host's constants
// differ from the central step's, and each leaf's hosts hold, once the
// shadow has taken its report of a step, the central step's constants of
// that step.
func TestAgentsMatchShadow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fail  []string
		model func(*testing.T) *gnn.Model
	}{
		{"default Clos", nil, embedded},
		{"leaf0-spine1 failed", []string{"leaf0-spine1"}, embedded},
		{"host head", nil, hostHeadModel},
		{"host head, leaf0-spine1 failed", []string{"leaf0-spine1"}, hostHeadModel},
		{"host head on profiles", nil, profilesHeadModel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := defaultClos(t, tc.fail)
			a := &agentsRun{f: f, m: tc.model(t), roundOut: 5 * time.Second}
			const steps = 12
			a.run(t, steps, 20*time.Millisecond)
			for name, err := range a.errs {
				if err != nil {
					t.Errorf("agent of %s: %v", name, err)
				}
			}
			st := a.shadow.Stats()
			links := 0
			for _, p := range f.Agents() {
				if f.Nodes[f.Ports[p].Dst].Switch {
					links++
				}
			}
			if want := int64(a.m.K * links * steps); st.Messages != want {
				t.Errorf("%d messages, want K %d × %d directed links × %d steps = %d", st.Messages, a.m.K, links, steps, want)
			}
			if st.Mismatches != 0 || st.Late != 0 || st.Stale != 0 || st.StaticPort != 0 {
				t.Errorf("mismatches %d, late %d, stale %d, static port-steps %d: want all 0", st.Mismatches, st.Late, st.Stale, st.StaticPort)
			}
			if a.stats.Steps != steps || st.Steps != int64(steps*len(f.Switches())) {
				t.Errorf("loop steps %d, agent steps %d; want %d and %d", a.stats.Steps, st.Steps, steps, steps*len(f.Switches()))
			}
			checkSettingsUsed(t, a)
			if a.m.HostActions > 0 {
				checkHostsMatch(t, a, steps)
			}
		})
	}
}

// hostHeadModel is a GraphCC model of the default shape with a host head,
// its weights drawn from a fixed seed.
func hostHeadModel(*testing.T) *gnn.Model {
	s := gnn.DefaultShape()
	s.HostActions = gnn.NumHostActions
	return gnn.NewModelShape(s, rand.New(rand.NewPCG(3, 24)))
}

// profilesHeadModel is a GraphCC model of the default shape with a host
// head on a table of four profiles, one outside the grid, its weights
// drawn from a fixed seed.
func profilesHeadModel(t *testing.T) *gnn.Model {
	fast := gnn.HostAction(15)
	fast.IncreaseInterval = fast.IncreaseInterval * 15 / 55 // a 15 µs timer: not in the grid
	tab, err := gnn.NewHostTable([]control.HostParams{control.DefaultHostParams(), gnn.HostAction(15), gnn.HostAction(5), fast})
	if err != nil {
		t.Fatal(err)
	}
	s := gnn.DefaultShape()
	s.HostActions = tab.Len()
	m := gnn.NewModelShape(s, rand.New(rand.NewPCG(3, 25)))
	m.HostTable = tab
	return m
}

// checkHostsMatch checks a run with a host head without a miss: no host
// mismatch, every leaf reports its every host every step, the hosts held
// the central step's constants after each report, and the leaves chose
// more than one setting of the hosts.
func checkHostsMatch(t *testing.T, a *agentsRun, steps int) {
	t.Helper()
	st := a.shadow.Stats()
	if st.HostMismatches != 0 {
		t.Errorf("%d host mismatches, want 0", st.HostMismatches)
	}
	if len(a.central.steps) != steps {
		t.Fatalf("the central step set the hosts %d times, want %d", len(a.central.steps), steps)
	}
	leaves := map[topo.NodeID]bool{}
	for _, p := range control.HostPorts(a.f) {
		leaves[a.f.Ports[p].Dst] = true
	}
	if n := len(st.HostDelay); n != steps*len(leaves) || len(st.HostHop) != n {
		t.Errorf("%d host delays, %d hops; want one per leaf-step, %d", n, len(st.HostHop), steps*len(leaves))
	}
	t.Logf("a leaf's readout -> its hosts' constants in force: %v mean over %d leaf-steps (report written -> in force %v)",
		mean(st.HostDelay), len(st.HostDelay), mean(st.HostHop))
	seen := map[control.HostParams]bool{}
	reported := 0
	for name, rs := range a.reports {
		for j, r := range rs {
			rows := r.Ports[len(r.Chosen):]
			if len(r.Hosts) != len(rows) {
				t.Fatalf("%s step %d: %d hosts' constants for %d hosts", name, j, len(r.Hosts), len(rows))
			}
			for k, p := range rows {
				want := a.central.steps[j][p]
				if got := a.applied[name][j][k]; got != want || r.Hosts[k] != want {
					t.Errorf("%s step %d host port %d: chose %+v, held %+v; the central step %+v", name, j, p, r.Hosts[k], got, want)
				}
				seen[r.Hosts[k]] = true
				reported++
			}
		}
	}
	if reported != steps*len(a.f.Hosts()) {
		t.Errorf("%d host-steps reported, want %d", reported, steps*len(a.f.Hosts()))
	}
	if len(seen) < 2 {
		t.Errorf("the leaves chose %d distinct host settings: the comparison shows little", len(seen))
	}
}

// checkSettingsUsed checks that the agents chose more than one setting
// (so that the comparison with the shadow can fail).
func checkSettingsUsed(t *testing.T, a *agentsRun) {
	t.Helper()
	seen := map[control.ECN]bool{}
	for _, rs := range a.reports {
		for _, r := range rs {
			for _, e := range r.Chosen {
				seen[e] = true
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("the agents chose %d distinct settings over the run: the comparison shows little", len(seen))
	}
}

func defaultClos(t *testing.T, fail []string) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err == nil && len(fail) > 0 {
		f, err = f.FailLinks(fail...)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func node(t *testing.T, f *topo.Fabric, name string) topo.NodeID {
	t.Helper()
	n, ok := f.NodeByName(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return n
}

// A switch that fails mid-run: its agent ends with an error naming it; the
// spines, whose messages from it are late from then on, compute with the
// fallback and after MissLimit steps hold their ports on the static
// settings; the other leaves, which miss nothing, keep their model's
// settings.
func TestAgentKilled(t *testing.T) {
	f := defaultClos(t, nil)
	a := &agentsRun{f: f, m: embedded(t), roundOut: 20 * time.Millisecond, kill: "leaf1", killAfter: 3}
	const steps = 10
	a.run(t, steps, 80*time.Millisecond)
	if err := a.errs["leaf1"]; err == nil || !strings.Contains(err.Error(), "leaf1") {
		t.Errorf("leaf1's agent ended with %v, want an error naming leaf1", err)
	}
	if n := len(a.reports["leaf1"]); n != a.killAfter {
		t.Errorf("leaf1 reported %d steps, want %d", n, a.killAfter)
	}
	st := a.shadow.Stats()
	if st.Late < int64(a.m.K*2*(steps-a.killAfter)) {
		t.Errorf("%d late messages, want at least K × 2 spines × %d steps", st.Late, steps-a.killAfter)
	}
	for _, name := range []string{"spine0", "spine1"} {
		rs := a.reports[name]
		if len(rs) != steps {
			t.Fatalf("%s reported %d steps, want %d", name, len(rs), steps)
		}
		checkFallback(t, name, rs, a.killAfter)
		sw := a.net.sws[node(t, f, name)]
		for _, p := range f.Out(node(t, f, name)) {
			if got, want := sw.held(p), control.StaticSettings(f)[p]; got != want {
				t.Errorf("%s port %d holds %+v at the end, want the static %+v", name, p, got, want)
			}
		}
	}
	for _, name := range []string{"leaf0", "leaf2", "leaf3"} {
		checkFallback(t, name, a.reports[name], -1)
		if len(a.reports[name]) != steps {
			t.Errorf("%s reported %d steps, want %d", name, len(a.reports[name]), steps)
		}
	}
	if a.stats.Steps != steps {
		t.Errorf("the shadow ran %d steps, want %d", a.stats.Steps, steps)
	}
}

// checkFallback checks the static flags of an agent's reports rs when a
// neighbour's agent died after killAfter steps (-1: none of its
// neighbours died): on the static settings from step
// killAfter+MissLimit-1 on (its messages missing since killAfter), and
// before that only where the agent itself recorded late messages in each
// of the MissLimit steps up to it (a loaded machine can delay a live
// neighbour's messages past their round's deadline).
func checkFallback(t *testing.T, name string, rs []*Report, killAfter int) {
	t.Helper()
	miss := control.DefaultMissLimit
	for j, r := range rs {
		if killAfter >= 0 && j >= killAfter+miss-1 {
			if !r.Static {
				t.Errorf("%s step %d: not on the static settings %d steps after its neighbour died", name, j, j-killAfter+1)
			}
			continue
		}
		earned := j >= miss-1
		for i := max(j-miss+1, 0); i <= j; i++ {
			earned = earned && rs[i].Late > 0
		}
		if r.Static && !earned {
			t.Errorf("%s step %d: on the static settings without messages missing %d steps in a row", name, j, miss)
		}
	}
}

// With a host head, an agent's hosts follow its ports: a leaf whose agent
// ends has its hosts put back on the base constants (as Processes puts
// its switch back on the static settings), and a leaf on the static
// settings (a dead spine's messages missing MissLimit steps in a row) has
// its hosts on the base constants, and its model's choices otherwise.
func TestAgentKilledHostHead(t *testing.T) {
	f := defaultClos(t, nil)
	const steps = 10
	t.Run("leaf1", func(t *testing.T) {
		a := &agentsRun{f: f, m: hostHeadModel(t), roundOut: 20 * time.Millisecond, kill: "leaf1", killAfter: 3}
		a.run(t, steps, 80*time.Millisecond)
		if err := a.errs["leaf1"]; err == nil {
			t.Fatal("leaf1's agent did not fail")
		}
		b := base(f)
		changed := false
		for _, p := range control.HostPorts(f) {
			leaf := f.Nodes[f.Ports[p].Dst].Name
			got := a.hosts.get(p)
			if leaf == "leaf1" {
				if got != b[p] {
					t.Errorf("leaf1's host port %d holds %+v at the end, want the base %+v", p, got, b[p])
				}
				continue
			}
			last := a.reports[leaf][steps-1]
			want := last.Hosts[slices.Index(last.Ports[len(last.Chosen):], p)]
			if got != want {
				t.Errorf("%s's host port %d holds %+v, want its leaf's last choice %+v", leaf, p, got, want)
			}
			changed = changed || got != b[p]
		}
		if !changed {
			t.Error("no live leaf's host left the base constants: the test shows little")
		}
	})
	t.Run("spine0", func(t *testing.T) {
		a := &agentsRun{f: f, m: hostHeadModel(t), roundOut: 20 * time.Millisecond, kill: "spine0", killAfter: 3}
		a.run(t, steps, 80*time.Millisecond)
		b := base(f)
		for _, leaf := range []string{"leaf0", "leaf1", "leaf2", "leaf3"} {
			rs := a.reports[leaf]
			if len(rs) != steps {
				t.Fatalf("%s reported %d steps, want %d", leaf, len(rs), steps)
			}
			checkFallback(t, leaf, rs, a.killAfter)
			for j, r := range rs {
				for k, p := range r.Ports[len(r.Chosen):] {
					want := r.Hosts[k]
					if r.Static {
						want = b[p]
					}
					if got := a.applied[leaf][j][k]; got != want {
						t.Errorf("%s step %d (static %v) host port %d: held %+v, want %+v", leaf, j, r.Static, p, got, want)
					}
				}
			}
		}
	})
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}
