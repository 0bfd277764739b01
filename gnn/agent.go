package gnn

import (
	"fmt"
	"slices"

	"graphcc/topo"
)

// SwitchView is all one switch's agent knows of the fabric: the switch's
// egress ports and, for each, the node at its other end. The link of an
// egress port p carries the other way the port p.Reverse(), the switch's
// ingress port from that neighbour (topo.PortID's numbering), so the view
// also names every port whose hidden state the agent receives or, for a
// host, computes.
type SwitchView struct {
	Switch topo.NodeID
	Ports  []ViewPort // the switch's egress ports, in increasing PortID
}

// ViewPort is one egress port of a switch in its SwitchView.
type ViewPort struct {
	Port       topo.PortID // the egress port; Port.Reverse() comes back on the same link
	Peer       topo.NodeID // the node at the other end
	PeerSwitch bool        // whether the peer is a switch (an agent) or a host
	Rate       int64       // the link's rate, bps, each direction
}

// NewSwitchView returns the view of switch n of f. It fails if n is not a
// switch, if a host attached to n has another link (its NIC port's state
// would then depend on a switch other than n), or if the agent graph of f
// is not the one a view implies (every egress port's B_i is the switch's
// ingress ports, the reverses of its egress ports).
func NewSwitchView(f *topo.Fabric, n topo.NodeID) (SwitchView, error) {
	if int(n) < 0 || int(n) >= len(f.Nodes) || !f.Nodes[n].Switch {
		return SwitchView{}, fmt.Errorf("switch view: node %d is not a switch", n)
	}
	name := f.Nodes[n].Name
	v := SwitchView{Switch: n}
	var in []topo.PortID
	for _, p := range f.Out(n) {
		port := f.Ports[p]
		peer := f.Nodes[port.Dst]
		if !peer.Switch && len(f.Out(port.Dst)) != 1 {
			return SwitchView{}, fmt.Errorf("switch view %s: host %s has %d links, a leaf computes the state of a host with one",
				name, peer.Name, len(f.Out(port.Dst)))
		}
		v.Ports = append(v.Ports, ViewPort{Port: p, Peer: port.Dst, PeerSwitch: peer.Switch, Rate: port.Rate})
		in = append(in, p.Reverse())
	}
	slices.Sort(in)
	g := f.Graph()
	for _, vp := range v.Ports {
		if !slices.Equal(g.Ingress(vp.Port), in) {
			return SwitchView{}, fmt.Errorf("switch view %s: port %s's ingress ports are not the reverses of the switch's egress ports",
				name, f.PortName(vp.Port))
		}
		if !vp.PeerSwitch && !slices.Equal(g.Ingress(vp.Port.Reverse()), []topo.PortID{vp.Port}) {
			return SwitchView{}, fmt.Errorf("switch view %s: host port %s's ingress is not %s alone",
				name, f.PortName(vp.Port.Reverse()), f.PortName(vp.Port))
		}
	}
	return v, nil
}

// Agent is one switch's share of the GraphCC step (docs/agents.md): it
// holds the model and its switch's view, and computes the hidden states,
// Q values and greedy actions of the switch's egress ports, and of the
// NIC ports of the hosts attached to it (nodes of the agent graph, not
// agents: their only ingress port is the switch's port to them). It reads
// only its own telemetry and learns its neighbours' states from messages.
//
// A step is Observe (or Begin), then for each round k = 1..K: Message
// for each message of round k to send, Receive of one message per ingress
// port from a switch (in any order), and Round(k) (RoundFallback past a
// deadline). Every array is computed by the same
// float32 kernels as Inference, over the same rows in the same order
// (incoming messages are stored by their sending port, not in arrival
// order), so the union of the agents' results is Inference's bit for bit.
// No method of a step allocates.
type Agent struct {
	view     SwitchView
	set      ActionSet     // the model's action table
	htab     HostTable     // the model's host action table
	ports    []topo.PortID // the egress ports, the view's order
	rates    []int64       // their rates, bps
	w        *inferCore    // the weights, shape and kernels only
	fz       *Featurizer
	nOwn     int           // egress ports
	nHost    int           // attached hosts' NIC ports
	hostOff  int           // first row of the hosts: nOwn rounded up to 4
	remOff   int           // first row of the remote ingress ports
	rows     int           // rows of every array, a multiple of 4
	hosts    []topo.PortID // the hosts' NIC ports, increasing
	remote   []topo.PortID // the ingress ports from switches, increasing: who sends to us
	sendRows []int32       // rows of the egress ports to switches: who we send for
	in       []int32       // rows of the switch's ingress ports in increasing PortID: B_i of every egress port
	hostIn   []int32       // per host: the row of the switch's port to it, B_i of the host's port
	received []bool        // per remote port: its message of the current round arrived
	nRecv    int
	next     int    // the next round to compute, 1..K; K+1 when done
	step     uint32 // the step in progress: Begin calls since NewAgent or Reset, less 1
	begun    bool   // Begin has been called since NewAgent or Reset

	h       [][]float32 // h[k], k = 0..K-1: rows×H (own and host rows)
	a, b    []float32   // this round's receiver and sender parts, rows×H
	hin     [][]float32 // per round k-1: the last states received, rows×H (remote rows)
	agg     []float32   // rows×3H
	hid, hn []float32   // rows×H
	r, m    []float32   // the edge kernel's scratch
	q       []float32   // nOwn×Actions, then nHost×HostActions
	qs, hqs []float32   // readout scratch: rows×Actions, rows×HostActions
	actions []int       // per own port, then per host with a host head
}

// NewAgent returns the agent of the switch view v running model m, with
// features of m's feature set normalized by c. It fails on a view whose
// ports are not in increasing PortID or have a non-positive rate, and on
// a model that does not fit a GraphCC policy (CheckPolicyModel) or an
// invalid c.
func NewAgent(m *Model, v SwitchView, c FeatureConfig) (*Agent, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	if err := CheckPolicyModel(m); err != nil {
		return nil, fmt.Errorf("agent of switch %d: %w", v.Switch, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("agent of switch %d: %w", v.Switch, err)
	}
	return newAgent(m, v, c, haveAVX2FMA()), nil
}

// check reports whether v's ports increase and have positive rates.
func (v SwitchView) check() error {
	if len(v.Ports) == 0 {
		return fmt.Errorf("switch view %d: no ports", v.Switch)
	}
	for i, p := range v.Ports {
		switch {
		case p.Rate <= 0:
			return fmt.Errorf("switch view %d: port %d has rate %d", v.Switch, p.Port, p.Rate)
		case i > 0 && p.Port <= v.Ports[i-1].Port:
			return fmt.Errorf("switch view %d: port %d after port %d, want increasing PortIDs", v.Switch, p.Port, v.Ports[i-1].Port)
		}
	}
	return nil
}

// newAgent is NewAgent with the kernels chosen by asm, as newInference.
func newAgent(m *Model, v SwitchView, c FeatureConfig, asm bool) *Agent {
	s := m.Shape
	if err := s.Validate(); err != nil {
		panic("gnn: " + err.Error())
	}
	w := &inferCore{shape: s, asm: asm && s.Hidden == 24}
	w.allocWeights()
	w.load(m)
	ag := &Agent{view: v, set: m.ActionSet, htab: m.HostTable, w: w, nOwn: len(v.Ports), next: 1}
	for _, p := range v.Ports {
		ag.ports = append(ag.ports, p.Port)
		ag.rates = append(ag.rates, p.Rate)
	}
	rates := slices.Clone(ag.rates)
	for _, p := range v.Ports {
		if p.PeerSwitch {
			ag.remote = append(ag.remote, p.Port.Reverse())
		} else {
			ag.hosts = append(ag.hosts, p.Port.Reverse())
			rates = append(rates, p.Rate)
		}
	}
	ag.nHost = len(ag.hosts)
	ag.fz = NewPortFeaturizer(rates, m.FeatureSet, c)
	ag.hostOff = align4(ag.nOwn)
	ag.remOff = ag.hostOff + align4(ag.nHost)
	ag.rows = ag.remOff + align4(len(ag.remote))
	ag.setRows()
	ag.alloc()
	return ag
}

// align4 rounds n up to a multiple of 4, the kernels' rows.
func align4(n int) int { return (n + 3) &^ 3 }

// setRows lists the rows each computation reads: the senders of every
// egress port and of every host port, and the egress ports to switches.
func (ag *Agent) setRows() {
	type pr struct {
		p   topo.PortID
		row int32
	}
	var in []pr
	for i, p := range ag.view.Ports {
		if p.PeerSwitch {
			ag.sendRows = append(ag.sendRows, int32(i))
			j, _ := slices.BinarySearch(ag.remote, p.Port.Reverse())
			in = append(in, pr{p.Port.Reverse(), int32(ag.remOff + j)})
			continue
		}
		j, _ := slices.BinarySearch(ag.hosts, p.Port.Reverse())
		in = append(in, pr{p.Port.Reverse(), int32(ag.hostOff + j)})
		ag.hostIn = append(ag.hostIn, int32(i))
	}
	// hostIn is by host: the hosts are the reverses of the host-facing
	// egress ports, which increase with them.
	slices.SortFunc(in, func(x, y pr) int { return int(x.p - y.p) })
	for _, e := range in {
		ag.in = append(ag.in, e.row)
	}
	ag.received = make([]bool, len(ag.remote))
}

// alloc allocates the activations and scratch.
func (ag *Agent) alloc() {
	s := ag.w.shape
	H := s.Hidden
	per := func() []float32 { return alignedFloat32s(ag.rows * H) }
	ag.h = make([][]float32, s.K)
	for k := range ag.h {
		ag.h[k] = per()
	}
	ag.a, ag.b, ag.hid, ag.hn = per(), per(), per(), per()
	ag.hin = make([][]float32, s.K)
	for k := range ag.hin {
		ag.hin[k] = per()
	}
	ag.agg = alignedFloat32s(ag.rows * 3 * H)
	ag.r, ag.m = alignedFloat32s(8*H), alignedFloat32s(H)
	nh := 0
	if s.HostActions > 0 {
		nh = ag.nHost
	}
	ag.q = alignedFloat32s(ag.nOwn*s.Actions + nh*s.HostActions)
	ag.qs = alignedFloat32s(ag.rows * s.Actions)
	ag.hqs = alignedFloat32s(ag.rows * max(s.HostActions, 1))
	ag.actions = make([]int, ag.nOwn+nh)
}
