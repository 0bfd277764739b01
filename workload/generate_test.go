package workload

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

func TestGenLoad(t *testing.T) {
	f := clos24(t)
	c := DefaultGen()
	c.Incast.Period = 0
	c.Duration = 100 * topo.Millisecond
	flows, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	hosts := f.Hosts()
	var bytes int64
	for i, fl := range flows {
		if fl.PG != trace.DefaultPG || fl.DPort != trace.DPortBackground || fl.Incast() {
			t.Fatalf("flow %d: %+v, want pg 3 dport 100", i, fl)
		}
		if fl.Src == fl.Dst || f.Nodes[fl.Src].Switch || f.Nodes[fl.Dst].Switch {
			t.Fatalf("flow %d: %+v: bad endpoints", i, fl)
		}
		if fl.Start < c.Start || fl.Start > c.Start+c.Duration || fl.Start%topo.Nanosecond != 0 {
			t.Fatalf("flow %d starts at %d ps, outside the window or off the ns grid", i, fl.Start)
		}
		if fl.Size < 1 || fl.Size > 10_000_000 {
			t.Fatalf("flow %d: size %d", i, fl.Size)
		}
		bytes += fl.Size
	}
	rate := f.Ports[f.HostPort(hosts[0])].Rate
	capacity := float64(len(hosts)) * float64(rate) / 8 * float64(c.Duration) / float64(topo.Second)
	load := float64(bytes) / capacity
	t.Logf("%d flows, offered load %.4f", len(flows), load)
	if math.Abs(load-c.Load)/c.Load > 0.05 {
		t.Errorf("offered load %.4f, want %.2f within 5%%", load, c.Load)
	}
	// The arrival process alone (flow count times the mean size) is much
	// less noisy than the heavy-tailed byte count: hold it to 2%.
	if l := float64(len(flows)) * c.Workload.Mean() / capacity; math.Abs(l-c.Load)/c.Load > 0.02 {
		t.Errorf("flows*mean load %.4f, want %.2f within 2%%", l, c.Load)
	}
	// About as many flows as HPCC's n_flow_estimate.
	est := float64(c.Duration) / 1000 / (1 / (float64(rate) * c.Load / 8 / c.Workload.Mean()) * 1e9) * float64(len(hosts))
	if n := float64(len(flows)); math.Abs(n-est)/est > 0.05 {
		t.Errorf("%d flows, HPCC estimates %.0f", len(flows), est)
	}
	if !slices.IsSortedFunc(flows, func(a, b trace.Flow) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Src, b.Src))
	}) {
		t.Error("flows not sorted by (start, src)")
	}
	// Every source and every destination is used.
	srcs, dsts := map[topo.NodeID]bool{}, map[topo.NodeID]bool{}
	for _, fl := range flows {
		srcs[fl.Src], dsts[fl.Dst] = true, true
	}
	if len(srcs) != len(hosts) || len(dsts) != len(hosts) {
		t.Errorf("%d sources, %d destinations of %d hosts", len(srcs), len(dsts), len(hosts))
	}
}

func TestGenDeterminism(t *testing.T) {
	f := clos24(t)
	c := DefaultGen()
	a, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(f, c)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different flows")
	}
	c.Seed = 2
	d, _ := Generate(f, c)
	if slices.Equal(a, d) {
		t.Error("seeds 1 and 2 gave the same flows")
	}
}

func TestIncast(t *testing.T) {
	f := clos24(t)
	c := DefaultGen()
	flows, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[int64][]trace.Flow{}
	var background []trace.Flow
	for _, fl := range flows {
		if fl.Incast() {
			groups[fl.Start] = append(groups[fl.Start], fl)
		} else {
			background = append(background, fl)
		}
	}
	// k = 1..24: Start + k ms < Start + 25 ms.
	if len(groups) != 24 {
		t.Fatalf("%d incasts, want 24", len(groups))
	}
	receivers := map[topo.NodeID]bool{}
	for k := int64(1); k <= 24; k++ {
		at := c.Start + k*topo.Millisecond
		g := groups[at]
		if len(g) != 16 {
			t.Fatalf("incast at %d ps has %d senders, want 16", at, len(g))
		}
		senders := map[topo.NodeID]bool{}
		for _, fl := range g {
			if fl.Dst != g[0].Dst || fl.Src == fl.Dst || fl.Size != 64000 || fl.DPort != trace.DPortIncast || fl.PG != trace.DefaultPG {
				t.Fatalf("incast flow %+v", fl)
			}
			senders[fl.Src] = true
		}
		if len(senders) != 16 {
			t.Fatalf("incast at %d: %d distinct senders", at, len(senders))
		}
		receivers[g[0].Dst] = true
	}
	if len(receivers) < 5 {
		t.Errorf("only %d distinct receivers in 24 incasts", len(receivers))
	}

	// Incasts on or off: the background trace is the same.
	c.Incast.Period = 0
	plain, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain, background) {
		t.Errorf("background changed with incasts: %d vs %d flows", len(plain), len(background))
	}

	// A full fan-in: every other host sends.
	c.Incast = IncastConfig{Period: 10 * topo.Millisecond, FanIn: 23, Size: 1000}
	full, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fl := range full {
		if fl.Incast() {
			n++
		}
	}
	if n != 2*23 {
		t.Errorf("%d incast flows with fan-in 23 at 10 ms over 25 ms, want 46", n)
	}
}

func TestGenConfigErrors(t *testing.T) {
	f := clos24(t)
	for _, tc := range []struct {
		want string
		mod  func(*GenConfig)
	}{
		{"GenConfig.Workload: nil", func(c *GenConfig) { c.Workload = nil }},
		{"GenConfig.Workload", func(c *GenConfig) { c.Workload = &CDF{Name: "zero", Points: []CDFPoint{{0, 0}, {0, 100}}} }},
		{"GenConfig.Load", func(c *GenConfig) { c.Load = 0 }},
		{"GenConfig.Load", func(c *GenConfig) { c.Load = 1.01 }},
		{"GenConfig.Load", func(c *GenConfig) { c.Load = math.NaN() }},
		{"GenConfig.Duration", func(c *GenConfig) { c.Duration = 0 }},
		{"GenConfig.Start", func(c *GenConfig) { c.Start = -1 }},
		{"GenConfig.Start: 9223372036854775802 ps plus the duration", func(c *GenConfig) { c.Start = math.MaxInt64 - 5 }},
		{"GenConfig.Incast.Period", func(c *GenConfig) { c.Incast.Period = -1 }},
		{"GenConfig.Incast.FanIn", func(c *GenConfig) { c.Incast.FanIn = 0 }},
		{"GenConfig.Incast.FanIn: 24 senders, but the fabric has only 23 other hosts", func(c *GenConfig) { c.Incast.FanIn = 24 }},
		{"GenConfig.Incast.Size", func(c *GenConfig) { c.Incast.Size = 0 }},
		{"GenConfig.Incast.Size: 9223372036854775807 bytes, want > 0 and at most 1125899906842624", func(c *GenConfig) { c.Incast.Size = math.MaxInt64 }},
		{"GenConfig.Incast.Period: 1000000000 incasts of 16 flows", func(c *GenConfig) { c.Duration, c.Incast.Period = topo.Millisecond, 1 }},
		{"more than a trace may hold (20000000); shorten the duration", func(c *GenConfig) { c.Duration = 100 * topo.Second }},
		{"more than a trace may hold", func(c *GenConfig) { c.Workload = &CDF{Name: "tiny", Points: []CDFPoint{{1, 0}, {1, 100}}} }},
	} {
		c := DefaultGen()
		tc.mod(&c)
		if _, err := Generate(f, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error = %v, want %q", err, tc.want)
		}
		// Check refuses what Generate refuses, as a GenError whose
		// Field and Reason make up the message.
		err := c.Check(f)
		var ge *GenError
		if !errors.As(err, &ge) || !strings.Contains("GenConfig."+ge.Field+": "+ge.Reason, tc.want) && !strings.Contains(ge.Reason, tc.want) {
			t.Errorf("Check: %v (%T), want a GenError with %q", err, err, tc.want)
		}
	}
	if err := DefaultGen().Check(f); err != nil {
		t.Errorf("Check(DefaultGen): %v", err)
	}
	// Load 1 is allowed; incast settings are ignored when Period is 0.
	c := DefaultGen()
	c.Load, c.Incast = 1, IncastConfig{FanIn: 99}
	if _, err := Generate(f, c); err != nil {
		t.Errorf("load 1, no incast: %v", err)
	}
	if _, err := Generate(nil, DefaultGen()); err == nil {
		t.Error("nil fabric accepted")
	}
}

// hpccTrafficGen is traffic_gen.py's main loop transliterated line by line
// (a list with a linear min instead of heapq, times in ns), drawing from the
// same stream as Generate's background.
func hpccTrafficGen(nhost int, bandwidth, load float64, cdf *CDF, timeNs float64, baseT int64, seed uint64) []trace.Flow {
	random := rand.New(rand.NewPCG(seed, streamBackground))
	poisson := func(lam float64) float64 { return -math.Log(1-random.Float64()) * lam }
	avg := cdf.Mean()
	avgInterArrival := 1 / (bandwidth * load / 8. / avg) * 1000000000
	type tuple struct {
		t   int64
		src int
	}
	var hostList []tuple
	for i := range nhost {
		hostList = append(hostList, tuple{baseT + int64(poisson(avgInterArrival)), i})
	}
	var out []trace.Flow
	for len(hostList) > 0 {
		k := 0
		for j, h := range hostList {
			if h.t < hostList[k].t || h.t == hostList[k].t && h.src < hostList[k].src {
				k = j
			}
		}
		t, src := hostList[k].t, hostList[k].src
		interT := int64(poisson(avgInterArrival))
		dst := random.IntN(nhost)
		for dst == src {
			dst = random.IntN(nhost)
		}
		if float64(t+interT) > timeNs+float64(baseT) {
			hostList = append(hostList[:k], hostList[k+1:]...)
		} else {
			size := int64(cdf.valueAt(random.Float64() * 100))
			if size <= 0 {
				size = 1
			}
			out = append(out, trace.Flow{Src: topo.NodeID(src), Dst: topo.NodeID(dst), PG: 3, DPort: 100, Size: size, Start: t * 1000})
			hostList[k].t = t + interT
		}
	}
	return out
}

func TestGenMatchesHPCCTrafficGen(t *testing.T) {
	for _, tc := range []struct {
		workload string
		load     float64
		dur      int64
	}{
		{"fb_hadoop", 0.6, 25 * topo.Millisecond},
		{"websearch", 0.3, 50 * topo.Millisecond},
		{"googlerpc", 0.9, 2 * topo.Millisecond},
	} {
		f := clos24(t)
		c := DefaultGen()
		c.Workload, _ = Builtin(tc.workload)
		c.Load, c.Duration, c.Incast.Period, c.Seed = tc.load, tc.dur, 0, 99
		got, err := Generate(f, c)
		if err != nil {
			t.Fatal(err)
		}
		want := hpccTrafficGen(24, 25e9, tc.load, c.Workload, float64(tc.dur/1000), c.Start/1000, 99)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: Generate gave %d flows, the transliterated traffic_gen.py %d, or they differ", tc.workload, len(got), len(want))
		}
	}
}

func TestFlowsRoundTrip(t *testing.T) {
	f := clos24(t)
	flows, err := Generate(f, DefaultGen())
	if err != nil {
		t.Fatal(err)
	}
	flows = append(flows,
		trace.Flow{Src: 0, Dst: 23, PG: 0, DPort: 7, Size: 1, Start: 0},
		trace.Flow{Src: 1, Dst: 2, PG: 7, DPort: 65535, Size: math.MaxInt64, Start: 2*topo.Second + 1},
		trace.Flow{Src: 2, Dst: 1, PG: 3, DPort: 100, Size: 5, Start: 1_234_500},
		trace.Flow{Src: 3, Dst: 4, PG: 3, DPort: 100, Size: 5, Start: math.MaxInt64},
		trace.Flow{Src: 4, Dst: 3, PG: 3, DPort: 100, Size: 5, Start: 1}, // unsorted on purpose
	)
	var buf bytes.Buffer
	if err := trace.WriteFlows(&buf, flows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"0 23 0 7 1 0.000000000\n", "1 2 7 65535 9223372036854775807 2.000000000001\n",
		"2 1 3 100 5 0.0000012345\n", "3 4 3 100 5 9223372.036854775807\n", "4 3 3 100 5 0.000000000001\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.HasPrefix(text, fmt.Sprintf("%d\n", len(flows))) {
		t.Errorf("output starts %q", text[:20])
	}
	got, err := trace.ReadFlows(&buf, "rt", f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, flows) {
		t.Error("flow.txt round trip changed the flows")
	}
	if err := trace.WriteFlows(&bytes.Buffer{}, []trace.Flow{{Src: 0, Dst: 1, Size: 1, Start: -1}}); err == nil {
		t.Error("negative start written")
	}
	if err := trace.WriteFlows(&bytes.Buffer{}, []trace.Flow{{Src: 0, Dst: 1, Size: 0}}); err == nil {
		t.Error("zero size written")
	}
}

// clos24 is the GraphCC fabric: 24 hosts (ids 0..23), 4 leaves, 2 spines.
func clos24(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestOfferedLoad: two hosts at 25 Gbps carrying 2 flows of 3125 bytes,
// one of them incast, over 2 us offer 50 % of their links.
func TestOfferedLoad(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	flows := []trace.Flow{{Size: 3125, DPort: trace.DPortBackground}, {Size: 3125, DPort: trace.DPortIncast}}
	load, bytes, incast := OfferedLoad(f, flows, 2*topo.Microsecond)
	if math.Abs(load-0.5) > 1e-12 || bytes != 6250 || incast != 1 {
		t.Errorf("OfferedLoad = %g, %d, %d; want 0.5, 6250, 1", load, bytes, incast)
	}
}
