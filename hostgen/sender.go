package hostgen

import (
	"cmp"
	"math"
	"net/netip"
	"slices"

	"graphcc/dcqcn"
	"graphcc/topo"
	"graphcc/trace"
)

// This file is the sending half of a host's NIC as pure state, driven with
// fabric times: one queue pair per flow, paced by its own dcqcn.Sender and
// limited by a fixed window, round robin among active flows, cumulative
// ACKs, go-back-N on a NACK or a loss timeout, the simulator's rules
// (replay/host.go) wherever they apply.

// SentFlow is the sender's account of one flow.
type SentFlow struct {
	QP       uint32
	Src, Dst topo.NodeID
	Size     int64 // bytes
	// Segments counts the data segments sent and Sent their flow bytes,
	// Retransmitted those sent again after a go-back-N.
	Segments, Sent, Retransmitted int64
	ACKs, NACKs, CNPs             int64 // received
	Timeouts                      int64 // loss timeouts that went back to the last ACK
	// MinRate is the lowest DCQCN rate a segment was paced at and Rate the
	// rate now (or at completion), bps of fabric time.
	MinRate, Rate int64
	Done          bool
	FCT           int64 // fabric ps, once Done
}

// segment is one data segment the sender has decided to send.
type segment struct {
	qp    uint32
	dst   netip.Addr
	sport uint16
	off   int64
	n     int
	psn   uint32
}

// txFlow is one queue pair.
type txFlow struct {
	Flow
	dst        netip.Addr
	standalone int64
	cc         dcqcn.Sender

	una       int64 // bytes acknowledged
	nxt       int64 // next byte to send
	hi        int64 // end of the furthest segment sent
	nextAvail int64 // pacing: earliest time of the next segment
	progress  int64 // last time una advanced or data went out with none in flight
	active    bool
	st        SentFlow
}

// senderConfig are the sender's constants, fabric units.
type senderConfig struct {
	params      *dcqcn.Params // shared by every flow; must outlive the sender
	lineRate    int64         // bps
	window      int64         // inflight payload bytes; <= 0: none
	lossTimeout int64         // ps; <= 0: none
	slack       int64         // ps a flow behind its pacing schedule may catch up
	quantum     int64         // ps a segment may go ahead of its pacing time
	// leaveAtOnce drops a finished flow from the round robin when it
	// finishes, the position staying on the flow served last (the
	// simulator without replay.Params.HPCCRoundRobin); by default it stays
	// until a later scan meets it, as in the simulator's default.
	leaveAtOnce bool
}

// senderCounters are the sender's totals beyond its flows'.
type senderCounters struct {
	unknownQP   int64 // ACKs, NACKs or CNPs of no flow of this host
	stale       int64 // of a flow not active (finished or not started)
	bogus       int64 // acknowledging bytes never sent
	maxStartLag int64 // ps: how late the latest flow start was
}

// sender is the state of every flow one host sends.
type sender struct {
	cfg       senderConfig
	flows     []txFlow // by start time, then queue pair
	byQP      map[uint32]int32
	next      int     // index of the next flow to start
	active    []int32 // flows started and not yet removed from the round robin
	rr        int     // round-robin position in active
	remaining int     // flows not finished
	lineFree  int64   // the NIC has serialized every frame so far by this time
	fcts      []trace.FCT
	c         senderCounters
}

// newSender returns the sender of flows; dst gives each flow's destination
// address and standalone its standalone FCT.
func newSender(cfg senderConfig, flows []Flow, dst func(Flow) netip.Addr, standalone func(Flow) int64) *sender {
	s := &sender{
		cfg:       cfg,
		flows:     make([]txFlow, len(flows)),
		byQP:      make(map[uint32]int32, len(flows)),
		active:    make([]int32, 0, len(flows)),
		remaining: len(flows),
		fcts:      make([]trace.FCT, 0, len(flows)),
	}
	for i, f := range flows {
		s.flows[i] = txFlow{Flow: f, dst: dst(f), standalone: standalone(f)}
	}
	slices.SortStableFunc(s.flows, func(a, b txFlow) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.QP, b.QP))
	})
	for i := range s.flows {
		fl := &s.flows[i]
		fl.st = SentFlow{QP: fl.QP, Src: fl.Src, Dst: fl.Dst, Size: fl.Size, MinRate: cfg.lineRate, Rate: cfg.lineRate}
		s.byQP[fl.QP] = int32(i)
	}
	return s
}

// poll starts the flows due by now, applies loss timeouts, and returns the
// next segment to send now, if any, with the sender's state advanced as if
// it had been sent; otherwise the time it next has something to do
// (math.MaxInt64: nothing until an ACK or a CNP arrives). now must not
// decrease from call to call, nor below the times given to onAck and onCNP.
func (s *sender) poll(now int64) (segment, bool, int64) {
	for s.next < len(s.flows) && s.flows[s.next].Start <= now {
		s.start(int32(s.next), now)
		s.next++
	}
	if s.cfg.lossTimeout > 0 {
		for _, i := range s.active {
			fl := &s.flows[i]
			if fl.nxt > fl.una && now >= fl.progress+s.cfg.lossTimeout {
				fl.nxt = fl.una
				fl.progress = now
				fl.st.Timeouts++
			}
		}
	}
	early := now + s.cfg.quantum
	if early < s.lineFree {
		return segment{}, false, s.wake(max(s.lineFree, s.earliest()))
	}
	// Round robin from the flow after the one served last. By default
	// finished flows are still in the list, as in the simulator's (and
	// HPCC's) NIC: those met before the chosen one are removed now and the
	// list compacted without moving rr.
	n := len(s.active)
	res, fin := -1, -1
	for k := 1; k <= n; k++ {
		idx := (s.rr + k) % n
		fl := &s.flows[s.active[idx]]
		if s.canSend(fl) {
			if fl.nextAvail > early {
				continue
			}
			res = idx
			break
		}
		if fl.st.Done && (fin < 0 || idx < fin) {
			fin = idx
		}
	}
	if fin >= 0 {
		s.active, res = dcqcn.CompactQueuePairs(s.active, fin, res, func(i int32) bool { return s.flows[i].st.Done })
	}
	if res >= 0 {
		s.rr = res
		return s.send(&s.flows[s.active[res]], now), true, 0
	}
	return segment{}, false, s.wake(s.earliest())
}

// start activates flow i at now.
func (s *sender) start(i int32, now int64) {
	fl := &s.flows[i]
	fl.cc.Reset(s.cfg.params, s.cfg.lineRate)
	fl.active = true
	fl.nextAvail = fl.Start
	fl.progress = now
	s.active = append(s.active, i)
	s.c.maxStartLag = max(s.c.maxStartLag, now-fl.Start)
}

func (s *sender) winBound(fl *txFlow) bool {
	return s.cfg.window > 0 && fl.nxt-fl.una >= s.cfg.window
}

// send takes the next segment of fl at now and paces what follows, as the
// simulator's NIC: the flow's next segment may go when this one's frame
// would have left at the flow's DCQCN rate, and any next frame when it
// would have left at line rate. A flow (or the line) the host woke up late
// for keeps its schedule, catching up at most slack, so the mean rates hold
// whatever the wake-up latency. A segment may also go up to quantum before
// its pacing time (poll's choice): a wake-up of the send loop, at the first
// segment's pacing time, sends every segment due within the quantum, and the
// schedule of what follows is kept.
func (s *sender) send(fl *txFlow, now int64) segment {
	fl.cc.Advance(now)
	rate := fl.cc.Rate()
	n := int(min(SegmentPayload, fl.Size-fl.nxt))
	seg := segment{qp: fl.QP, dst: fl.dst, sport: fl.SPort, off: fl.nxt, n: n, psn: psnOf(fl.nxt)}
	if fl.nxt == fl.una {
		fl.progress = now // the loss timer runs from the first byte in flight
	}
	if fl.nxt < fl.hi {
		fl.st.Retransmitted += int64(n)
	}
	fl.st.Segments++
	fl.st.Sent += int64(n)
	fl.nxt += int64(n)
	fl.hi = max(fl.hi, fl.nxt)
	fl.st.MinRate = min(fl.st.MinRate, rate)
	fl.st.Rate = rate
	size := int64(DataFrameLen(n))
	fl.nextAvail = max(fl.nextAvail, now-s.cfg.slack) + serialization(size, rate)
	s.lineFree = max(s.lineFree, now-s.cfg.slack) + serialization(size, s.cfg.lineRate)
	return seg
}

// onControlSent accounts for an ACK, NACK or CNP of size bytes that the
// host's receiver sends at now: it goes first (the simulator's NIC serves
// its ACK queue first) and holds the line for its serialization.
func (s *sender) onControlSent(now int64, size int) {
	s.lineFree = max(s.lineFree, now) + serialization(int64(size), s.cfg.lineRate)
}

// earliest returns the pacing time of the first flow that could send but
// for its pacing, or math.MaxInt64.
func (s *sender) earliest() int64 {
	w := int64(math.MaxInt64)
	for _, i := range s.active {
		if fl := &s.flows[i]; s.canSend(fl) {
			w = min(w, fl.nextAvail)
		}
	}
	return w
}

// wake returns the next time poll has something to do: the pacing time
// send of a segment, a flow start or a loss timeout. A wake-up at a pacing
// time sends that segment and every other due within the quantum.
func (s *sender) wake(send int64) int64 {
	w := send
	if s.next < len(s.flows) {
		w = min(w, s.flows[s.next].Start)
	}
	if s.cfg.lossTimeout > 0 {
		for _, i := range s.active {
			if fl := &s.flows[i]; fl.nxt > fl.una {
				w = min(w, fl.progress+s.cfg.lossTimeout)
			}
		}
	}
	return w
}

// onAck applies an ACK (last segment received in order: psn) or a NACK
// (segment expected: psn) of queue pair qp arriving at now. It reports
// whether the flow may now send where it could not before (it was held by
// its window or had sent everything), so that poll would answer earlier than
// it last did.
func (s *sender) onAck(now int64, qp, psn uint32, nack bool) bool {
	fl := s.lookup(qp)
	if fl == nil {
		return false
	}
	could := s.canSend(fl)
	seg := unwrapPSN(psn, fl.una/SegmentPayload)
	una := seg * SegmentPayload
	if !nack {
		una += SegmentPayload
	}
	una = min(una, fl.Size)
	if seg < 0 || una > fl.hi {
		s.c.bogus++
		return false
	}
	if nack {
		fl.st.NACKs++
	} else {
		fl.st.ACKs++
	}
	if una > fl.una {
		fl.una = una
		fl.progress = now
	}
	if fl.una >= fl.Size {
		s.complete(fl, now)
		return false
	}
	if nack || fl.nxt < fl.una {
		fl.nxt = fl.una
	}
	return !could && s.canSend(fl)
}

// canSend reports whether fl has data to send and room in its window.
func (s *sender) canSend(fl *txFlow) bool { return fl.nxt < fl.Size && !s.winBound(fl) }

// onCNP applies a CNP of queue pair qp arriving at now.
func (s *sender) onCNP(now int64, qp uint32) {
	fl := s.lookup(qp)
	if fl == nil {
		return
	}
	fl.cc.OnCNP(now)
	fl.st.CNPs++
}

// lookup returns the active flow of queue pair qp, or nil (counted).
func (s *sender) lookup(qp uint32) *txFlow {
	i, ok := s.byQP[qp]
	if !ok {
		s.c.unknownQP++
		return nil
	}
	fl := &s.flows[i]
	if !fl.active {
		s.c.stale++
		return nil
	}
	return fl
}

// complete ends fl at now and records its FCT.
func (s *sender) complete(fl *txFlow, now int64) {
	fl.active = false
	fl.nxt = max(fl.nxt, fl.una) // nothing left to send, whatever a go-back-N left
	fl.cc.Stop()
	fl.st.Done = true
	fl.st.FCT = now - fl.Start
	fl.st.Rate = fl.cc.Rate()
	if s.cfg.leaveAtOnce {
		// leave the list now, keeping rr on the flow served last
		i := s.byQP[fl.QP]
		if k := slices.Index(s.active, i); k >= 0 {
			s.active = slices.Delete(s.active, k, k+1)
			if s.rr >= k && s.rr > 0 {
				s.rr--
			}
		}
	}
	s.remaining--
	s.fcts = append(s.fcts, trace.FCT{
		Src: fl.Src, Dst: fl.Dst, SPort: int(fl.SPort), DPort: fl.DPort,
		Size: fl.Size, Start: fl.Start, FCT: fl.st.FCT, Standalone: fl.standalone,
	})
}

// psnOf returns the PSN of the segment at byte offset off.
func psnOf(off int64) uint32 { return uint32(off/SegmentPayload) & psnMask }

// unwrapPSN returns the segment index whose 24-bit PSN is psn, nearest to
// segment ref.
func unwrapPSN(psn uint32, ref int64) int64 {
	d := int64((psn - uint32(ref)) & psnMask)
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return ref + d
}

// serialization returns the time to send bytes at rate bps, ps, rounded up
// (as the simulator's).
func serialization(bytes, rate int64) int64 {
	return (bytes*8*topo.Second + rate - 1) / rate
}
