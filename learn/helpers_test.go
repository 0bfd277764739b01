package learn

import (
	"graphcc/internal/testfabric"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// Test helpers that gnn's tests have too: the fabrics, samples, models and
// policies the moved tests were written against.

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

const testDt = testfabric.SampleInterval

func nnExpectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		e := recover()
		if e == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		s, ok := e.(string)
		if !ok || !strings.HasPrefix(s, "learn: ") || !strings.Contains(s, want) {
			t.Fatalf("panic %v, want a \"learn: \" message containing %q", e, want)
		}
	}()
	f()
}

func nnNewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// hostShape is the default shape with a host head.
func hostShape() gnn.Shape {
	s := gnn.DefaultShape()
	s.HostActions = gnn.NumHostActions
	return s
}

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
		if gnn.ActionsPaper.Setting(gnn.ActionsPaper.Nearest(e, rate), rate) != e {
			r.t.Errorf("decide %d port %d: %v is not an action at %d bps", r.decides, p, e, rate)
		}
		r.written = append(r.written, e)
	}
}

func seededModel(seed uint64) *gnn.Model { return gnn.NewModel(rand.New(rand.NewPCG(seed, 7))) }

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

type policyFunc func(*control.Telemetry, []control.ECN)

func (p policyFunc) Decide(t *control.Telemetry, ecn []control.ECN) { p(t, ecn) }

func topoDefault(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// hp returns the host constants TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS,
// rounded to the constants' units as a model file's profiles are.
func hp(timer, alpha, dec, ai, hai float64) control.HostParams {
	us := func(x float64) int64 { return int64(math.Round(x * float64(dcqcn.Microsecond))) }
	mbps := func(x float64) int64 { return int64(math.Round(x * float64(dcqcn.Mbps))) }
	return control.HostParams{IncreaseInterval: us(timer), AlphaInterval: us(alpha), DecreaseInterval: us(dec),
		AI: mbps(ai), HAI: mbps(hai)}
}

// testProfiles are HPCC's preset and the joint tunes' constants of
// fb60, alistorage60, websearch60 and googlerpc60 (2026-12-06).
func testProfiles() []control.HostParams {
	return []control.HostParams{
		control.DefaultHostParams(), hp(55, 55, 4, 2.5, 25), hp(55, 55, 2, 2.5, 50), hp(100, 55, 16, 5, 25), hp(15, 8, 2, 40, 200),
	}
}

// testHostTable is the table of testProfiles.
func testHostTable(t testing.TB) gnn.HostTable {
	t.Helper()
	tab, err := gnn.NewHostTable(testProfiles())
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// profilesModel returns a model of shape s with a host head on the table
// of testProfiles, initialised from seed.
func profilesModel(t testing.TB, s gnn.Shape, seed uint64) *gnn.Model {
	tab := testHostTable(t)
	s.HostActions = tab.Len()
	m := gnn.NewModelShape(s, nnNewRand(seed))
	m.HostTable = tab
	return m
}
