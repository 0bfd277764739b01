package policy

import (
	"context"
	"math/rand/v2"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/internal/testfabric"
	"graphcc/learn"
	"graphcc/replay"
	"graphcc/topo"
)

// nowRecorder is a policy that records the time of every Decide.
type nowRecorder struct {
	*learn.Explorer
	now []int64
}

func (r *nowRecorder) Decide(t *control.Telemetry, ecn []control.ECN) {
	r.now = append(r.now, t.Now)
	r.Explorer.Decide(t, ecn)
}

// TestSchedTeacherLabels runs an Explorer of a host-head model (acting at
// random) on the tiny scenario with a schedule of the hosts' constants as
// its imitation teacher (graphcc train --objective imitate --hosts
// --teacher sched:…), and checks every agent's label at every step: a
// host agent's is the host action of the constants of the step in force
// (of the last step that set some; HPCC's preset, action 0, before any
// did), a switch agent's the action nearest the step's setting.
func TestSchedTeacherLabels(t *testing.T) {
	spec := func(a int) string { return FormatHostParams(gnn.HostAction(a)) }
	us := topo.Microsecond
	for _, tc := range []struct {
		name  string
		sched string
		steps []SchedStep // as the schedule reads, hosts' constants in force filled in (zero: none yet)
	}{
		{"from the first step's", "sched:0=2,32,0.01/" + spec(15) + ":300us=8,64,1/" + spec(5) + ":600us=2,32,0.01",
			[]SchedStep{
				{At: 0, ECN: control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}, Hosts: gnn.HostAction(15)},
				{At: 300 * us, ECN: control.ECN{KMin: 8_000, KMax: 64_000, PMax: 1}, Hosts: gnn.HostAction(5)},
				{At: 600 * us, ECN: control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}, Hosts: gnn.HostAction(5)},
			}},
		{"from the preset", "sched:0=2,32,0.01:400us=2,32,0.01/" + spec(9),
			[]SchedStep{
				{At: 0, ECN: control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}},
				{At: 400 * us, ECN: control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}, Hosts: gnn.HostAction(9)},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := testfabric.TinyScenario()
			f, flows, err := sc.Build(3)
			if err != nil {
				t.Fatal(err)
			}
			shape := gnn.DefaultShape()
			shape.HostActions = gnn.NumHostActions
			m := gnn.NewModelShape(shape, rand.New(rand.NewPCG(3, 0)))
			g, err := gnn.NewGraphCC(m, f, gnn.FeatureConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Inference().Close()
			teacher, initial, err := must(ParseControl(context.Background(), tc.sched, Env{})).New(f, sc, 3)
			if err != nil {
				t.Fatal(err)
			}
			r := &nowRecorder{Explorer: learn.NewExplorer(g, 1)}
			if err := r.SetTeacher(teacher, initial, control.DefaultHostParams()); err != nil {
				t.Fatal(err)
			}
			var labels [][]int
			r.OnStep = func(_ []float64, actions []int, _, _ []float64) {
				labels = append(labels, append([]int(nil), actions...))
			}
			if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3, Policy: r}); err != nil {
				t.Fatal(err)
			}
			nA := len(g.Agents())
			seen := map[int]int{}        // host label → host-steps
			for c, got := range labels { // OnStep c reports the labels of Decide c
				k := len(tc.steps) - 1
				for r.now[c]-sc.ArrivalStart() < tc.steps[k].At {
					k--
				}
				step := tc.steps[k]
				wantHost := 0
				if step.Hosts != (control.HostParams{}) {
					wantHost = m.HostTable.Nearest(step.Hosts)
				}
				for j := range g.Hosts() {
					seen[got[nA+j]]++
					if got[nA+j] != wantHost {
						t.Fatalf("step %d (%s): host agent %d labelled %d, want %d", c, topo.FormatDuration(r.now[c]-sc.ArrivalStart()), j, got[nA+j], wantHost)
					}
				}
				for i, p := range g.Agents() {
					rate := f.Ports[p].Rate
					if want := m.ActionSet.Nearest(ScaledECN(f, step.ECN)[p], rate); got[i] != want {
						t.Fatalf("step %d: switch agent %d labelled %d, want %d", c, i, got[i], want)
					}
				}
			}
			t.Logf("%d steps; host labels: %v", len(labels), seen)
			if len(seen) < 2 {
				t.Errorf("host labels %v: the run never reached the second constants", seen)
			}
		})
	}
}
