package control

// This file is the flow-mix telemetry: what a switch can count, besides the
// bytes and the queue, that tells a port carrying a few large flows from
// one carrying many small ones. Each quantity is defined once here; the
// simulator counts it per packet (replay), the testbed reads it from the P4
// program's counters (p4src, controller/p4rt), and both derive the same
// figures from the same counts.

// PSNBits is the width of the packet sequence number (PSN) of a RoCEv2
// Base Transport Header.
const PSNBits = 24

// IsFlowStart reports whether the data packet carrying segment seg of its
// queue pair is a flow start: whether its PSN, seg mod 2^PSNBits, is 0.
// Segments are numbered from 0 in flow order, one per packet of up to 1000
// payload bytes: hostgen's senders number a queue pair's segments from PSN
// 0 (one queue pair per flow), and the simulator's segment is a data
// packet's first payload byte divided by its payload size
// (replay.Params.Payload). So a flow's first packet is a start, and a flow
// of more than 2^24 segments (16.7 GB) makes one more start per 2^24
// segments in both fabrics.
//
// A switch cannot tell a retransmission from a first transmission: a
// segment 0 sent again (go-back-N after a NACK, when the first one was
// lost) counts as another start, in both fabrics. With PFC on nothing is
// lost, so the simulator never does that; the testbed's BMv2 can drop a
// packet that finds its egress queue full.
func IsFlowStart(seg int64) bool { return seg&(1<<PSNBits-1) == 0 }

// EmptyDepth is the deepest queue, in packets, that counts as (almost)
// empty in PortSample.QueuedFraction: a packet that met at most one packet
// queued ahead of it (the one being sent) did not wait behind a queue.
// Depths below 4 have a DepthHist bucket each, so the count is exact.
const EmptyDepth = 1

// HighDepthPercent is the percentile of the enqueue depth that
// PortSample.QueueHigh reports.
const HighDepthPercent = 90

// Below returns the packets counted in the buckets below bucket b, those
// that met a queue of fewer than DepthLow(b) packets.
func (h *DepthHist) Below(b int) int64 {
	var n int64
	for _, c := range h[:b] {
		n += c
	}
	return n
}

// Quantile returns the pct-th percentile of the depths counted, in packets,
// as the smallest depth (DepthLow) of its bucket: the bucket that holds the
// packet of rank ceil(n*pct/100) (at least 1) in depth order, for n
// packets. It returns 0 if h is empty. pct must be in [0, 100].
func (h *DepthHist) Quantile(pct int64) int64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := max((n*pct+99)/100, 1)
	var seen int64
	for b, c := range h {
		if seen += c; seen >= rank {
			return DepthLow(b)
		}
	}
	return DepthLow(DepthBuckets - 1) // not reached: rank <= n
}

// StartFraction returns the flow starts per data packet enqueued in the
// interval, FlowStarts / EnqPackets, in [0, 1], or 0 if no data packet
// arrived. Its inverse is the mean size, in packets, of the flows that
// started there if every flow ran within the interval: close to 1 where
// single-packet RPCs dominate, 0.001 and below under megabyte flows. (The
// testbed reads the two counters one after the other, so a packet passing
// between the reads can put it a little above 1; the network input clamps
// it.)
func (s *PortSample) StartFraction() float64 {
	n := s.EnqPackets()
	if n == 0 {
		return 0
	}
	return float64(s.FlowStarts) / float64(n)
}

// EnqQueued returns the data packets enqueued in the interval that met more
// than EmptyDepth packets queued ahead of them: those that waited.
func (s *PortSample) EnqQueued() int64 {
	return s.EnqHist.Count() - s.EnqHist.Below(EmptyDepth+1)
}

// QueuedFraction returns the fraction of the data packets enqueued in the
// interval that met a queue of more than EmptyDepth packets, in [0, 1], or 0
// if no data packet arrived. It is the complement of the fraction that met
// an (almost) empty queue, taken this way round so that an idle port gives
// 0 like every other feature. Beside the mean depth (QueueFeature) it tells
// a standing queue that every packet meets (near 1) from bursts that a few
// packets meet (near 0 with the same mean).
func (s *PortSample) QueuedFraction() float64 {
	n := s.EnqPackets()
	if n == 0 {
		return 0
	}
	return float64(s.EnqQueued()) / float64(n)
}

// QueueHigh returns the HighDepthPercent-th percentile of the depth data
// packets met at enqueue in the interval (DepthHist.Quantile), in bytes at
// QueuePacketBytes per packet, or 0 if no data packet arrived: how deep the
// queue got for the unlucky tenth, where QueueFeature is the mean.
func (s *PortSample) QueueHigh() float64 {
	return float64(s.EnqHist.Quantile(HighDepthPercent) * QueuePacketBytes)
}

// FlowMix returns StartFraction, QueuedFraction and QueueHigh of s, exactly
// as those methods do, from one pass over the histogram: the control step
// computes them for every port.
func (s *PortSample) FlowMix() (start, queued, high float64) {
	h := &s.EnqHist
	var n, below int64
	for b, c := range h {
		n += c
		if b <= EmptyDepth {
			below += c
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	rank := max((n*HighDepthPercent+99)/100, 1)
	var seen int64
	b := 0
	for ; b < DepthBuckets-1; b++ {
		if seen += h[b]; seen >= rank {
			break
		}
	}
	return float64(s.FlowStarts) / float64(n), float64(n-below) / float64(n), float64(DepthLow(b) * QueuePacketBytes)
}

// EmptyDepth must have its own buckets: Below(EmptyDepth+1) is then exactly
// the packets that met at most EmptyDepth packets.
var _ = [1]struct{}{}[EmptyDepth/4]
