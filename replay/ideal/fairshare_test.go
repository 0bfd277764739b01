package ideal

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

func TestWaterfillMaxMin(t *testing.T) {
	tests := []struct {
		name     string
		capacity []float64
		paths    [][]topo.PortID
		want     []float64
	}{
		{"none", []float64{1}, nil, nil},
		{"one port, three flows", []float64{3}, [][]topo.PortID{{0}, {0}, {0}}, []float64{1, 1, 1}},
		// B is the bottleneck of f1, f2 and f3; f0 takes what f1 leaves of A.
		{"classic", []float64{1, 1}, [][]topo.PortID{{0}, {0, 1}, {1}, {1}}, []float64{2.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"unequal ports", []float64{1, 10}, [][]topo.PortID{{0}, {0, 1}, {1}}, []float64{0.5, 0.5, 9.5}},
		{"chain", []float64{4, 1, 4}, [][]topo.PortID{{0, 1, 2}, {0}, {2}, {2}}, []float64{1, 3, 1.5, 1.5}},
		{"idle port", []float64{1, 5}, [][]topo.PortID{{1}}, []float64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWaterfillCap(tt.capacity)
			active := make([]fluid, len(tt.paths))
			for i, p := range tt.paths {
				active[i].path = p
			}
			w.allocate(active)
			for i, a := range active {
				if math.Abs(a.rate-tt.want[i]) > 1e-12 {
					t.Errorf("flow %d: rate %g, want %g", i, a.rate, tt.want[i])
				}
			}
		})
	}
}

// TestWaterfillRandom checks max-min fairness on random instances by its
// definition: the rates fit every port, and every flow has a bottleneck, a
// saturated port on its path where no flow has a higher rate.
func TestWaterfillRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		ports := 1 + r.IntN(8)
		capacity := make([]float64, ports)
		for p := range capacity {
			capacity[p] = 0.1 + 10*r.Float64()
		}
		active := make([]fluid, r.IntN(12))
		for i := range active {
			for p := range ports {
				if r.IntN(3) == 0 {
					active[i].path = append(active[i].path, topo.PortID(p))
				}
			}
			if len(active[i].path) == 0 {
				active[i].path = []topo.PortID{topo.PortID(r.IntN(ports))}
			}
		}
		w := newWaterfillCap(capacity)
		w.allocate(active)
		w.allocate(active) // reuse must not change the result
		load := make([]float64, ports)
		top := make([]float64, ports)
		for _, a := range active {
			for _, p := range a.path {
				load[p] += a.rate
				top[p] = max(top[p], a.rate)
			}
		}
		for p := range ports {
			if load[p] > capacity[p]*(1+1e-9) {
				t.Fatalf("instance %d: port %d carries %g > %g", n, p, load[p], capacity[p])
			}
		}
		for i, a := range active {
			ok := false
			for _, p := range a.path {
				if load[p] >= capacity[p]*(1-1e-9) && a.rate >= top[p]*(1-1e-9) {
					ok = true
				}
			}
			if !ok || !(a.rate > 0) {
				t.Fatalf("instance %d: flow %d (rate %g, path %v) has no bottleneck", n, i, a.rate, a.path)
			}
		}
	}
}

// A flow alone takes its standalone FCT, whatever its size and path.
func TestFairShareAlone(t *testing.T) {
	f := testfabric.Clos(t)
	for _, size := range []int64{1, 999, 1000, 1001, 64000, 10_000_000} {
		for _, dst := range []string{"h1", "h23"} {
			fl := trace.Flow{Src: testfabric.Node(t, f, "h0"), Dst: testfabric.Node(t, f, dst), DPort: trace.DPortBackground, Size: size, Start: 5 * topo.Microsecond}
			res, err := Run(context.Background(), replay.Config{Fabric: f, Flows: []trace.Flow{fl}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.FCT) != 1 {
				t.Fatalf("%d records", len(res.FCT))
			}
			r := res.FCT[0]
			if d := r.FCT - r.Standalone; d < -1 || d > 1 {
				t.Errorf("size %d to %s: FCT %d ps, standalone %d", size, dst, r.FCT, r.Standalone)
			}
			if r.Start != fl.Start || r.Size != size || r.SPort != 10000 || r.DPort != trace.DPortBackground {
				t.Errorf("record %+v does not describe the flow", r)
			}
		}
	}
}

// N senders on distinct hosts into one receiver share its 25 Gbps port
// equally and finish together, N times the standalone serialization after
// they start.
func TestFairShareIncast(t *testing.T) {
	f := testfabric.Clos(t)
	const size = 64000
	dst := testfabric.Node(t, f, "h0")
	var flows []trace.Flow
	for i := 1; i <= 16; i++ {
		flows = append(flows, trace.Flow{Src: testfabric.Node(t, f, "h"+strconv.Itoa(i+4)), Dst: dst, DPort: trace.DPortIncast, Size: size, Start: topo.Microsecond})
	}
	res, err := Run(context.Background(), replay.Config{Fabric: f, Flows: flows})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FCT) != len(flows) {
		t.Fatalf("%d of %d flows finished", len(res.FCT), len(flows))
	}
	for _, r := range res.FCT {
		rtt := f.BaseRTT(r.Src, r.Dst)
		ser := r.Standalone - rtt
		want := rtt + 16*ser
		if d := r.FCT - want; d < -16 || d > 16 {
			t.Errorf("%v: FCT %d ps, want %d", r.Src, r.FCT, want)
		}
	}
}

// On a generated trace every flow finishes no sooner than alone, the run is
// deterministic, and fair sharing without queues beats the packet-level
// fabric under static DCQCN on mean slowdown.
func TestFairShareTrace(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := replay.Config{Fabric: f, Flows: flows, Seed: 3}
	a, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.FCT) != len(flows) || a.Summary.Completed != len(flows) || a.Summary.Flows != len(flows) {
		t.Fatalf("%d of %d flows finished (summary %d of %d)", len(a.FCT), len(flows), a.Summary.Completed, a.Summary.Flows)
	}
	if !reflect.DeepEqual(a.FCT, b.FCT) || a.Summary.Slowdown != b.Summary.Slowdown || a.End != b.End {
		t.Error("two runs differ")
	}
	for _, r := range a.FCT {
		if r.FCT < r.Standalone-1 {
			t.Fatalf("%+v: faster than alone", r)
		}
	}
	if a.Summary.Events < int64(len(flows)) {
		t.Errorf("%d allocations for %d flows", a.Summary.Events, len(flows))
	}
	sim, err := replay.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !(a.Summary.Slowdown.Mean < sim.Summary.Slowdown.Mean) || !(a.Summary.Slowdown.Mean > 1) {
		t.Errorf("mean slowdown: fair share %.3f, simulator %.3f", a.Summary.Slowdown.Mean, sim.Summary.Slowdown.Mean)
	}
	t.Logf("%d flows: mean slowdown %.3f (simulator, static: %.3f)", len(flows), a.Summary.Slowdown.Mean, sim.Summary.Slowdown.Mean)

	// Until stops the run with flows unfinished.
	cut := cfg
	cut.Until = trace.FirstStart(flows) + sc.Gen.Duration/2
	c, err := Run(context.Background(), cut)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.FCT) == 0 || len(c.FCT) >= len(flows) || c.End > cut.Until {
		t.Errorf("until %d: %d of %d flows, end %d", cut.Until, len(c.FCT), len(flows), c.End)
	}
	for i, r := range c.FCT {
		if r != a.FCT[i] {
			t.Fatalf("record %d before the cut differs: %+v, want %+v", i, r, a.FCT[i])
		}
	}
}

func TestFairShareNoFlows(t *testing.T) {
	f := testfabric.Clos(t)
	h0, h1 := testfabric.Node(t, f, "h0"), testfabric.Node(t, f, "h1")
	for _, cfg := range []replay.Config{
		{Fabric: f},
		{Fabric: f, Flows: []trace.Flow{{Src: h0, Dst: h1, Size: 1000, Start: 5 * topo.Millisecond}}, Until: topo.Millisecond},
	} {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.FCT) != 0 || r.Summary.Completed != 0 || r.Summary.Flows != len(cfg.Flows) {
			t.Errorf("%d flows, until %d: %d records, summary %d of %d", len(cfg.Flows), cfg.Until, len(r.FCT), r.Summary.Completed, r.Summary.Flows)
		}
	}
}

func TestFairShareErrors(t *testing.T) {
	f := testfabric.Clos(t)
	h0, h1 := testfabric.Node(t, f, "h0"), testfabric.Node(t, f, "h1")
	sw := f.Switches()[0]
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stop here"))
	tests := []struct {
		name string
		ctx  context.Context
		cfg  replay.Config
		want string
	}{
		{"no fabric", context.Background(), replay.Config{}, "no fabric"},
		{"switch", context.Background(), replay.Config{Fabric: f, Flows: []trace.Flow{{Src: h0, Dst: sw, Size: 1}}}, "flow 0: h0 -> "},
		{"size", context.Background(), replay.Config{Fabric: f, Flows: []trace.Flow{{Src: h0, Dst: h1}, {Src: h0, Dst: h1, Size: 0}}}, "flow 0: size 0 must be positive"},
		{"cancelled", ctx, replay.Config{Fabric: f, Flows: []trace.Flow{{Src: h0, Dst: h1, Size: 1}}}, "stop here"},
		{"link event", context.Background(), replay.Config{Fabric: f, Flows: []trace.Flow{{Src: h0, Dst: h1, Size: 1}}, LinkEvents: []topo.LinkEvent{{}}}, "a host's link cannot fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(tt.ctx, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// BenchmarkFairShareLarge runs BenchmarkRunLarge's trace through the
// fabric's ideal.
func BenchmarkFairShareLarge(b *testing.B) {
	f, flows := testfabric.LargeTrace(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), replay.Config{Fabric: f, Flows: flows}); err != nil {
			b.Fatal(err)
		}
	}
}

// Long flows into one receiver, started apart: DCQCN converges to the fair
// share, so the simulator's FCTs come close to the ideal's, which are
// the fair share's by construction.
func TestFairShareMatchesSimulatorOnLongFlows(t *testing.T) {
	f := testfabric.Clos(t)
	dst := testfabric.Node(t, f, "h0")
	for _, n := range []int{1, 3, 6} {
		var flows []trace.Flow
		for k := range n {
			// senders on other leaves, one every 2 ms, 10 MB each
			flows = append(flows, trace.Flow{Src: testfabric.Node(t, f, "h"+strconv.Itoa(6+3*k)), Dst: dst, PG: trace.DefaultPG, DPort: trace.DPortBackground,
				Size: 10_000_000, Start: topo.Microsecond + int64(k)*2*topo.Millisecond})
		}
		cfg := replay.Config{Fabric: f, Flows: flows, Seed: 1}
		sim, err := replay.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ideal, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		fct := func(r *replay.Result) map[topo.NodeID]int64 {
			m := map[topo.NodeID]int64{}
			for _, rec := range r.FCT {
				m[rec.Src] = rec.FCT
			}
			return m
		}
		s, i := fct(sim), fct(ideal)
		if len(s) != n || len(i) != n {
			t.Fatalf("n=%d: %d and %d flows finished", n, len(s), len(i))
		}
		for src, want := range i {
			ratio := float64(s[src]) / float64(want)
			t.Logf("n=%d: from %v: simulator %.3f ms, ideal %.3f ms (%.3f)", n, src, float64(s[src])/1e9, float64(want)/1e9, ratio)
			if ratio < 0.98 || ratio > 1.03 {
				t.Errorf("n=%d: flow from %v: simulator's FCT %.3f times the ideal's", n, src, ratio)
			}
		}
	}
}
