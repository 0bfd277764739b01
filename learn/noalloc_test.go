package learn

import (
	"graphcc/internal/testfabric"
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

// randomTelemetry is one interval of random samples on every port of f.
func randomTelemetry(f *topo.Fabric) *control.Telemetry {
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	return tel
}

// TestExplorerNoAlloc: an exploring GraphCC, of every feature set and with
// a host head, decides without allocating, and its transitions fill a
// replay buffer, the host agents' actions within their table.
func TestExplorerNoAlloc(t *testing.T) {
	f := topoDefault(t)
	tel := randomTelemetry(f)
	ecn, hosts := control.StaticSettings(f), make([]control.HostParams, len(f.Ports))
	for _, set := range gnn.FeatureSets() {
		m := gnn.NewModelSet(set, rand.New(rand.NewPCG(1, 7)))
		x := NewExplorer(mustGraphCC(t, m, f, gnn.FeatureConfig{}), 1)
		x.Epsilon = 0.2
		b := NewReplayBufferLen(64, len(f.Ports)*set.Len(), len(f.Agents()))
		x.OnStep = func(prev []float64, actions []int, rewards []float64, next []float64) {
			b.Add(prev, actions, rewards, next)
		}
		if a := testing.AllocsPerRun(50, func() { x.Decide(tel, ecn) }); a != 0 {
			t.Errorf("%v: Explorer.Decide: %v allocations", set, a)
		}
		if b.Len() == 0 {
			t.Errorf("%v: no transitions collected", set)
		}
	}

	x := NewExplorer(mustGraphCC(t, gnn.NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7))), f, gnn.FeatureConfig{}), 1)
	x.Epsilon = 0.2
	nh := len(control.HostPorts(f))
	b := NewReplayBufferLen(64, len(f.Ports)*gnn.NumFeatures, len(f.Agents())+nh)
	x.OnStep = func(prev []float64, actions []int, rewards []float64, next []float64) {
		b.Add(prev, actions, rewards, next)
	}
	if a := testing.AllocsPerRun(50, func() { x.Decide(tel, ecn); x.DecideHosts(tel, hosts) }); a != 0 {
		t.Errorf("Explorer.Decide and DecideHosts: %v allocations", a)
	}
	if b.Len() == 0 {
		t.Fatal("no transitions collected")
	}
	acts := make([]int, b.Agents())
	explored := false
	for i := range b.Len() {
		b.Actions(i, acts)
		for _, a := range acts[len(f.Agents()):] {
			if a < 0 || a >= gnn.NumHostActions {
				t.Fatalf("host action %d outside the host table", a)
			}
			explored = explored || a != acts[len(f.Agents())]
		}
	}
	if !explored {
		t.Error("the host agents never took different actions")
	}
}

// TestACCExplorer: the exploring ACC with epsilon 0 decides as ACC does,
// reports every transition but the first, and decides without allocating;
// with epsilon 1 its agents take other actions than the greedy ones.
func TestACCExplorer(t *testing.T) {
	f := topoDefault(t)
	tel := randomTelemetry(f)
	acc := gnn.NewACC(f, gnn.FeatureConfig{}, nnNewRand(3))
	twin, err := gnn.NewACCFrom(acc.Nets, acc.Ports(), f, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	x := newACCExplorer(acc, 1)
	steps := 0
	x.onStep = func(prev []float64, actions []int, rewards []float64, next []float64) {
		steps++
		if len(prev) != len(f.Ports)*gnn.ACCNumFeatures || len(actions) != len(f.Agents()) || len(rewards) != len(actions) || len(next) != len(prev) {
			t.Fatalf("transition of %d, %d, %d and %d", len(prev), len(actions), len(rewards), len(next))
		}
	}
	got, want := control.StaticSettings(f), control.StaticSettings(f)
	for range 3 {
		x.Decide(tel, got)
		twin.Decide(tel, want)
		if !slices.Equal(got, want) || !slices.Equal(x.actions, twin.LastActions()) {
			t.Fatal("the greedy exploring ACC decided otherwise than ACC")
		}
	}
	if steps != 2 {
		t.Errorf("%d transitions for 3 decisions", steps)
	}
	if a := testing.AllocsPerRun(50, func() { x.Decide(tel, got) }); a != 0 {
		t.Errorf("exploring ACC's Decide: %v allocations", a)
	}
	x.epsilon = 1
	x.Decide(tel, got)
	twin.Decide(tel, want)
	if slices.Equal(x.actions, twin.LastActions()) {
		t.Error("epsilon 1 took the greedy actions")
	}
}

// TestRewardNoAlloc: Reward does not allocate.
func TestRewardNoAlloc(t *testing.T) {
	f := testfabric.SmallClos(t)
	tel := randomTelemetry(f)
	rw := make([]float64, len(f.Agents()))
	z := gnn.NewFeaturizer(f, gnn.FeatureConfig{})
	if a := testing.AllocsPerRun(100, func() {
		z.Observe(tel)
		Reward(rw, z, f.Agents(), Convex, DefaultWeightQ)
	}); a != 0 {
		t.Errorf("Observe+Reward: %v allocations", a)
	}
}
