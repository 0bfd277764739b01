package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
)

// TestImitateGradient checks the cross-entropy gradient of imitate against
// central differences of its loss.
func TestImitateGradient(t *testing.T) {
	const agents = 3
	r := rand.New(rand.NewPCG(3, 4))
	l := &learner{agents: agents}
	lw := &learnWorker{
		q: make([]float64, agents*gnn.NumActions), dq: make([]float64, agents*gnn.NumActions),
		actions: []int{5, NoAction, 119},
	}
	for i := range lw.q {
		lw.q[i] = 4 * r.NormFloat64()
	}
	const scale = 0.25
	l.imitate(lw, agents, scale)
	grad := append([]float64(nil), lw.dq...)
	const h = 1e-6
	for i := range lw.q {
		q := lw.q[i]
		lw.q[i] = q + h
		up := l.imitate(lw, agents, scale)
		lw.q[i] = q - h
		down := l.imitate(lw, agents, scale)
		lw.q[i] = q
		num := (up - down) / (2 * h) * scale
		if math.Abs(num-grad[i]) > 1e-6 {
			t.Errorf("output %d: gradient %.9f, central difference %.9f", i, grad[i], num)
		}
		if i/gnn.NumActions == 1 && grad[i] != 0 {
			t.Errorf("output %d of an agent without a label has gradient %v", i, grad[i])
		}
	}
}

// busyTeacher labels a port busy (utilization above one half) with one
// setting and every other port with another: a teacher whose labels depend
// on the state, per port.
type busyTeacher struct {
	f          *topo.Fabric
	set        gnn.ActionSet
	busy, idle int // actions
}

func (b busyTeacher) action(t *control.Telemetry, p topo.PortID) int {
	rate := b.f.Ports[p].Rate
	if float64(t.Ports[p].TxBytes)*8/(float64(t.Interval)/float64(topo.Second))/float64(rate) > 0.5 {
		return b.busy
	}
	return b.idle
}

func (b busyTeacher) Decide(t *control.Telemetry, ecn []control.ECN) {
	for _, p := range b.f.Agents() {
		ecn[p] = b.set.Setting(b.action(t, p), b.f.Ports[p].Rate)
	}
}

// agreement runs g alone and counts, among busy and idle agent port-steps,
// those where its action is the teacher's.
type agreement struct {
	g                                *gnn.GraphCC
	teach                            busyTeacher
	busyRight, busy, idleRight, idle int
}

func (a *agreement) Decide(t *control.Telemetry, ecn []control.ECN) {
	a.g.Decide(t, ecn)
	for i, p := range a.g.Agents() {
		want := a.teach.action(t, p)
		right := a.g.LastActions()[i] == want
		if want == a.teach.busy {
			a.busy++
			if right {
				a.busyRight++
			}
		} else {
			a.idle++
			if right {
				a.idleRight++
			}
		}
	}
}

// TestTrainImitates trains GraphCC with ImitateObjective to copy a teacher
// that sets busy ports to one action of the extended table and idle ones
// to another, then runs the greedy policy on a trace and checks that it
// plays the teacher's action on most busy and most idle port-steps.
func TestTrainImitates(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ep := tinyEpisode(t)
	f, flows, _ := ep(0)
	teach := busyTeacher{f: f, set: gnn.ActionsExtended, busy: 7, idle: 100}
	c := tinyTrain("graphcc", 1, ep)
	c.Episodes, c.ActionSet, c.Objective, c.TeacherName = 20, gnn.ActionsExtended, ImitateObjective, "busy"
	c.Teacher = func(tf *topo.Fabric, _ uint64) (control.Policy, []control.ECN, error) {
		return busyTeacher{f: tf, set: teach.set, busy: teach.busy, idle: teach.idle}, nil, nil
	}
	res, err := Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	a := &agreement{g: mustGraphCC(t, res.Model, f, gnn.FeatureConfig{}), teach: teach}
	defer a.g.Inference().Close()
	p := replay.DefaultParams()
	p.Window = -1
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: p, Policy: a, Until: 2*topo.Second + 5*topo.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Logf("teacher's action on %d of %d busy and %d of %d idle port-steps", a.busyRight, a.busy, a.idleRight, a.idle)
	if a.busy == 0 || a.idle == 0 {
		t.Fatalf("%d busy and %d idle port-steps: the trace does not exercise both labels", a.busy, a.idle)
	}
	if float64(a.busyRight) < 0.8*float64(a.busy) || float64(a.idleRight) < 0.8*float64(a.idle) {
		t.Errorf("teacher's action on %d of %d busy and %d of %d idle port-steps, want 80 %% of each",
			a.busyRight, a.busy, a.idleRight, a.idle)
	}
}

// TestImitateConfigErrors: a teacher goes with ImitateObjective, and that
// objective with a teacher and GraphCC (with or without a host head:
// TestTrainImitatesHosts).
func TestImitateConfigErrors(t *testing.T) {
	ep := tinyEpisode(t)
	teacher := func(*topo.Fabric, uint64) (control.Policy, []control.ECN, error) { return control.Static{}, nil, nil }
	for _, c := range []struct {
		name string
		mod  func(*Config)
		err  string
	}{
		{"no teacher", func(c *Config) { c.Objective = ImitateObjective }, "needs a teacher"},
		{"teacher without imitate", func(c *Config) { c.Teacher = teacher }, "a teacher is for objective imitate"},
		{"acc", func(c *Config) { c.Kind, c.Objective, c.Teacher = "acc", ImitateObjective, teacher }, "GraphCC's agents only (not acc)"},
	} {
		cfg := tinyTrain("graphcc", 1, ep)
		c.mod(&cfg)
		_, err := Train(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
		}
	}
}
