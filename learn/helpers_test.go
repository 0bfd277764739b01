package learn

import (
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

// smallClos is 2 leaves, 1 spine, 2 hosts per leaf: 6 links, 12 ports;
// ports 0..7 are host links at 25 Gbps, 8..11 leaf-spine at 100 Gbps.
func smallClos(t testing.TB) *topo.Fabric {
	t.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 1, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bytesAt returns the bytes that are fraction x of an interval of testDt at rate.
func bytesAt(x float64, rate int64) int64 {
	return int64(math.Round(x * float64(rate) * float64(testDt) / 8 / float64(topo.Second)))
}

// sample returns a PortSample with utilization u, marking rate m and mean
// enqueue depth q bytes on a port of the given rate.
func sample(u, m float64, q int64, rate int64) control.PortSample {
	s := control.PortSample{TxBytes: bytesAt(u, rate), MarkedBytes: bytesAt(m, rate)}
	if q > 0 {
		s.EnqHist = histOf(q)
		s.EnqDepthMax = q
	}
	return s
}

// histOf returns an enqueue-depth histogram whose QueueFeature is q bytes
// (to within rounding), for q up to the last bucket's middle (about 3.7 MB;
// larger q give that): 2q packets in the last bucket and the rest of
// QueuePacketBytes × 2·mid packets at depth 0, where mid is the depth
// DepthHist.Mean counts the last bucket at, the middle of its range.
func histOf(q int64) (h control.DepthHist) {
	last := control.DepthBuckets - 1
	n := control.QueuePacketBytes * (control.DepthLow(last) + control.DepthLow(last+1) - 1)
	hi := min(2*q, n)
	h[last], h[0] = hi, n-hi
	return h
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

const testDt = 100 * topo.Microsecond

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

// failFabric is the default Clos and the same Clos without leaf0-spine0.
func failFabric(t *testing.T) (base, failed *topo.Fabric) {
	t.Helper()
	base, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	if failed, err = base.FailLinks("leaf0-spine0"); err != nil {
		t.Fatal(err)
	}
	return base, failed
}

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

// policyFlows is a few flows on smallClos: two into h2 at once (an incast
// at leaf1's port to h2), traffic the other way and within a leaf.
func policyFlows(f *topo.Fabric, t testing.TB) []trace.Flow {
	h := func(name string) topo.NodeID {
		n, ok := f.NodeByName(name)
		if !ok {
			t.Fatalf("no node %s", name)
		}
		return n
	}
	t0 := 2 * topo.Second
	fl := func(src, dst string, size, at int64) trace.Flow {
		return trace.Flow{Src: h(src), Dst: h(dst), PG: trace.DefaultPG, DPort: trace.DPortBackground, Size: size, Start: t0 + at}
	}
	return []trace.Flow{
		fl("h0", "h2", 1_000_000, 0),
		fl("h1", "h2", 1_000_000, 0),
		fl("h3", "h0", 500_000, 50*topo.Microsecond),
		fl("h2", "h1", 200_000, 100*topo.Microsecond),
		fl("h1", "h0", 300_000, 150*topo.Microsecond),
		fl("h3", "h2", 64_000, 300*topo.Microsecond),
	}
}

func seededModel(seed uint64) *gnn.Model { return gnn.NewModel(rand.New(rand.NewPCG(seed, 7))) }

// runPolicy simulates policyFlows on f under p and returns the FCTs and the
// settings p wrote.
func runPolicy(t *testing.T, f *topo.Fabric, p control.Policy) ([]trace.FCT, *recorder) {
	t.Helper()
	rec := &recorder{t: t, f: f, p: p}
	flows := policyFlows(f, t)
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
