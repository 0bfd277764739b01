package gnn

import (
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/topo"
)

// Observe shifts the agent's feature history by one interval with its
// switch's telemetry t and begins a step on the features (Begin). t.Ports
// holds the samples of the switch's egress ports, in the order of the
// view's Ports, then those of the attached hosts' NIC ports, in the order
// of Hosts (what the switch observes of them: see docs/agents.md).
func (ag *Agent) Observe(t *control.Telemetry) {
	ag.fz.Observe(t)
	ag.Begin(ag.fz.Features())
}

// Begin begins a step on the features x: (Ports()+len(Hosts())) × the
// model's Features, row-major, the egress ports first. It computes h^0 and
// round 1's receiver and sender parts of the switch's and the hosts' rows.
func (ag *Agent) Begin(x []float64) {
	s := ag.w.shape
	H, F := s.Hidden, s.Features
	checkLen("agent features", len(x), (ag.nOwn+ag.nHost)*F)
	h0 := ag.h[0]
	for i := range ag.nOwn + ag.nHost {
		row := ag.row(i)
		dst := h0[row*H : row*H+F]
		for j, v := range x[i*F : i*F+F] {
			dst[j] = float32(v)
		}
	}
	c := ag.w
	gemm(c.asm, ag.a, H, h0, H, ag.remOff, F, c.msgW1v, H, H, c.msgB1, false)
	gemm(c.asm, ag.b, H, h0, H, ag.remOff, F, c.msgW1u, H, H, c.zeros, false)
	ag.next = 1
	clear(ag.received)
	ag.nRecv = 0
	if ag.begun {
		ag.step++
	}
	ag.begun = true
}

// Step returns the control step in progress, counted from 0 at the first
// Begin after NewAgent or Reset (it wraps at 2^32): the step a message
// carries on the wire (agentmsg.Message.Step). Receive takes no step: the
// transport drops a message of another step before it.
func (ag *Agent) Step() uint32 { return ag.step }

// row returns the row of the i-th local port: an egress port for i <
// Ports(), a host's NIC port after.
func (ag *Agent) row(i int) int {
	if i < ag.nOwn {
		return i
	}
	return ag.hostOff + i - ag.nOwn
}

// Sends returns the number of messages the agent sends each round: one
// per egress port whose peer is a switch.
func (ag *Agent) Sends() int { return len(ag.sendRows) }

// Message returns the i-th message of round k (i < Sends()): the egress
// port it describes and leaves by, the switch at the other end, and the
// hidden state h^{k-1} of that port (the model's Features floats in round
// 1, Hidden after). The vector is the agent's own, valid until Round(k).
// It panics unless round k is the next to compute.
func (ag *Agent) Message(k, i int) (from topo.PortID, to topo.NodeID, h []float32) {
	if k != ag.next {
		panic(fmt.Sprintf("gnn: message of round %d from an agent at round %d", k, ag.next))
	}
	row := int(ag.sendRows[i])
	vp := ag.view.Ports[row]
	H := ag.w.shape.Hidden
	n := ag.msgLen(k)
	return vp.Port, vp.Peer, ag.h[k-1][row*H : row*H+n : row*H+n]
}

// msgLen returns the floats of a round-k message: h^0 is the features,
// zero-padded only inside the agents.
func (ag *Agent) msgLen(k int) int {
	if k == 1 {
		return ag.w.shape.Features
	}
	return ag.w.shape.Hidden
}

// Receive stores the message of round k from the neighbour's egress port
// from (the switch's ingress port on that link). Messages may come in any
// order; each is stored in the row of its sender. It fails on a message of
// another round, from a port that does not lead to this switch, sent
// twice, or of the wrong length.
func (ag *Agent) Receive(k int, from topo.PortID, h []float32) error {
	if k != ag.next {
		return fmt.Errorf("agent of switch %d: message of round %d from port %d at round %d", ag.view.Switch, k, from, ag.next)
	}
	j, ok := slices.BinarySearch(ag.remote, from)
	switch {
	case !ok:
		return fmt.Errorf("agent of switch %d: message from port %d, which does not come from a neighbour switch", ag.view.Switch, from)
	case ag.received[j]:
		return fmt.Errorf("agent of switch %d: second message of round %d from port %d", ag.view.Switch, k, from)
	case len(h) != ag.msgLen(k):
		return fmt.Errorf("agent of switch %d: message of round %d from port %d has %d floats, want %d", ag.view.Switch, k, from, len(h), ag.msgLen(k))
	}
	H := ag.w.shape.Hidden
	row := ag.remOff + j
	copy(ag.hin[k-1][row*H:row*H+len(h)], h)
	ag.received[j] = true
	ag.nRecv++
	return nil
}

// Missing returns the number of messages of the current round not yet
// received.
func (ag *Agent) Missing() int { return len(ag.remote) - ag.nRecv }

// Round computes round k, which must be the next, once every message of
// it has arrived: h^k of the egress ports and (before the last round, or
// with a host head) the hosts' ports, and in the last round the readout.
// It does not allocate.
func (ag *Agent) Round(k int) error {
	if k != ag.next {
		return fmt.Errorf("agent of switch %d: round %d computed at round %d", ag.view.Switch, k, ag.next)
	}
	if m := ag.Missing(); m > 0 {
		return fmt.Errorf("agent of switch %d: round %d lacks %d of its %d messages", ag.view.Switch, k, m, len(ag.remote))
	}
	ag.round(k)
	return nil
}

// RoundFallback is Round for a round whose deadline has passed: each
// message of round k that did not arrive is replaced by the last one
// received from the same port in round k of an earlier step (zeros if none
// ever came), and the round is computed. It returns the number of messages
// replaced; with none it is Round. Results with a replaced message are
// not the central step's. It fails only on a round that is not the next.
func (ag *Agent) RoundFallback(k int) (int, error) {
	if k != ag.next {
		return 0, fmt.Errorf("agent of switch %d: round %d computed at round %d", ag.view.Switch, k, ag.next)
	}
	m := ag.Missing()
	ag.round(k)
	return m, nil
}

// round computes round k (Round) from the states in hin.
func (ag *Agent) round(k int) {
	c, s := ag.w, ag.w.shape
	H := s.Hidden
	if n := len(ag.remote); n > 0 {
		o := ag.remOff * H
		gemm(c.asm, ag.b[o:], H, ag.hin[k-1][o:], H, align4(n), ag.msgLen(k), c.msgW1u, H, H, c.zeros, false)
	}
	hp := ag.h[k-1]
	for i := range ag.nOwn {
		ag.aggregate(i, hp, ag.in)
	}
	last := k == s.K
	rows := ag.hostOff
	if !last || s.HostActions > 0 {
		rows = ag.remOff
		for j := range ag.nHost {
			ag.aggregate(ag.hostOff+j, hp, ag.hostIn[j:j+1])
		}
	}
	hn := ag.hn
	if !last {
		hn = ag.h[k]
	}
	gemm(c.asm, ag.hid, H, ag.agg, 3*H, rows, 3*H, c.updW1, H, H, c.updB1, true)
	gemm(c.asm, hn, H, ag.hid, H, rows, H, c.updW2, H, H, c.updB2, false)
	if !last {
		gemm(c.asm, ag.a, H, hn, H, rows, H, c.msgW1v, H, H, c.msgB1, false)
		gemm(c.asm, ag.b, H, hn, H, rows, H, c.msgW1u, H, H, c.zeros, false)
	} else {
		ag.readout()
	}
	ag.next++
	clear(ag.received)
	ag.nRecv = 0
}

// aggregate sets row r of agg to [h_v, min, max] of the messages from the
// rows senders, v being the port of row r.
func (ag *Agent) aggregate(r int, hp []float32, senders []int32) {
	c := ag.w
	H := c.shape.Hidden
	agg := ag.agg[r*3*H : (r+1)*3*H]
	o := r * H
	copy(agg[:H], hp[o:o+H])
	edges(c.asm, agg[H:], ag.a[o:o+H], ag.b, H, senders, c.msgW2, c.msgB2, ag.r, ag.m)
}

// readout computes the Q values and greedy actions of the egress ports
// and, with a host head, of the hosts' ports, from h^K.
func (ag *Agent) readout() {
	c, s := ag.w, ag.w.shape
	H, A, HA := s.Hidden, s.Actions, s.HostActions
	gemm(c.asm, ag.hid, H, ag.hn, H, ag.hostOff, H, c.outW1, H, H, c.outB1, true)
	gemm(c.asm, ag.qs, A, ag.hid, H, ag.hostOff, H, c.outW2, A, A, c.outB2, false)
	for i := range ag.nOwn {
		q := ag.q[i*A : i*A+A]
		copy(q, ag.qs[i*A:i*A+A])
		ag.actions[i] = argmaxQ(c.asm, q)
	}
	if HA == 0 || ag.nHost == 0 {
		return
	}
	o := ag.hostOff * H
	rows := align4(ag.nHost)
	gemm(c.asm, ag.hid, H, ag.hn[o:], H, rows, H, c.hostW1, H, H, c.hostB1, true)
	gemm(c.asm, ag.hqs, HA, ag.hid, H, rows, H, c.hostW2, HA, HA, c.hostB2, false)
	base := ag.nOwn * A
	for j := range ag.nHost {
		q := ag.q[base+j*HA : base+j*HA+HA]
		copy(q, ag.hqs[j*HA:j*HA+HA])
		ag.actions[ag.nOwn+j] = argmaxQ(c.asm, q)
	}
}

// Done reports whether the step's last round has been computed.
func (ag *Agent) Done() bool { return ag.next > ag.w.shape.K }

// Actions returns the greedy action of every egress port (in the order of
// the view's Ports) and then, with a host head, of every host's NIC port
// (in the order of Hosts), as of the last completed step. The slice is the
// agent's own.
func (ag *Agent) Actions() []int { return ag.actions }

// Settings writes into ecn (by topo.PortID) the setting of every egress
// port's action of the last completed step (Actions), at the port's rate.
// It does not allocate.
func (ag *Agent) Settings(ecn []control.ECN) {
	writeSettings(ecn, ag.set, ag.ports, ag.rates, ag.actions)
}

// OwnPorts returns the switch's egress ports, the view's Ports in order:
// the ports Settings writes. The slice is the agent's own.
func (ag *Agent) OwnPorts() []topo.PortID { return ag.ports[:len(ag.ports):len(ag.ports)] }

// Q returns the Q values of the last completed step: Ports()×Actions,
// then with a host head len(Hosts())×HostActions. The slice is the
// agent's own.
func (ag *Agent) Q() []float32 { return ag.q }

// Hidden returns h^k (k < K) of local port i (i < Ports(): an egress port;
// after: a host's NIC port) once round k is computed. The slice is the
// agent's own.
func (ag *Agent) Hidden(k, i int) []float32 {
	H := ag.w.shape.Hidden
	r := ag.row(i)
	return ag.h[k][r*H : r*H+H : r*H+H]
}

// View returns the agent's view of its switch.
func (ag *Agent) View() SwitchView { return ag.view }

// Ports returns the number of the switch's egress ports.
func (ag *Agent) Ports() int { return ag.nOwn }

// Hosts returns the NIC ports of the hosts attached to the switch, in
// increasing PortID: the rows of Observe's telemetry after the switch's
// own.
func (ag *Agent) Hosts() []topo.PortID { return ag.hosts[:len(ag.hosts):len(ag.hosts)] }

// Reset forgets the feature history and the messages received, for a new
// run.
func (ag *Agent) Reset() {
	ag.fz.Reset()
	for _, h := range ag.hin {
		clear(h)
	}
	ag.next = 1
	clear(ag.received)
	ag.nRecv = 0
	ag.step, ag.begun = 0, false
}

// Load re-snapshots m's parameters; m must have the agent's shape.
func (ag *Agent) Load(m *Model) { ag.w.load(m) }
