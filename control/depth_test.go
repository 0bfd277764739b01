package control

import (
	"math"
	"testing"
)

func TestDepthBucketEdges(t *testing.T) {
	want := []int64{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096}
	for b, lo := range want {
		if got := DepthLow(b); got != lo {
			t.Errorf("DepthLow(%d) = %d, want %d", b, got, lo)
		}
	}
	// Every depth falls in the bucket whose range holds it.
	for d := int64(0); d < 5000; d++ {
		b := DepthBucket(d)
		if b == DepthBuckets-1 {
			if d < DepthLow(b) {
				t.Fatalf("depth %d in the last bucket, which starts at %d", d, DepthLow(b))
			}
			continue
		}
		if d < DepthLow(b) || d >= DepthLow(b+1) {
			t.Fatalf("depth %d in bucket %d = [%d, %d)", d, b, DepthLow(b), DepthLow(b+1))
		}
	}
	for _, d := range []int64{-5, math.MaxInt64} {
		if b := DepthBucket(d); b != 0 && b != DepthBuckets-1 {
			t.Errorf("DepthBucket(%d) = %d", d, b)
		}
	}
	if DepthBucket(-1) != 0 || DepthBucket(1<<40) != DepthBuckets-1 {
		t.Error("out-of-range depths not clamped to the end buckets")
	}
}

func TestDepthHist(t *testing.T) {
	var h DepthHist
	if h.Mean() != 0 || h.Max() != 0 || h.Count() != 0 {
		t.Fatalf("empty histogram: mean %v max %v count %d", h.Mean(), h.Max(), h.Count())
	}
	for _, d := range []int64{0, 2, 5, 13} { // buckets 0, 2, 4 (4–5), 7 (12–15)
		h.Add(d)
	}
	if h.Count() != 4 {
		t.Errorf("count %d, want 4", h.Count())
	}
	if want := (0 + 2 + 4.5 + 13.5) / 4; h.Mean() != want {
		t.Errorf("mean %v, want %v", h.Mean(), want)
	}
	if h.Max() != 12 {
		t.Errorf("max %d, want 12", h.Max())
	}
	s := PortSample{EnqHist: h}
	if s.EnqPackets() != 4 || s.QueueFeature() != h.Mean()*QueuePacketBytes {
		t.Errorf("sample: %d packets, queue feature %v", s.EnqPackets(), s.QueueFeature())
	}
}

// TestDepthMid checks the depth Mean counts each bucket's packets at: the
// middle of the bucket's range of integers.
func TestDepthMid(t *testing.T) {
	for b := range DepthBuckets {
		var h DepthHist
		h[b] = 3
		if want := float64(DepthLow(b)+DepthLow(b+1)-1) / 2; h.Mean() != want {
			t.Errorf("Mean of bucket %d alone = %v, want %v", b, h.Mean(), want)
		}
	}
}
