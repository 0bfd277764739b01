package hostgen

import (
	"math"

	"graphcc/topo"
)

// This file is the receiving half of a host's NIC as pure state, driven with
// fabric times: per flow the next expected byte, a cumulative ACK for every
// segment in order, a NACK for a gap (at most one per expected offset per
// NACK interval, as the simulator), and the DCQCN notification point: a CNP
// for a CE-marked segment, at most one per flow per CNP interval.

// ReceivedFlow is the receiver's account of one flow.
type ReceivedFlow struct {
	QP       uint32
	Src, Dst topo.NodeID
	Size     int64 // bytes
	// Delivered counts the flow bytes taken in order, each exactly once.
	Delivered int64
	// Duplicates and OutOfOrder count segments before and after the next
	// expected byte; Invalid those that do not fit the flow (offset not on a
	// segment boundary or past the end, wrong length or PSN).
	Duplicates, OutOfOrder, Invalid int64
	CE                              int64 // CE-marked segments
	ACKs, NACKs, CNPs               int64 // sent
	Done                            bool  // every byte delivered
}

// rxReply is what the receiver answers a data segment with.
type rxReply struct {
	ack, nack bool   // at most one of them
	psn       uint32 // of the ACK or NACK
	cnp       bool
}

// rxFlow is one flow being received.
type rxFlow struct {
	next     int64 // next expected byte
	nackAt   int64 // no NACK for the same expected offset before this time
	lastNack int64 // expected offset of the last NACK, -1 before any
	cnpAt    int64 // no CNP before this time
	st       ReceivedFlow
}

// receiver is the state of every flow one host receives.
type receiver struct {
	nackInterval int64 // ps
	cnpInterval  int64 // ps; 0: a CNP for every CE-marked segment
	flows        []rxFlow
	byQP         map[uint32]int32
	remaining    int   // flows not fully delivered
	unknownQP    int64 // segments of no flow this host receives
}

// newReceiver returns the receiver of flows.
func newReceiver(nackInterval, cnpInterval int64, flows []Flow) *receiver {
	r := &receiver{
		nackInterval: nackInterval,
		cnpInterval:  cnpInterval,
		flows:        make([]rxFlow, len(flows)),
		byQP:         make(map[uint32]int32, len(flows)),
		remaining:    len(flows),
	}
	for i, f := range flows {
		r.flows[i] = rxFlow{lastNack: -1, cnpAt: math.MinInt64,
			st: ReceivedFlow{QP: f.QP, Src: f.Src, Dst: f.Dst, Size: f.Size}}
		r.byQP[f.QP] = int32(i)
	}
	return r
}

// onData takes data segment f arriving at now and returns the answer.
func (r *receiver) onData(now int64, f *Frame) rxReply {
	i, ok := r.byQP[f.QP]
	if !ok {
		r.unknownQP++
		return rxReply{}
	}
	fl := &r.flows[i]
	size := fl.st.Size
	if f.Offset%SegmentPayload != 0 || f.Offset >= size ||
		int64(f.Len) != min(SegmentPayload, size-f.Offset) || f.PSN != psnOf(f.Offset) {
		fl.st.Invalid++
		return rxReply{}
	}
	var out rxReply
	if f.CE() {
		fl.st.CE++
		if now >= fl.cnpAt {
			fl.cnpAt = now + r.cnpInterval
			out.cnp = true
			fl.st.CNPs++
		}
	}
	switch {
	case f.Offset == fl.next:
		fl.next += int64(f.Len)
		fl.st.Delivered += int64(f.Len)
		out.ack, out.psn = true, f.PSN
		fl.st.ACKs++
		if fl.next == size {
			fl.st.Done = true
			r.remaining--
		}
	case f.Offset < fl.next:
		// Already delivered: the sender went back further than it had to
		// (a loss timeout after lost ACKs). Acknowledge again what is here.
		fl.st.Duplicates++
		out.ack, out.psn = true, psnOf(fl.next-1)
		fl.st.ACKs++
	default:
		fl.st.OutOfOrder++
		if now >= fl.nackAt || fl.lastNack != fl.next {
			fl.nackAt = now + r.nackInterval
			fl.lastNack = fl.next
			out.nack, out.psn = true, psnOf(fl.next)
			fl.st.NACKs++
		}
	}
	return out
}
