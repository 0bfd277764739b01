package control

import (
	"math/rand/v2"
	"strings"
	"testing"

	"graphcc/topo"
)

func TestIsFlowStart(t *testing.T) {
	tests := []struct {
		seg  int64
		want bool
	}{
		{0, true},
		{1, false},
		{1<<PSNBits - 1, false},
		{1 << PSNBits, true}, // the 24-bit PSN wraps to 0
		{1<<PSNBits + 1, false},
		{3 << PSNBits, true},
	}
	for _, tt := range tests {
		if got := IsFlowStart(tt.seg); got != tt.want {
			t.Errorf("IsFlowStart(%d) = %v, want %v", tt.seg, got, tt.want)
		}
	}
}

func TestDepthHistQuantile(t *testing.T) {
	hist := func(depths ...int64) *DepthHist {
		var h DepthHist
		for _, d := range depths {
			h.Add(d)
		}
		return &h
	}
	tests := []struct {
		name string
		h    *DepthHist
		pct  int64
		want int64
	}{
		{"empty", hist(), 90, 0},
		{"one packet", hist(13), 90, 12},
		{"p0 is the lowest bucket", hist(2, 40, 300), 0, 2},
		{"p100 is the highest bucket", hist(2, 40, 300), 100, 256},
		// ten packets: rank ceil(9) = 9 is the first of the two deep ones
		{"p90 of ten", hist(0, 0, 0, 0, 0, 0, 0, 0, 7, 7), 90, 6},
		// nine packets: rank ceil(8.1) = 9, the one deep packet
		{"p90 rounds the rank up", hist(0, 0, 0, 0, 0, 0, 0, 0, 100), 90, 96},
		{"p50", hist(1, 1, 3, 3), 50, 1},
		{"beyond the last bucket", hist(1 << 20), 90, DepthLow(DepthBuckets - 1)},
	}
	for _, tt := range tests {
		if got := tt.h.Quantile(tt.pct); got != tt.want {
			t.Errorf("%s: Quantile(%d) = %d, want %d", tt.name, tt.pct, got, tt.want)
		}
	}
}

func TestFlowMixFeatures(t *testing.T) {
	sample := func(starts int64, depths ...int64) PortSample {
		s := PortSample{FlowStarts: starts}
		for _, d := range depths {
			s.EnqHist.Add(d)
		}
		return s
	}
	tests := []struct {
		name         string
		s            PortSample
		start        float64
		queued       int64
		queuedFrac   float64
		high         float64 // bytes
		highPackets  int64
		belowBuckets int64 // Below(2)
	}{
		{"idle", sample(0), 0, 0, 0, 0, 0, 0},
		{"every packet starts a flow on an empty queue", sample(4, 0, 1, 0, 1), 1, 0, 0, QueuePacketBytes, 1, 4},
		{"one start in a standing queue", sample(1, 20, 21, 22, 23), 0.25, 4, 1, 16 * QueuePacketBytes, 16, 0},
		{"a burst met by one packet in ten", sample(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64), 0, 1, 0.1, 0, 0, 9},
		{"depth 2 waited", sample(0, 2), 0, 1, 1, 2 * QueuePacketBytes, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if got := s.StartFraction(); got != tt.start {
				t.Errorf("StartFraction = %v, want %v", got, tt.start)
			}
			if got := s.EnqQueued(); got != tt.queued {
				t.Errorf("EnqQueued = %d, want %d", got, tt.queued)
			}
			if got := s.QueuedFraction(); got != tt.queuedFrac {
				t.Errorf("QueuedFraction = %v, want %v", got, tt.queuedFrac)
			}
			if got := s.QueueHigh(); got != tt.high {
				t.Errorf("QueueHigh = %v, want %v", got, tt.high)
			}
			if got := s.EnqHist.Quantile(HighDepthPercent); got != tt.highPackets {
				t.Errorf("Quantile(%d) = %d packets, want %d", HighDepthPercent, got, tt.highPackets)
			}
			if got := s.EnqHist.Below(EmptyDepth + 1); got != tt.belowBuckets {
				t.Errorf("Below(%d) = %d, want %d", EmptyDepth+1, got, tt.belowBuckets)
			}
		})
	}
}

// TestTraceRowColumns checks every column of a row against TraceHeader's
// names, the flow-mix columns included.
func TestTraceRowColumns(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 1, HostRate: 25 * topo.Gbps,
		FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]PortSample, len(f.Ports))
	s := &samples[0]
	s.TxBytes, s.MarkedBytes, s.QueueBytes, s.EnqDepthMax, s.FlowStarts = 5000, 1048, 2096, 3144, 2
	for _, d := range []int64{0, 1, 5, 9} {
		s.EnqHist.Add(d)
	}
	ecn := StaticSettings(f)
	var b strings.Builder
	WriteTraceRows(&b, f, 300*topo.Microsecond, samples, ecn)
	names := strings.Split(TraceHeader, ",")
	row := strings.Split(strings.SplitN(b.String(), "\n", 2)[0], ",")
	if len(row) != len(names) {
		t.Fatalf("row of %d fields for %d columns: %q", len(row), len(names), row)
	}
	p := f.Ports[0]
	want := map[string]string{
		"time_us": "300.0", "port": "0", "src": f.Nodes[p.Src].Name, "dst": f.Nodes[p.Dst].Name,
		"tx_bytes": "5000", "marked_bytes": "1048", "queue_bytes": "2096", "enq_packets": "4",
		"enq_depth_max": "3144", "kmin": "100000", "kmax": "400000", "pmax": "0.2",
		"flow_starts": "2", "enq_queued_packets": "2", "queue_p90_bytes": "8384", // p90 of 4: rank 4, depth 9 in bucket 8–11
	}
	for i, name := range names {
		if w, ok := want[name]; ok && row[i] != w {
			t.Errorf("column %s = %q, want %q", name, row[i], w)
		}
	}
}

// TestFlowMixOnePass: FlowMix gives exactly what the three methods give.
func TestFlowMixOnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		var s PortSample
		for range r.IntN(40) {
			s.EnqHist.Add(int64(r.ExpFloat64() * float64(int64(1)<<r.IntN(12))))
		}
		if trial%7 == 0 {
			s.EnqHist[DepthBuckets-1] += int64(r.IntN(3)) // the open last bucket
		}
		s.FlowStarts = r.Int64N(s.EnqPackets() + 1)
		start, queued, high := s.FlowMix()
		if start != s.StartFraction() || queued != s.QueuedFraction() || high != s.QueueHigh() {
			t.Fatalf("trial %d, %+v: FlowMix %v, %v, %v; methods %v, %v, %v", trial, s, start, queued, high,
				s.StartFraction(), s.QueuedFraction(), s.QueueHigh())
		}
	}
}
