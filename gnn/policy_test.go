package gnn

import (
	"graphcc/internal/testfabric"
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// recorder wraps a policy and keeps every setting it writes to an agent
// port, checking that each is valid and comes from the action table.
type recorder struct {
	t       *testing.T
	f       *topo.Fabric
	p       control.Policy
	decides int
	written []control.ECN // agents' settings, decide-major
}

func (r *recorder) Decide(tel *control.Telemetry, ecn []control.ECN) {
	r.p.Decide(tel, ecn)
	r.decides++
	for _, p := range r.f.Agents() {
		e := ecn[p]
		if err := e.Validate(); err != nil {
			r.t.Errorf("decide %d port %d: %v", r.decides, p, err)
		}
		rate := r.f.Ports[p].Rate
		if Action(ActionsPaper.Nearest(e, rate), rate) != e {
			r.t.Errorf("decide %d port %d: %v is not an action at %d bps", r.decides, p, e, rate)
		}
		r.written = append(r.written, e)
	}
}

func seededModel(seed uint64) *Model { return NewModel(rand.New(rand.NewPCG(seed, 7))) }

// runPolicy simulates testfabric.SmallFlows on f under p and returns the FCTs and the
// settings p wrote.
func runPolicy(t *testing.T, f *topo.Fabric, p control.Policy) ([]trace.FCT, *recorder) {
	t.Helper()
	rec := &recorder{t: t, f: f, p: p}
	flows := testfabric.SmallFlows(t, f)
	res, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: rec, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FCT) != len(flows) {
		t.Fatalf("%d of %d flows completed", len(res.FCT), len(flows))
	}
	if rec.decides < 5 {
		t.Fatalf("only %d decisions", rec.decides)
	}
	return res.FCT, rec
}

func TestGraphCCPolicySimulation(t *testing.T) {
	f := testfabric.SmallClos(t)
	g := mustGraphCC(t, seededModel(1), f, FeatureConfig{})
	fct1, rec1 := runPolicy(t, f, g)
	if got := len(rec1.written); got != rec1.decides*len(f.Agents()) {
		t.Fatalf("%d settings for %d decisions", got, rec1.decides)
	}
	if len(g.LastActions()) != len(f.Agents()) || !slices.Equal(g.Agents(), f.Agents()) {
		t.Fatalf("LastActions/Agents sized %d/%d", len(g.LastActions()), len(g.Agents()))
	}
	for i, p := range g.Agents() {
		last := rec1.written[(rec1.decides-1)*len(f.Agents())+i]
		if Action(g.LastActions()[i], f.Ports[p].Rate) != last {
			t.Errorf("agent %d: LastActions %d does not match the last setting %v", i, g.LastActions()[i], last)
		}
	}

	// The same seed gives the same run, from a fresh policy or a reset one.
	fct2, rec2 := runPolicy(t, f, mustGraphCC(t, seededModel(1), f, FeatureConfig{}))
	g.Reset()
	fct3, rec3 := runPolicy(t, f, g)
	for i, c := range []struct {
		fct []trace.FCT
		rec *recorder
	}{{fct2, rec2}, {fct3, rec3}} {
		if !slices.Equal(c.fct, fct1) || !slices.Equal(c.rec.written, rec1.written) {
			t.Errorf("rerun %d with the same seed differs", i+1)
		}
	}
	// Another model decides otherwise (with overwhelming likelihood).
	_, rec4 := runPolicy(t, f, mustGraphCC(t, seededModel(2), f, FeatureConfig{}))
	if slices.Equal(rec4.written, rec1.written) {
		t.Error("models of seeds 1 and 2 wrote the same settings")
	}
}

type policyFunc func(*control.Telemetry, []control.ECN)

func (p policyFunc) Decide(t *control.Telemetry, ecn []control.ECN) { p(t, ecn) }

func TestPolicyNoAlloc(t *testing.T) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	ecn := control.StaticSettings(f)
	for _, set := range FeatureSets() {
		model := func() *Model { return NewModelSet(set, rand.New(rand.NewPCG(1, 7))) }
		g := mustGraphCC(t, model(), f, FeatureConfig{})
		if a := testing.AllocsPerRun(50, func() { g.Decide(tel, ecn) }); a != 0 {
			t.Errorf("%v: GraphCC.Decide: %v allocations", set, a)
		}
	}
}

func topoDefault(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNewGraphCCShapeError(t *testing.T) {
	f := testfabric.SmallClos(t)
	s := DefaultShape()
	s.Actions = 10
	if _, err := NewGraphCC(NewModelShape(s, nil), f, FeatureConfig{}); err == nil {
		t.Error("NewGraphCC with a 10-action model: no error")
	}
}

// TestGraphCCRefresh: Decide runs the parameters of NewGraphCC, Reset or
// Refresh, not those changed in place since.
func TestGraphCCRefresh(t *testing.T) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(3, 3))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	ecn := control.StaticSettings(f)
	first := func(g *GraphCC) []float32 { // Q of the first Decide of a run
		g.fz.Reset()
		g.Decide(tel, ecn)
		return slices.Clone(g.Inference().Q())
	}
	m := seededModel(1)
	g := mustGraphCC(t, m, f, FeatureConfig{})
	q1 := first(g)
	q2 := first(mustGraphCC(t, seededModel(2), f, FeatureConfig{}))
	if slices.Equal(q1, q2) {
		t.Fatal("models of seeds 1 and 2 have the same Q")
	}
	m.CopyFrom(seededModel(2))
	if !slices.Equal(first(g), q1) {
		t.Error("parameters changed in place took effect before Refresh")
	}
	g.Refresh()
	if !slices.Equal(first(g), q2) {
		t.Error("Refresh did not take the new parameters")
	}
	m.CopyFrom(seededModel(1))
	g.Reset()
	g.Decide(tel, ecn)
	if !slices.Equal(g.Inference().Q(), q1) {
		t.Error("Reset did not take the new parameters")
	}
}

// TestGraphCCMatchesModel: GraphCC's greedy actions are the float64
// model's wherever its best action is clear by more than float32 noise.
func TestGraphCCMatchesModel(t *testing.T) {
	f := topoDefault(t)
	m := seededModel(4)
	g := mustGraphCC(t, m, f, FeatureConfig{})
	ws := NewWorkspace(m, f.Graph())
	actions := make([]int, len(g.Agents()))
	ecn := control.StaticSettings(f)
	r := rand.New(rand.NewPCG(5, 5))
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	compared := 0
	for range 5 {
		for i := range tel.Ports {
			tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
		}
		g.Decide(tel, ecn)
		m.Greedy(ws, g.Featurizer().Features(), actions)
		q := ws.Q()
		for i, a := range g.LastActions() {
			row := q[i*NumActions : (i+1)*NumActions]
			if a == actions[i] {
				compared++
				continue
			}
			if d := row[actions[i]] - row[a]; d > 1e-5 {
				t.Fatalf("agent %d: action %d, the float64 model's %d is better by %g", i, a, actions[i], d)
			}
		}
	}
	if compared < 5*len(actions)*9/10 {
		t.Errorf("only %d of %d greedy actions agree", compared, 5*len(actions))
	}
}

// mustGraphCC is NewGraphCC for a model the test knows fits.
func mustGraphCC(t testing.TB, m *Model, f *topo.Fabric, c FeatureConfig) *GraphCC {
	t.Helper()
	g, err := NewGraphCC(m, f, c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
