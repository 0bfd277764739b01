package control

import "math/bits"

// QueuePacketBytes converts queue depths in packets to bytes in
// PortSample.QueueFeature: a full data packet on the wire (1000 B of payload
// and 48 B of headers in the simulator, the same frame size in the testbed).
const QueuePacketBytes = 1048

// DepthBuckets is the number of buckets of a DepthHist.
const DepthBuckets = 24

// DepthHist counts packets by the egress queue depth, in packets, each met
// when it was enqueued. Bucket b holds the depths d with DepthLow(b) <= d <
// DepthLow(b+1): one bucket per depth below 4, then two per power of two
// (4–5, 6–7, 8–11, 12–15, …, 3072–4095); depths of 4096 packets and more
// fall in the last bucket. The buckets are the egress pipeline's histogram
// counters in the testbed (p4src) and the simulator fills the same buckets,
// so both fabrics derive the same queue feature from the same counts.
type DepthHist [DepthBuckets]int64

// DepthBucket returns the bucket of a queue of depth packets (negative
// depths count as 0).
func DepthBucket(depth int64) int {
	if depth < 4 {
		if depth < 0 {
			return 0
		}
		return int(depth)
	}
	n := bits.Len64(uint64(depth)) - 1 // floor(log2(depth)) >= 2
	b := 2*n + int(depth>>(n-1)&1)     // 4, 5 for n = 2; 6, 7 for n = 3; …
	return min(b, DepthBuckets-1)
}

// DepthLow returns the smallest depth, in packets, of bucket b; DepthLow of
// DepthBuckets is the end of the last bucket's nominal range (4096).
func DepthLow(b int) int64 {
	if b < 4 {
		return int64(b)
	}
	n := b / 2 // b = 2n + half
	lo := int64(1) << n
	if b%2 == 1 {
		lo += lo / 2
	}
	return lo
}

// depthMid is the depth that stands for each bucket b in DepthHist.Mean:
// the middle of its range of integers, (DepthLow(b) + DepthLow(b+1) - 1) /
// 2, computed once: Mean runs for every port at every control step.
var depthMid = func() (m [DepthBuckets]float64) {
	for b := range m {
		m[b] = float64(DepthLow(b)+DepthLow(b+1)-1) / 2
	}
	return m
}()

// Add counts a packet that met a queue of depth packets.
func (h *DepthHist) Add(depth int64) { h[DepthBucket(depth)]++ }

// Count returns the packets counted.
func (h *DepthHist) Count() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// Mean returns the mean depth, in packets, with every packet of bucket b
// counted at the middle of the bucket's range of integers, (DepthLow(b) +
// DepthLow(b+1) - 1) / 2, or 0 if h is empty.
func (h *DepthHist) Mean() float64 {
	var n int64
	var sum float64
	for b, c := range h {
		n += c
		sum += float64(c) * depthMid[b]
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Max returns the smallest depth, in packets, of the highest non-empty
// bucket, or 0 if h is empty.
func (h *DepthHist) Max() int64 {
	for b := DepthBuckets - 1; b >= 0; b-- {
		if h[b] != 0 {
			return DepthLow(b)
		}
	}
	return 0
}
