package learn

import (
	"context"
	"testing"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
)

func TestNearestHostAction(t *testing.T) {
	for a := range gnn.NumHostActions {
		if got := gnn.NearestHostAction(gnn.HostAction(a)); got != a {
			t.Errorf("NearestHostAction(HostAction(%d)) = %d", a, got)
		}
	}
	us, mb := dcqcn.Microsecond, dcqcn.Mbps
	for _, tc := range []struct {
		name string
		h    control.HostParams
		want int
	}{
		{"HPCC's preset", control.DefaultHostParams(), 0},
		{"best joint constant", control.HostParams{IncreaseInterval: 55 * us, AlphaInterval: 55 * us, DecreaseInterval: 2 * us, AI: 20 * mb, HAI: 25 * mb}, 15},
		// 100 µs is nearer 55 than 300 in log scale (ratios 1.8 and 3).
		{"timer between the levels", control.HostParams{IncreaseInterval: 100 * us, AlphaInterval: 1 * us, DecreaseInterval: 4 * us, AI: 5 * mb, HAI: 50 * mb}, 8},
		// 150 µs is nearer 300 (ratio 2) than 55 (2.7).
		{"timer nearer the preset", control.HostParams{IncreaseInterval: 150 * us, AlphaInterval: 1 * us, DecreaseInterval: 4 * us, AI: 5 * mb, HAI: 50 * mb}, 0},
		// AI 10 Mbps: ratio 2 to 5 and to 20, a tie, to the lower action.
		{"AI tie", control.HostParams{IncreaseInterval: 300 * us, AlphaInterval: 1 * us, DecreaseInterval: 4 * us, AI: 10 * mb, HAI: 50 * mb}, 0},
		{"far off every level", control.HostParams{IncreaseInterval: 10000 * us, AlphaInterval: 1000 * us, DecreaseInterval: 1 * us, AI: 100 * mb, HAI: 10 * mb}, 7},
		// Zeros count as 1 ps and 1 bps: nearest are the shortest timers
		// and the smallest steps (55,1,2,5,25).
		{"zeros", control.HostParams{}, 9},
	} {
		if got := gnn.NearestHostAction(tc.h); got != tc.want {
			t.Errorf("%s: NearestHostAction(%+v) = %d, want %d", tc.name, tc.h, got, tc.want)
		}
	}
	h := control.DefaultHostParams()
	if n := testing.AllocsPerRun(100, func() { gnn.NearestHostAction(h) }); n != 0 {
		t.Errorf("NearestHostAction allocates %v times", n)
	}
}

// hostTeacher is a teacher of the switches' settings (Policy) and the
// hosts' constants: fixed ones (HostParams) if fixed is set, and every
// interval, if perHost is set, each host NIC port's own (DecideHosts).
type hostTeacher struct {
	control.Policy
	fixed   *control.HostParams
	perHost func(p topo.PortID) control.HostParams
}

func (h hostTeacher) HostParams() (control.HostParams, bool) {
	if h.fixed == nil {
		return control.HostParams{}, false
	}
	return *h.fixed, true
}

func (h hostTeacher) DecidesHosts() bool { return h.perHost != nil }

func (h hostTeacher) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	for p := range hosts {
		hosts[p] = h.perHost(topo.PortID(p))
	}
}

// TestTeacherHostLabels runs an Explorer of a host-head model (acting at
// random) with teachers of the hosts' constants and checks that every host
// agent's label, at every step, is the host action of the teacher's
// constants for its NIC.
func TestTeacherHostLabels(t *testing.T) {
	f, flows, _ := tinyEpisode(t)(0)
	h5, h15 := gnn.HostAction(5), gnn.HostAction(15)
	odd := func(p topo.PortID) control.HostParams {
		if p%2 == 1 {
			return gnn.HostAction(9)
		}
		return gnn.HostAction(3)
	}
	preset := control.DefaultHostParams()
	for _, tc := range []struct {
		name     string
		teacher  control.Policy
		hardware control.HostParams // the hosts' constants when the teacher gives none
		want     func(p topo.PortID) int
	}{
		{"fixed", hostTeacher{Policy: control.Static{}, fixed: &h5}, preset, func(topo.PortID) int { return 5 }},
		{"fixed, on other hardware", hostTeacher{Policy: control.Static{}, fixed: &h5}, gnn.HostAction(7), func(topo.PortID) int { return 5 }},
		{"deciding", hostTeacher{Policy: control.Static{}, fixed: &h15, perHost: odd}, preset, func(p topo.PortID) int { return 9 - 6*int(1-p%2) }},
		{"none", control.Static{}, preset, func(topo.PortID) int { return 0 }},
		{"none, on other hardware", control.Static{}, gnn.HostAction(7), func(topo.PortID) int { return 7 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraphCC(t, gnn.NewModelShape(hostShape(), nnNewRand(3)), f, gnn.FeatureConfig{})
			defer g.Inference().Close()
			ex := NewExplorer(g, 1)
			if err := ex.SetTeacher(tc.teacher, nil, tc.hardware); err != nil {
				t.Fatal(err)
			}
			steps, wrong := 0, 0
			ex.OnStep = func(_ []float64, actions []int, _, _ []float64) {
				steps++
				for j, p := range g.Hosts() {
					if got, want := actions[len(g.Agents())+j], tc.want(p); got != want {
						wrong++
						if wrong < 5 {
							t.Errorf("step %d: host agent %d (port %d) labelled %d, want %d", steps, j, p, got, want)
						}
					}
				}
			}
			p := replay.DefaultParams()
			p.Window = -1
			if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: p, Policy: ex, Until: 2*topo.Second + 2*topo.Millisecond}); err != nil {
				t.Fatal(err)
			}
			if steps == 0 || len(g.Hosts()) == 0 {
				t.Fatalf("%d steps, %d host agents", steps, len(g.Hosts()))
			}
			if wrong > 0 {
				t.Errorf("%d wrong host labels over %d steps", wrong, steps)
			}
		})
	}
}

// TestTrainImitatesHosts trains a host-head model with ImitateObjective to
// copy a teacher that sets the switches to one action of the extended
// table and the hosts to the best joint constant (host action 15), then
// runs the greedy policy and checks that its host agents play action 15 on
// most host-steps and its switch agents the teacher's setting.
func TestTrainImitatesHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ep := tinyEpisode(t)
	f, flows, _ := ep(0)
	best := gnn.HostAction(15)
	c := tinyTrain("graphcc", 1, ep)
	c.Episodes, c.ActionSet, c.Objective, c.TeacherName, c.Hosts = 20, gnn.ActionsExtended, ImitateObjective, "joint", true
	c.Teacher = func(tf *topo.Fabric, _ uint64) (control.Policy, []control.ECN, error) {
		return hostTeacher{Policy: busyTeacher{f: tf, set: gnn.ActionsExtended, busy: 7, idle: 7}, fixed: &best}, nil, nil
	}
	res, err := Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	a := &hostAgreement{g: mustGraphCC(t, res.Model, f, gnn.FeatureConfig{})}
	defer a.g.Inference().Close()
	p := replay.DefaultParams()
	p.Window = -1
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: p, Policy: a, Until: 2*topo.Second + 5*topo.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Logf("host action 15 on %d of %d host-steps, switch action 7 on %d of %d port-steps", a.hostRight, a.hostSteps, a.portRight, a.portSteps)
	if a.hostSteps == 0 || a.hostRight < a.hostSteps*8/10 {
		t.Errorf("host action 15 on %d of %d host-steps, want 80 %%", a.hostRight, a.hostSteps)
	}
	if a.portSteps == 0 || a.portRight < a.portSteps*8/10 {
		t.Errorf("switch action 7 on %d of %d port-steps, want 80 %%", a.portRight, a.portSteps)
	}
}

// hostAgreement runs g alone and counts the host-steps where it plays host
// action 15 and the port-steps where it plays action 7.
type hostAgreement struct {
	g                                          *gnn.GraphCC
	hostRight, hostSteps, portRight, portSteps int
}

func (a *hostAgreement) Decide(t *control.Telemetry, ecn []control.ECN) {
	a.g.Decide(t, ecn)
	for _, act := range a.g.LastHostActions() {
		a.hostSteps++
		if act == 15 {
			a.hostRight++
		}
	}
	for _, act := range a.g.LastActions() {
		a.portSteps++
		if act == 7 {
			a.portRight++
		}
	}
}

// TestHardwareHosts: a training's fallback host labels are its simulated
// hardware's constants, HPCC's preset by default.
func TestHardwareHosts(t *testing.T) {
	if got := (&Config{}).HardwareHosts(); got != control.DefaultHostParams() {
		t.Errorf("default hardware: %+v, want HPCC's preset %+v", got, control.DefaultHostParams())
	}
	p := replay.DefaultParams()
	if got := (&Config{Params: p}).HardwareHosts(); got != control.DefaultHostParams() {
		t.Errorf("replay.DefaultParams: %+v, want HPCC's preset %+v", got, control.DefaultHostParams())
	}
	p.DCQCN.IncreaseInterval = 55 * topo.Microsecond
	want := control.DefaultHostParams()
	want.IncreaseInterval = 55 * topo.Microsecond
	if got := (&Config{Params: p}).HardwareHosts(); got != want {
		t.Errorf("a 55 µs timer: %+v, want %+v", got, want)
	}
}
