package replay

import "graphcc/topo"

// This file is the switch: output-queued ports with one shared buffer per
// switch, admission and PFC as HPCC's SwitchMmu (a Broadcom-like MMU
// accounted per ingress port; graphcc has one lossless priority), and RED/ECN
// marking at dequeue.

// forward takes packet i arriving over port in at a switch: admission, PFC,
// and enqueue on the next port of its route.
func (s *Sim) forward(in topo.PortID, i int32) {
	pk := &s.pkts[i]
	fl := &s.flows[pk.flow]
	pk.hop++
	data, start := pk.kind == kData, pk.start
	if len(s.events) > 0 && s.stale(pk, fl) {
		s.c.Drops++
		s.c.StaleDrops++
		s.release(i)
		return
	}
	var out topo.PortID
	if data {
		out = fl.fwd[pk.hop]
	} else {
		out = fl.rev[pk.hop]
	}
	size := int64(pk.size)
	if !data && s.p.AckHighPriority {
		s.forwardAck(out, i)
		return
	}
	sw := &s.sws[s.ports[in].dst]
	if !s.admit(sw, in, size) {
		s.c.Drops++
		s.release(i)
		return
	}
	pk.in = in
	s.checkPause(sw, in) // may grow the packet slab: pk is not used after

	op := &s.ports[out]
	if data { // the queue feature and the flow mix: data packets only
		ps := &s.tel.Ports[out]
		ps.EnqHist.Add(op.qPkts)
		if start {
			ps.FlowStarts++
		}
	}
	if op.qBytes > op.enqMax {
		op.enqMax = op.qBytes
	}
	op.qBytes += size
	op.qPkts++
	op.q.push(s.pkts, i)
	s.switchSend(out)
}

// forwardAck enqueues ACK or NACK i on port out's high-priority queue
// (Params.AckHighPriority): no admission, no PFC, no queue feature.
func (s *Sim) forwardAck(out topo.PortID, i int32) {
	s.ports[out].ack.push(s.pkts, i)
	s.switchSend(out)
}

// switchSend starts the next transmission of a switch port if it is idle:
// PFC frames first, then high-priority ACKs (Params.AckHighPriority), then
// the data queue unless it is paused. A busy port is
// woken when it is free; a port left with nothing to send gets no event.
func (s *Sim) switchSend(p topo.PortID) {
	pt := &s.ports[p]
	if pt.down {
		return
	}
	if pt.freeAt > s.now {
		s.wake(p)
		return
	}
	if pt.ctl.head >= 0 || pt.ack.head >= 0 {
		q := &pt.ctl
		if q.head < 0 {
			q = &pt.ack
		}
		s.transmit(p, q.pop(s.pkts))
		s.switchMore(p)
		return
	}
	if pt.paused || pt.q.head < 0 {
		return
	}
	i := pt.q.pop(s.pkts)
	pk := &s.pkts[i]
	size := int64(pk.size)
	pt.qBytes -= size
	pt.qPkts--
	sw := &s.sws[pt.src]
	in := pk.in
	s.unadmit(sw, in, size)
	if s.p.ECN && pk.kind == kData && s.mark(pt, sw) {
		pk.ce = true
		pt.marked += size
		s.c.ECNMarked++
	}
	s.transmit(p, i)
	s.switchMore(p)
	s.checkResume(sw, in)
}

// switchMore arms port p's event at the end of its transmission if it has
// more to send then.
func (s *Sim) switchMore(p topo.PortID) {
	pt := &s.ports[p]
	if pt.ctl.head >= 0 || pt.ack.head >= 0 || (pt.q.head >= 0 && !pt.paused) {
		s.q.schedule(s.portSrc(p), pt.freeAt)
	}
}

// mark applies the RED rule on the bytes still queued at the port.
func (s *Sim) mark(pt *port, sw *switchState) bool {
	q := pt.qBytes
	if q > pt.kmax {
		return true
	}
	if q > pt.kmin {
		prob := pt.pmax * float64(q-pt.kmin) / float64(pt.kmax-pt.kmin)
		return sw.rng.Float64() < prob
	}
	return false
}

// threshold is the dynamic PFC threshold of an ingress port (HPCC's
// GetPfcThreshold).
func (s *Sim) threshold(sw *switchState, in *port) int64 {
	t := sw.pool - sw.shared
	if t < 0 {
		return 0
	}
	return t >> (in.shift & 63)
}

func (s *Sim) sharedUsed(in *port) int64 {
	if in.ingBytes > s.p.Reserve {
		return in.ingBytes - s.p.Reserve
	}
	return 0
}

// admit is HPCC's CheckIngressAdmission followed by UpdateIngressAdmission.
// Without PFC there is no headroom: a packet over the threshold is dropped.
func (s *Sim) admit(sw *switchState, inPort topo.PortID, size int64) bool {
	in := &s.ports[inPort]
	thr := s.threshold(sw, in)
	if s.p.PFC {
		if size+in.hdrmBytes > in.headroom && size+s.sharedUsed(in) > thr {
			return false
		}
	} else if in.ingBytes+size > s.p.Reserve && size+s.sharedUsed(in) > thr {
		return false
	}
	nb := in.ingBytes + size
	switch {
	case nb <= s.p.Reserve:
		in.ingBytes = nb
	case nb-s.p.Reserve > thr:
		in.hdrmBytes += size
	default:
		in.ingBytes = nb
		sw.shared += min(size, nb-s.p.Reserve)
	}
	return true
}

// unadmit is HPCC's RemoveFromIngressAdmission.
func (s *Sim) unadmit(sw *switchState, inPort topo.PortID, size int64) {
	in := &s.ports[inPort]
	fromHdrm := min(in.hdrmBytes, size)
	fromShared := min(size-fromHdrm, s.sharedUsed(in))
	in.hdrmBytes -= fromHdrm
	in.ingBytes -= size - fromHdrm
	sw.shared -= fromShared
}

// checkPause sends PAUSE upstream when the ingress port uses headroom or its
// shared use reached the threshold (HPCC's CheckShouldPause).
func (s *Sim) checkPause(sw *switchState, inPort topo.PortID) {
	in := &s.ports[inPort]
	if !s.p.PFC || in.pausing {
		return
	}
	if in.hdrmBytes > 0 || s.sharedUsed(in) >= s.threshold(sw, in) {
		in.pausing = true
		s.c.PFCPauses++
		s.sendPFC(inPort.Reverse(), kPause)
	}
}

// checkResume sends RESUME when a paused ingress port has drained (HPCC's
// CheckShouldResume).
func (s *Sim) checkResume(sw *switchState, inPort topo.PortID) {
	in := &s.ports[inPort]
	if !in.pausing || in.hdrmBytes != 0 {
		return
	}
	if su := s.sharedUsed(in); su == 0 || su+s.p.ResumeOffset <= s.threshold(sw, in) {
		in.pausing = false
		s.c.PFCResumes++
		s.sendPFC(inPort.Reverse(), kResume)
	}
}

// sendPFC queues a PFC frame on switch port p, ahead of all data.
func (s *Sim) sendPFC(p topo.PortID, kind uint8) {
	if s.ports[p].down {
		return // the link failed: the frame's receiver is unpaused
	}
	i := s.alloc(-1)
	s.pkts[i] = packet{next: -1, flow: -1, kind: kind, size: int32(s.p.PFCSize)}
	s.ports[p].ctl.push(s.pkts, i)
	s.switchSend(p)
}
