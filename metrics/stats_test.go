package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"graphcc/internal/fileio"
	"graphcc/topo"
	"graphcc/trace"
)

// recsWithSlowdowns makes records of the given slowdowns (standalone 1000 ps).
func recsWithSlowdowns(s ...float64) []trace.FCT {
	recs := make([]trace.FCT, len(s))
	for i, v := range s {
		recs[i] = trace.FCT{Size: 1000, FCT: int64(v * 1000), Standalone: 1000, DPort: trace.DPortBackground}
	}
	return recs
}

func TestStatsSlowdownPercentiles(t *testing.T) {
	// 1..100 shuffled: HPCC's a[int(n*p)] gives 51, 96 and 100.
	vals := make([]float64, 100)
	for i := range vals {
		vals[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
	for _, tc := range []struct {
		name string
		in   []float64
		want Stats
	}{
		{"1..100", vals, Stats{Count: 100, Mean: 50.5, P50: 51, P95: 96, P99: 100}},
		{"one", []float64{2}, Stats{Count: 1, Mean: 2, P50: 2, P95: 2, P99: 2}},
		// n = 20: int(20*0.95) = 19 (float 0.95*20 rounds to 19.0), int(19.8) = 19.
		{"twenty", []float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			Stats{Count: 20, Mean: 10.5, P50: 11, P95: 20, P99: 20}},
		// n = 3: indexes 1, 2, 2.
		{"three", []float64{3, 1, 2}, Stats{Count: 3, Mean: 2, P50: 2, P95: 3, P99: 3}},
		// Slowdowns below 1 are clamped to 1.
		{"clamped", []float64{0.5, 0.25, 4}, Stats{Count: 3, Mean: 2, P50: 1, P95: 4, P99: 4}},
		{"empty", nil, Stats{}},
	} {
		if got := SlowdownStats(recsWithSlowdowns(tc.in...), nil); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	recs := recsWithSlowdowns(1, 2, 3, 4)
	recs[0].DPort, recs[3].DPort = trace.DPortIncast, trace.DPortIncast
	if got := SlowdownStats(recs, func(r trace.FCT) bool { return r.DPort == trace.DPortIncast }); got != (Stats{Count: 2, Mean: 2.5, P50: 4, P95: 4, P99: 4}) {
		t.Errorf("incast only: %+v", got)
	}
}

func TestStatsSlowdownBySize(t *testing.T) {
	var recs []trace.FCT
	for _, size := range []int64{1, 10_000, 10_001, 100_000, 500_000, 1_000_000, 1_000_001, 30_000_000} {
		recs = append(recs, trace.FCT{Size: size, FCT: 2000, Standalone: 1000})
	}
	got := SlowdownBySize(recs, DefaultBins())
	counts := []int{2, 2, 2, 2}
	for i, s := range got {
		if s.Count != counts[i] || s.MaxBytes != DefaultBins()[i] || s.P50 != 2 {
			t.Errorf("bin %d: %+v", i, s)
		}
	}
	// Without an open last bin, larger flows are left out.
	if got := SlowdownBySize(recs, []int64{10_000}); len(got) != 1 || got[0].Count != 2 {
		t.Errorf("one bin: %+v", got)
	}
}

func TestStatsMeanThroughputGbps(t *testing.T) {
	recs := []trace.FCT{
		{Size: 1000, FCT: topo.Microsecond},       // 8 Gbps
		{Size: 25_000, FCT: 8 * topo.Microsecond}, // 25 Gbps
		{Size: 5, FCT: 0},                         // left out
	}
	if got := MeanThroughputGbps(recs); math.Abs(got-16.5) > 1e-12 {
		t.Errorf("MeanThroughputGbps = %v, want 16.5", got)
	}
	if got := MeanThroughputGbps(nil); got != 0 {
		t.Errorf("empty: %v", got)
	}
}

func sampleSummary() Summary {
	recs := []trace.FCT{
		{Size: 5000, FCT: 3000, Standalone: 1000, DPort: trace.DPortBackground},
		{Size: 64000, FCT: 10_000, Standalone: 1000, DPort: trace.DPortIncast},
		{Size: 64000, FCT: 20_000, Standalone: 1000, DPort: trace.DPortIncast},
		{Size: 2_000_000, FCT: 1000, Standalone: 1000, DPort: 7},
	}
	s := Summarize(5, recs, nil)
	s.QueueBytesMean, s.QueueBytesP99 = 1234.5, 99999
	s.QueueFeatureMean, s.QueueFeatureP99 = 800, 4000
	s.PFCPauses, s.ECNMarkedPackets, s.Drops, s.Events = 3, 44, 0, 123456
	s.SimSeconds, s.WallSeconds, s.PeakRSSBytes = 0.027, 1.5, 64<<20
	return s
}

func TestSummarize(t *testing.T) {
	s := sampleSummary()
	if s.Flows != 5 || s.Completed != 4 {
		t.Errorf("flows %d completed %d", s.Flows, s.Completed)
	}
	if s.Slowdown.Count != 4 || s.Slowdown.Mean != 8.5 || s.Slowdown.P50 != 10 {
		t.Errorf("overall %+v", s.Slowdown)
	}
	if s.SlowdownIncast != (Stats{Count: 2, Mean: 15, P50: 20, P95: 20, P99: 20}) {
		t.Errorf("incast %+v", s.SlowdownIncast)
	}
	// Background is every non-incast flow, whatever its dport.
	if s.SlowdownBackground.Count != 2 || s.SlowdownBackground.Mean != 2 {
		t.Errorf("background %+v", s.SlowdownBackground)
	}
	if len(s.SlowdownBySize) != 4 || s.SlowdownBySize[0].Count != 1 || s.SlowdownBySize[1].Count != 2 ||
		s.SlowdownBySize[2].Count != 0 || s.SlowdownBySize[3].Count != 1 {
		t.Errorf("by size %+v", s.SlowdownBySize)
	}
}

func TestSummaryWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := sampleSummary().WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"slowdown", "p99", "all", "<=10KB", "10KB-100KB", "100KB-1MB", ">1MB",
		"incast", "background", "5 (4 completed)", "Gbps", "pfc pauses", "44", "123456", "0.027 s", "64.0 MiB",
		// queues in KB, the instantaneous one and the feature
		"queue (KB = 1000 B)   mean     p99", "instantaneous (simulator)  1.234  99.999", "feature (policies' input)  0.800   4.000",
		// the empty bin
		"100KB-1MB      0       –       –       –       –\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
	b.Reset()
	if err := sampleSummary().WriteTableOf(&b, Testbed); err != nil {
		t.Fatal(err)
	}
	if f := b.String(); strings.Contains(f, "instantaneous") || !strings.Contains(f, "feature (policies' input)  0.800  4.000") ||
		strings.Contains(f, "pfc pauses") || strings.Contains(f, "drops") || strings.Contains(f, "events") || !strings.Contains(f, "fabric time") {
		t.Errorf("the testbed's table shows what it does not measure:\n%s", f)
	}
	if got := binLabels([]Stats{{MaxBytes: 1500}, {MaxBytes: 64000}, {MaxBytes: 2_000_000_000}}); strings.Join(got, " ") != "<=1500B 1500B-64KB 64KB-2GB" {
		t.Errorf("binLabels = %v", got)
	}
}

func TestSummaryWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := fileio.WriteJSON(&b, sampleSummary()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasSuffix(out, "}\n") || !strings.Contains(out, "\n  \"flows\": 5,") {
		t.Errorf("not indented JSON with a newline:\n%s", out)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"flows", "completed", "slowdown", "slowdown_by_size", "slowdown_incast", "slowdown_background",
		"throughput_gbps_mean", "queue_bytes_mean", "queue_bytes_p99", "queue_seconds", "queue_feature_bytes_mean",
		"queue_feature_bytes_p99", "pfc_pauses", "ecn_marked_packets", "drops",
		"events", "sim_seconds", "wall_seconds", "peak_rss_bytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if len(m) != 19 {
		t.Errorf("JSON has %d keys, want 19", len(m))
	}
	if _, ok := m["slowdown"].(map[string]any)["max_bytes"]; ok {
		t.Error("overall slowdown has max_bytes")
	}
	if !strings.Contains(out, `"max_bytes": null`) || strings.Contains(out, "9223372036854775807") {
		t.Errorf("the open bin's bound is not null:\n%s", out)
	}
	bins := m["slowdown_by_size"].([]any)
	for _, k := range []string{"max_bytes", "count", "mean", "p50", "p95", "p99"} {
		if _, ok := bins[0].(map[string]any)[k]; !ok {
			t.Errorf("bin lacks %q", k)
		}
	}
	var back Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.SlowdownBySize[3].MaxBytes != math.MaxInt64 || back.Events != 123456 {
		t.Errorf("decoded %+v", back)
	}
}

func TestStatsPeakRSS(t *testing.T) {
	if got := parseVmHWM([]byte("Name:\tx\nVmPeak:\t  2000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n")); got != 1234*1024 {
		t.Errorf("parseVmHWM = %d", got)
	}
	for _, bad := range []string{"", "VmHWM: x kB\n", "VmHWM: 12 MB\n", "VmHWM:\n"} {
		if got := parseVmHWM([]byte(bad)); got != 0 {
			t.Errorf("parseVmHWM(%q) = %d", bad, got)
		}
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if got := PeakRSS(); got < 1<<20 {
		t.Errorf("PeakRSS = %d", got)
	}
}
