package hostgen

import (
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

const us = topo.Microsecond

func rxFlows(sizes ...int64) []Flow {
	var fl []Flow
	for i, s := range sizes {
		fl = append(fl, Flow{Flow: trace.Flow{Src: 0, Dst: 1, Size: s}, QP: uint32(10 + i), SPort: uint16(10000 + i)})
	}
	return fl
}

// seg is the data frame of queue pair qp at offset off of a size-byte flow.
func seg(qp uint32, size, off int64, ce bool) *Frame {
	f := dataFrame(qp, off, int(min(SegmentPayload, size-off)))
	if ce {
		f.ECN = ECNCE
	}
	return &f
}

func TestReceiver(t *testing.T) {
	type step struct {
		at   int64
		off  int64
		ce   bool
		want rxReply
	}
	const size = 3500
	ack := func(psn uint32) rxReply { return rxReply{ack: true, psn: psn} }
	nack := func(psn uint32) rxReply { return rxReply{nack: true, psn: psn} }
	for _, tc := range []struct {
		name      string
		steps     []step
		delivered int64
		done      bool
	}{
		{"in order", []step{{0, 0, false, ack(0)}, {1, 1000, false, ack(1)}, {2, 2000, false, ack(2)}, {3, 3000, false, ack(3)}}, size, true},
		{"duplicate re-acknowledges", []step{{0, 0, false, ack(0)}, {1, 1000, false, ack(1)}, {2, 0, false, ack(1)}, {3, 1000, false, ack(1)}}, 2000, false},
		{"gap: one NACK per interval", []step{
			{0, 0, false, ack(0)},
			{1 * us, 2000, false, nack(1)},
			{2 * us, 3000, false, rxReply{}},
			{500 * us, 2000, false, rxReply{}},
			{501 * us, 3000, false, nack(1)}, // the interval has passed
			{502 * us, 1000, false, ack(1)},
			{503 * us, 3000, false, nack(2)}, // a new expected offset: at once
			{504 * us, 2000, false, ack(2)},
			{505 * us, 3000, false, ack(3)},
		}, size, true},
		{"CE: one CNP per interval", []step{
			{0, 0, true, rxReply{ack: true, psn: 0, cnp: true}},
			{us / 2, 1000, true, ack(1)},
			{us, 2000, true, rxReply{ack: true, psn: 2, cnp: true}},
			{us + 1, 0, true, ack(2)},
			{3 * us, 3000, true, rxReply{ack: true, psn: 3, cnp: true}},
		}, size, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReceiver(500*us, us, rxFlows(size))
			for i, s := range tc.steps {
				if got := r.onData(s.at, seg(10, size, s.off, s.ce)); got != s.want {
					t.Errorf("step %d (offset %d at %d ps): %+v, want %+v", i, s.off, s.at, got, s.want)
				}
			}
			st := r.flows[0].st
			if st.Delivered != tc.delivered || st.Done != tc.done || (r.remaining == 0) != tc.done {
				t.Errorf("delivered %d done %v remaining %d, want %d %v", st.Delivered, st.Done, r.remaining, tc.delivered, tc.done)
			}
		})
	}
}

func TestReceiverRejects(t *testing.T) {
	r := newReceiver(500*us, us, rxFlows(3500))
	bad := []*Frame{
		func() *Frame { f := seg(10, 3500, 0, false); f.Offset = 500; return f }(),  // not on a boundary
		func() *Frame { f := seg(10, 3500, 0, false); f.Len = 999; return f }(),     // short
		func() *Frame { f := seg(10, 3500, 3000, false); f.Len = 1000; return f }(), // past the end
		func() *Frame { f := seg(10, 3500, 1000, false); f.PSN = 7; return f }(),    // wrong PSN
		func() *Frame { f := seg(10, 3500, 0, false); f.Offset = 4000; return f }(), // beyond the flow
	}
	for i, f := range bad {
		if got := r.onData(0, f); got != (rxReply{}) {
			t.Errorf("bad segment %d answered %+v", i, got)
		}
	}
	if got := r.onData(0, seg(99, 3500, 0, false)); got != (rxReply{}) || r.unknownQP != 1 {
		t.Errorf("unknown queue pair answered %+v", got)
	}
	if st := r.flows[0].st; st.Invalid != int64(len(bad)) || st.Delivered != 0 {
		t.Errorf("%+v", st)
	}
}

func TestReceiverNoAllocs(t *testing.T) {
	const size = 1 << 40
	r := newReceiver(500*us, us, rxFlows(size))
	var off, now int64
	if n := testing.AllocsPerRun(1000, func() {
		r.onData(now, seg(10, size, off, true))
		off += SegmentPayload
		now += 100
	}); n != 0 {
		t.Errorf("%v allocations per segment", n)
	}
}
