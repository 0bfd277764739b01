package replay

import (
	"math"
	"slices"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/topo"
	"graphcc/trace"
)

// This file is the RDMA NIC of a host, as HPCC's RdmaHw and QbbNetDevice: one
// queue pair per flow paced by DCQCN and limited by the fixed window, round
// robin between queue pairs, ACKs served first, per-packet ACKs with the CNP
// flag for CE-marked data, NACK and go-back-N on a gap.

// arrivals starts every flow whose time has come and arms the next arrival.
func (s *Sim) arrivals() {
	if s.nextEv < len(s.events) && s.events[s.nextEv].At <= s.now {
		s.linkEvents() // a flow starting at an event's time routes on its state
	}
	flows := s.cfg.Flows
	for s.next < len(s.order) && flows[s.order[s.next]].Start <= s.now {
		s.startFlow(s.order[s.next])
		s.next++
	}
	if s.next < len(s.order) {
		s.q.schedule(s.arrivalSrc(), flows[s.order[s.next]].Start)
	}
}

// startFlow gives flow id of the trace a slot and starts its sender.
func (s *Sim) startFlow(id int32) {
	in := &s.cfg.Flows[id]
	i := s.newSlot()
	s.slotOf[id] = i
	fl := &s.flows[i]
	fwd, rev := fl.fwd[:0], fl.rev[:0]
	*fl = flowState{
		id: id, src: in.Src, dst: in.Dst, size: in.Size, start: in.Start,
		sport: s.sports[id], dport: int32(in.DPort), lastNack: -1,
	}
	fl.fwd = ecmpRoute(s.f, s.routing, s.ecmp, fwd, fl.src, fl.dst, fl.sport, fl.dport)
	fl.rev = ecmpRoute(s.f, s.routing, s.ecmp, rev, fl.dst, fl.src, fl.dport, fl.sport)
	h := &s.hosts[fl.src]
	fl.cc.Reset(&h.cc, s.ports[h.port].rate)
	fl.nextAvail = s.now
	fl.progress = s.now
	h.active = append(h.active, i)
	fl.active = true
	if s.rto > 0 {
		s.armFlow(i)
	}
	s.nicSend(h.port)
}

// armFlow keeps the one pending event of flow i at its next DCQCN timer or,
// with PFC off, its next loss-timeout check, whichever comes first.
func (s *Sim) armFlow(i int32) {
	fl := &s.flows[i]
	t := fl.cc.Next()
	if s.rto > 0 {
		t = min(t, fl.progress+s.rto)
	}
	if t != math.MaxInt64 {
		s.q.schedule(s.flowSrc(i), t)
	} else {
		s.q.cancel(s.flowSrc(i))
	}
}

// flowTimer runs flow i's due DCQCN timers and its loss timeout.
func (s *Sim) flowTimer(i int32) {
	fl := &s.flows[i]
	fl.cc.Advance(s.now)
	if s.rto > 0 && s.now >= fl.progress+s.rto {
		fl.progress = s.now
		if fl.sndNxt > fl.sndUna {
			fl.sndNxt = fl.sndUna
			s.c.Timeouts++
			s.nicSend(s.hosts[fl.src].port)
		}
	}
	s.armFlow(i)
}

func (s *Sim) winBound(fl *flowState) bool {
	return s.window > 0 && fl.sndNxt-fl.sndUna >= s.window
}

// nicSend starts the next transmission of an idle host port: an ACK if one
// waits, else a data packet of the next eligible queue pair in round-robin
// order; if every queue pair with data is pacing, it wakes the port when the
// first may send.
func (s *Sim) nicSend(p topo.PortID) {
	pt := &s.ports[p]
	if pt.freeAt > s.now {
		s.wake(p)
		return
	}
	if pt.paused {
		return
	}
	h := &s.hosts[pt.src]
	if pt.q.head >= 0 {
		i := pt.q.pop(s.pkts)
		pt.qBytes -= int64(s.pkts[i].size)
		// an ACK leaves on its flow's current route: the host's own link
		// never fails, so its hop 0 is the same on every generation
		s.pkts[i].gen = s.flows[s.pkts[i].flow].revGen
		s.transmit(p, i)
		s.nicMore(p, h)
		return
	}
	// Round robin from the queue pair after the one served last. With
	// Params.HPCCRoundRobin, finished flows are still in the list: as in
	// HPCC's RdmaEgressQueue::GetNextQindex, those met before the chosen
	// one are removed now and the list compacted without moving rr.
	n := len(h.active)
	res, fin := -1, -1
	for k := 1; k <= n; k++ {
		idx := (h.rr + k) % n
		fl := &s.flows[h.active[idx]]
		if fl.sndNxt < fl.size && !s.winBound(fl) {
			if fl.nextAvail > s.now {
				continue
			}
			res = idx
			break
		}
		if fl.done && (fin < 0 || idx < fin) {
			fin = idx
		}
	}
	if fin >= 0 {
		res = s.compactActive(h, fin, res)
	}
	if res >= 0 {
		h.rr = res
		s.sendData(p, h.active[res])
		s.nicMore(p, h)
		return
	}
	// Nothing can go now. As HPCC's QbbNetDevice::DequeueAndTransmit, wake
	// at the earliest next-send time of the flows with bytes left, those
	// the window holds back included; if that time has passed (a held-back
	// flow's), no wake-up is set, and a flow waiting for its pacing time
	// goes at the NIC's next event (an ACK, an arrival) instead.
	wake := int64(math.MaxInt64)
	for _, fi := range h.active {
		if fl := &s.flows[fi]; fl.sndNxt < fl.size && fl.nextAvail < wake {
			wake = fl.nextAvail
		}
	}
	if wake != math.MaxInt64 && wake > s.now {
		s.q.schedule(s.portSrc(p), wake)
	}
}

// compactActive removes from h.active every finished flow at index fin or
// after it, as HPCC does from the first finished queue pair its scan met,
// and returns where the flow at index res (-1: none) is then. A removed
// flow's slot is freed once none of its packets is left.
func (s *Sim) compactActive(h *hostState, fin, res int) int {
	h.active, res = dcqcn.CompactQueuePairs(h.active, fin, res, func(fi int32) bool {
		fl := &s.flows[fi]
		if fl.done {
			fl.active = false
			s.freeSlot(fi)
		}
		return fl.done
	})
	return res
}

// nicMore arms host port p's event at the end of its transmission if it may
// have more to send then.
func (s *Sim) nicMore(p topo.PortID, h *hostState) {
	if s.ports[p].q.head >= 0 || len(h.active) > 0 {
		s.q.schedule(s.portSrc(p), s.ports[p].freeAt)
	}
}

func (s *Sim) sendData(p topo.PortID, fi int32) {
	fl := &s.flows[fi]
	payload := min(int64(s.p.Payload), fl.size-fl.sndNxt)
	size := payload + int64(s.p.Header)
	i := s.alloc(fi)
	s.pkts[i] = packet{next: -1, flow: fi, kind: kData, size: int32(size), payload: int32(payload), seq: fl.sndNxt,
		gen: fl.fwdGen, start: control.IsFlowStart(fl.sndNxt / int64(s.p.Payload))}
	fl.sndNxt += payload
	s.c.SentPayload += payload
	s.c.DataPackets++
	s.transmit(p, i)
	if r := fl.cc.Rate(); r == s.ports[p].rate {
		fl.nextAvail = s.ports[p].freeAt // at line rate: when the NIC is free
	} else {
		fl.nextAvail = s.now + s.txTime(size, r)
	}
}

// hostReceive takes packet i at the host at the end of its route.
func (s *Sim) hostReceive(i int32) {
	s.receive(&s.pkts[i])
	s.release(i)
}

// receive is a host's NIC taking packet pk: the receiver's side for data,
// the sender's for ACKs and NACKs. It may grow the packet slab: pk is read
// first.
func (s *Sim) receive(pkp *packet) {
	pk := *pkp
	fl := &s.flows[pk.flow]
	switch pk.kind {
	case kData:
		switch {
		case pk.seq == fl.rcvNxt:
			fl.rcvNxt += int64(pk.payload)
			s.c.DeliverPayload += int64(pk.payload)
			s.sendAck(pk.flow, kAck, pk.ce)
		case pk.seq > fl.rcvNxt:
			if s.now >= fl.nackAt || fl.lastNack != fl.rcvNxt {
				fl.nackAt = s.now + s.p.NackInterval
				fl.lastNack = fl.rcvNxt
				s.sendAck(pk.flow, kNack, pk.ce)
			}
		case len(s.events) > 0:
			// A duplicate: HPCC's receiver ignores it, but with links
			// failing an ACK can be lost with the data it acknowledges
			// all in; the sender's timeout resends that data, and only a
			// fresh ACK of it (as a RoCE responder sends for a
			// duplicate) lets the flow finish.
			s.sendAck(pk.flow, kAck, pk.ce)
		}
	case kAck, kNack:
		if fl.done {
			return
		}
		if pk.seq > fl.sndUna {
			fl.sndUna = pk.seq
			fl.progress = s.now
		}
		if fl.sndUna >= fl.size {
			s.complete(pk.flow)
			return
		}
		if pk.kind == kNack || fl.sndNxt < fl.sndUna {
			if pk.kind == kNack {
				s.c.Retransmits++
			}
			fl.sndNxt = fl.sndUna
		}
		if pk.cnp {
			fl.cc.OnCNP(s.now)
			s.armFlow(pk.flow)
		}
		s.nicSend(s.hosts[fl.src].port)
	}
}

// sendAck queues an ACK or NACK of flow fi at its receiver's NIC.
func (s *Sim) sendAck(fi int32, kind uint8, cnp bool) {
	fl := &s.flows[fi]
	i := s.alloc(fi)
	s.pkts[i] = packet{next: -1, flow: fi, kind: kind, size: int32(s.p.AckSize), seq: fl.rcvNxt, cnp: cnp}
	p := fl.rev[0]
	pt := &s.ports[p]
	pt.q.push(s.pkts, i)
	pt.qBytes += int64(s.p.AckSize)
	s.nicSend(p)
}

func (s *Sim) complete(fi int32) {
	fl := &s.flows[fi]
	fl.done = true
	fl.cc.Stop()
	s.q.cancel(s.flowSrc(fi))
	if !s.p.HPCCRoundRobin {
		// Leave the host's list now, keeping rr on the flow served last.
		// If that flow is the one leaving, the next scan should start at
		// the flow after it, which rr-1 gives, except at index 0, where rr
		// stays 0 and the next scan starts one flow further on, reaching
		// the flow that moves into index 0 last. That slip is kept: the
		// shipped model was trained in this mode (--hpcc-rr=false), its
		// training command must reproduce it, and mending the slip changes
		// the weights that command trains.
		h := &s.hosts[fl.src]
		if k := slices.Index(h.active, fi); k >= 0 {
			h.active = slices.Delete(h.active, k, k+1)
			if h.rr >= k && h.rr > 0 {
				h.rr--
			}
		}
		fl.active = false
	}
	s.done++
	s.slotOf[fl.id] = -1
	s.fct = append(s.fct, trace.FCT{
		Src: fl.src, Dst: fl.dst, SPort: int(fl.sport), DPort: int(fl.dport),
		Size: fl.size, Start: fl.start, FCT: s.now - fl.start,
		Standalone: trace.Standalone(s.f, fl.src, fl.dst, fl.size, s.p.Payload, trace.StandaloneHeader),
	})
	if s.cfg.OnFinish != nil {
		s.cfg.OnFinish(s.fct[len(s.fct)-1], fl.fwd)
	}
}
