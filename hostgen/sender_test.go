package hostgen

import (
	"math"
	"net/netip"
	"testing"

	"graphcc/dcqcn"
	"graphcc/trace"
)

const line = 25 * dcqcn.Gbps

// full is the pacing gap of a full segment at line rate: 1048 B at 25 Gbps.
var full = serialization(MaxFrameLen, line)

func newTestSender(t *testing.T, window, lossTimeout, slack int64, flows ...Flow) *sender {
	t.Helper()
	p := dcqcn.DefaultParams(line)
	return newSender(senderConfig{params: &p, lineRate: line, window: window, lossTimeout: lossTimeout, slack: slack},
		flows, func(Flow) netip.Addr { return ipB }, func(f Flow) int64 { return 1000 + f.Size })
}

func txFlow1(qp uint32, size, start int64) Flow {
	return Flow{Flow: trace.Flow{Src: 0, Dst: 1, Size: size, Start: start, DPort: 100}, QP: qp, SPort: 10000}
}

// mustSend polls at now and fails unless a segment of qp at off goes out.
func mustSend(t *testing.T, s *sender, now int64, qp uint32, off int64) segment {
	t.Helper()
	sg, ok, wake := s.poll(now)
	if !ok || sg.qp != qp || sg.off != off {
		t.Fatalf("poll at %d: %+v %v (wake %d), want qp %d offset %d", now, sg, ok, wake, qp, off)
	}
	return sg
}

// mustWait polls at now and fails unless nothing goes out until wake.
func mustWait(t *testing.T, s *sender, now, wake int64) {
	t.Helper()
	if sg, ok, w := s.poll(now); ok || w != wake {
		t.Fatalf("poll at %d: %+v %v wake %d, want to wait until %d", now, sg, ok, w, wake)
	}
}

func TestSenderPacing(t *testing.T) {
	s := newTestSender(t, -1, 0, 0, txFlow1(1, 2500, 10*us))
	mustWait(t, s, 0, 10*us)
	sg := mustSend(t, s, 10*us, 1, 0)
	if sg.n != 1000 || sg.psn != 0 || sg.dst != ipB || sg.sport != 10000 {
		t.Errorf("first segment %+v", sg)
	}
	mustWait(t, s, 10*us, 10*us+full)
	mustSend(t, s, 10*us+full, 1, 1000)
	// woken late: the schedule holds (no catch-up slack here: from now)
	late := 10*us + 5*full
	sg = mustSend(t, s, late, 1, 2000)
	if sg.n != 500 || sg.psn != 2 {
		t.Errorf("last segment %+v", sg)
	}
	mustWait(t, s, late, math.MaxInt64) // everything sent, no loss timeout
}

func TestSenderCatchUp(t *testing.T) {
	s := newTestSender(t, -1, 0, 3*full, txFlow1(1, 10_000, 0))
	mustSend(t, s, 0, 1, 0)
	// 10 gaps late: the flow may catch up 3 gaps' worth at once, then paces
	now := 10 * full
	for off := int64(1000); off <= 4000; off += 1000 {
		mustSend(t, s, now, 1, off)
	}
	mustWait(t, s, now, now+full)
}

func TestSenderWindowAndAcks(t *testing.T) {
	s := newTestSender(t, 3000, 0, 0, txFlow1(1, 5000, 0))
	for k := range int64(3) {
		mustSend(t, s, k*full, 1, k*1000)
	}
	mustWait(t, s, 3*full, math.MaxInt64) // window full: only an ACK helps
	s.onAck(4*full, 1, 0, false)
	mustSend(t, s, 4*full, 1, 3000)
	s.onAck(5*full, 1, 3, false) // cumulative: up to 4000
	mustSend(t, s, 5*full, 1, 4000)
	if s.remaining != 1 {
		t.Fatal("done too early")
	}
	s.onAck(7*full, 1, 4, false)
	if s.remaining != 0 || len(s.fcts) != 1 {
		t.Fatalf("not done: remaining %d, %d records", s.remaining, len(s.fcts))
	}
	want := trace.FCT{Src: 0, Dst: 1, SPort: 10000, DPort: 100, Size: 5000, Start: 0, FCT: 7 * full, Standalone: 6000}
	if s.fcts[0] != want {
		t.Errorf("record %+v, want %+v", s.fcts[0], want)
	}
	s.onAck(8*full, 1, 4, false)
	if s.c.stale != 1 {
		t.Errorf("stale %d after an ACK of a finished flow", s.c.stale)
	}
	st := s.flows[0].st
	if !st.Done || st.Sent != 5000 || st.Segments != 5 || st.Retransmitted != 0 || st.ACKs != 3 {
		t.Errorf("%+v", st)
	}
}

func TestSenderGoBackN(t *testing.T) {
	s := newTestSender(t, -1, 0, 0, txFlow1(1, 4000, 0))
	for k := range int64(4) {
		mustSend(t, s, k*full, 1, k*1000)
	}
	s.onAck(4*full, 1, 0, false)
	s.onAck(5*full, 1, 1, true) // NACK: segment 1 expected
	mustSend(t, s, 5*full, 1, 1000)
	mustWait(t, s, 5*full, 6*full)
	mustSend(t, s, 6*full, 1, 2000)
	if st := s.flows[0].st; st.Retransmitted != 2000 || st.NACKs != 1 {
		t.Errorf("%+v", st)
	}
	s.onAck(7*full, 1, 1<<24-1, false) // acknowledges nothing sent: ignored
	if s.c.bogus != 1 {
		t.Errorf("bogus %d", s.c.bogus)
	}
}

func TestSenderLossTimeout(t *testing.T) {
	const rto = 100 * us
	s := newTestSender(t, 2000, rto, 0, txFlow1(1, 4000, 0))
	mustSend(t, s, 0, 1, 0)
	mustSend(t, s, full, 1, 1000)
	mustWait(t, s, full, rto) // window full; the timer runs from the first byte in flight
	s.onAck(50*us, 1, 0, false)
	mustSend(t, s, 50*us, 1, 2000)
	mustWait(t, s, 50*us, 150*us)
	mustSend(t, s, 150*us, 1, 1000) // timed out: back to the last ACK
	if st := s.flows[0].st; st.Timeouts != 1 || st.Retransmitted != 1000 {
		t.Errorf("%+v", st)
	}
}

// TestSenderRoundRobin checks the rotation among active flows and that
// they share the line: each frame holds it for its serialization at line
// rate, and ACKs the host's receiver sends hold it too.
func TestSenderRoundRobin(t *testing.T) {
	s := newTestSender(t, -1, 0, 0, txFlow1(1, 3000, 0), txFlow1(2, 3000, 0), txFlow1(3, 1000, 5*us))
	mustSend(t, s, 0, 2, 0) // round robin starts after position 0
	mustWait(t, s, 0, full) // the line is busy
	mustSend(t, s, full, 1, 0)
	mustSend(t, s, 2*full, 2, 1000)
	s.onControlSent(3*full-10, AckFrameLen)
	ack := serialization(AckFrameLen, line)
	mustWait(t, s, 3*full, 3*full+ack) // after the frame on the line
	mustSend(t, s, 3*full+ack, 1, 1000)
	now := 5 * us
	mustSend(t, s, now, 2, 2000) // the new flow joins the end of the rotation
	mustSend(t, s, now+full, 3, 0)
	mustSend(t, s, now+2*full, 1, 2000)
}

func TestSenderCNP(t *testing.T) {
	s := newTestSender(t, -1, 0, 0, txFlow1(1, 1_000_000, 0))
	mustSend(t, s, 0, 1, 0)
	for now := int64(0); now < 40*us; now += us {
		s.onCNP(now, 1)
	}
	now := 40 * us
	mustSend(t, s, now, 1, 1000)
	st := s.flows[0].st
	if st.CNPs != 40 || st.Rate >= line/4 || st.MinRate != st.Rate {
		t.Errorf("after 40 CNPs: %+v", st)
	}
	// paced at the lower rate
	mustWait(t, s, now, now+serialization(MaxFrameLen, st.Rate))
	s.onCNP(now, 99)
	if s.c.unknownQP != 1 {
		t.Error("CNP of an unknown queue pair not counted")
	}
}

func TestUnwrapPSN(t *testing.T) {
	for _, tc := range []struct {
		psn  uint32
		ref  int64
		want int64
	}{
		{5, 3, 5}, {2, 3, 2}, {0, 1 << 24, 1 << 24}, {1<<24 - 1, 1 << 24, 1<<24 - 1},
		{3, 1<<24 - 2, 1<<24 + 3}, {1<<24 - 1, 0, -1}, {100, 5<<24 + 90, 5<<24 + 100},
	} {
		if got := unwrapPSN(tc.psn, tc.ref); got != tc.want {
			t.Errorf("unwrapPSN(%d, %d) = %d, want %d", tc.psn, tc.ref, got, tc.want)
		}
	}
}

func TestSenderNoAllocs(t *testing.T) {
	s := newTestSender(t, 30_000, us, 0, txFlow1(1, 1<<40, 0))
	var now int64
	if n := testing.AllocsPerRun(1000, func() {
		sg, ok, _ := s.poll(now)
		if ok {
			s.onAck(now, sg.qp, sg.psn, false)
			s.onCNP(now, sg.qp)
		}
		now += full
	}); n != 0 {
		t.Errorf("%v allocations per segment", n)
	}
}

// TestSenderRoundRobinFinished checks how a finished flow leaves the
// round robin: by default as in the simulator's (HPCC's) NIC, when a later
// scan meets it, which compacts the list without moving the position, so
// that the rotation shifts; with leaveAtOnce at once, the position staying
// on the flow served last. Flow 1 finishes while flow 3 was served last and
// every other flow is held by its window; the next segment is then flow 3's
// by default and flow 2's with leaveAtOnce.
func TestSenderRoundRobinFinished(t *testing.T) {
	for _, tc := range []struct {
		leaveAtOnce bool
		next        uint32 // the flow served first after flow 1 finished
		afterScan   int    // flows in the list after the scan that meets flow 1
	}{
		{false, 3, 2},
		{true, 2, 2},
	} {
		p := dcqcn.DefaultParams(line)
		s := newSender(senderConfig{params: &p, lineRate: line, window: 1000, leaveAtOnce: tc.leaveAtOnce},
			[]Flow{txFlow1(1, 1000, 0), txFlow1(2, 3000, 0), txFlow1(3, 3000, 0)},
			func(Flow) netip.Addr { return ipB }, func(f Flow) int64 { return 1000 + f.Size })
		mustSend(t, s, 0, 2, 0)
		mustSend(t, s, full, 3, 0)
		mustSend(t, s, 2*full, 1, 0) // flow 1 has sent everything
		s.onAck(2*full+1, 2, 0, false)
		mustSend(t, s, 3*full, 2, 1000)
		s.onAck(3*full+1, 3, 0, false)
		mustSend(t, s, 4*full, 3, 1000) // flow 3 served last
		s.onAck(4*full+1, 1, 0, false)  // flow 1 finishes
		if len(s.fcts) != 1 || s.fcts[0].Size != 1000 {
			t.Fatalf("leaveAtOnce %v: FCTs %+v, want flow 1's", tc.leaveAtOnce, s.fcts)
		}
		mustWait(t, s, 5*full, math.MaxInt64) // windows full: the scan meets flow 1
		if len(s.active) != tc.afterScan {
			t.Errorf("leaveAtOnce %v: %d flows in the round robin after the scan, want %d", tc.leaveAtOnce, len(s.active), tc.afterScan)
		}
		s.onAck(5*full+1, 2, 1, false)
		s.onAck(5*full+2, 3, 1, false)
		other := uint32(5) - tc.next
		mustSend(t, s, 6*full, tc.next, 2000)
		mustSend(t, s, 7*full, other, 2000)
		if s.c.stale != 0 {
			t.Errorf("leaveAtOnce %v: %d stale ACKs", tc.leaveAtOnce, s.c.stale)
		}
	}
}
