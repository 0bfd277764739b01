package testfabric

import (
	"math"
	"testing"

	"graphcc/control"
	"graphcc/topo"
	"graphcc/trace"
)

// SmallClos is 2 leaves, 1 spine, 2 hosts per leaf: 6 links, 12 ports;
// ports 0..7 are host links at 25 Gbps, 8..11 leaf-spine at 100 Gbps.
func SmallClos(tb testing.TB) *topo.Fabric {
	tb.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 1, 2
	f, err := topo.Clos(c)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// FailedClos returns the GraphCC fabric (Clos) and the same fabric without
// the link leaf0-spine0.
func FailedClos(tb testing.TB) (base, failed *topo.Fabric) {
	tb.Helper()
	base = Clos(tb)
	failed, err := base.FailLinks("leaf0-spine0")
	if err != nil {
		tb.Fatal(err)
	}
	return base, failed
}

// SmallFlows is a few flows on SmallClos: two into h2 at once (an incast
// at leaf1's port to h2), traffic the other way and within a leaf.
func SmallFlows(tb testing.TB, f *topo.Fabric) []trace.Flow {
	t0 := 2 * topo.Second
	fl := func(src, dst string, size, at int64) trace.Flow {
		return trace.Flow{Src: Node(tb, f, src), Dst: Node(tb, f, dst), PG: trace.DefaultPG, DPort: trace.DPortBackground, Size: size, Start: t0 + at}
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

// SampleInterval is the control interval Sample's counters are of.
const SampleInterval = 100 * topo.Microsecond

// Sample returns a PortSample of one SampleInterval with utilization u,
// marking rate m and mean enqueue depth q bytes on a port of the given
// rate.
func Sample(u, m float64, q int64, rate int64) control.PortSample {
	s := control.PortSample{TxBytes: bytesAt(u, rate), MarkedBytes: bytesAt(m, rate)}
	if q > 0 {
		s.EnqHist = histOf(q)
		s.EnqDepthMax = q
	}
	return s
}

// bytesAt returns the bytes that are fraction x of a SampleInterval at rate.
func bytesAt(x float64, rate int64) int64 {
	return int64(math.Round(x * float64(rate) * float64(SampleInterval) / 8 / float64(topo.Second)))
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
