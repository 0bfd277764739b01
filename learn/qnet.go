package learn

import (
	"graphcc/gnn"
	"graphcc/topo"
)

// qnet is what the trainer needs of a network: every agent's Q values for a
// state, gradients, and its parameters as one vector.
type qnet interface {
	params() []float64
	newScratch() qscratch
	clone() qnet
	copyFrom(qnet)
}

// qscratch holds one goroutine's workspaces for a qnet.
// A state and its Q values are on the reference fabric's layout; fab is
// the index of the transition's fabric in the replay buffer's Fabrics.
type qscratch interface {
	forward(fab int, state, q []float64)
	backward(fab int, dq, grad []float64)
}

type mpnnNet struct {
	m    *gnn.Model
	vars *variantSet // shared by the run's networks
}

func (n *mpnnNet) params() []float64 { return n.m.Params }

func (n *mpnnNet) clone() qnet { return &mpnnNet{m: n.m.Clone(), vars: n.vars} }

func (n *mpnnNet) copyFrom(o qnet) { n.m.CopyFrom(o.(*mpnnNet).m) }

func (n *mpnnNet) newScratch() qscratch {
	return &mpnnScratch{m: n.m, vars: n.vars, ws: []*gnn.Workspace{gnn.NewWorkspace(n.m, n.vars.ref.Graph())}}
}

// mpnnScratch passes messages over each transition's own fabric: a
// variant's state is gathered from the reference layout, its Q values and
// their gradients scattered back and forth.
type mpnnScratch struct {
	m    *gnn.Model
	vars *variantSet
	ws   []*gnn.Workspace // per fabric, made at its first transition
	x, q []float64        // a variant's state, and its Q values or their gradient
}

func (s *mpnnScratch) workspace(fab int) *gnn.Workspace {
	for len(s.ws) <= fab {
		s.ws = append(s.ws, nil)
	}
	if s.ws[fab] == nil {
		s.ws[fab] = gnn.NewWorkspace(s.m, s.vars.list[fab].f.Graph())
	}
	return s.ws[fab]
}

func (s *mpnnScratch) forward(fab int, x, q []float64) {
	ws := s.workspace(fab)
	if fab == 0 {
		s.m.Forward(ws, x, q)
		return
	}
	v := s.vars.list[fab]
	s.x = grow(s.x, len(v.port)*s.m.Features)
	s.q = grow(s.q, len(v.agent)*gnn.NumActions)
	gatherRows(s.x, x, v.port, s.m.Features)
	s.m.Forward(ws, s.x, s.q)
	clear(q) // the rows of the agents v lacks: NoAction, never read
	scatterRows(q, s.q, v.agent, gnn.NumActions)
}

func (s *mpnnScratch) backward(fab int, dq, grad []float64) {
	ws := s.workspace(fab)
	if fab == 0 {
		s.m.Backward(ws, dq, grad)
		return
	}
	v := s.vars.list[fab]
	s.q = grow(s.q, len(v.agent)*gnn.NumActions)
	gatherRows(s.q, dq, v.agent, gnn.NumActions)
	s.m.Backward(ws, s.q, grad)
}

// grow returns b resliced to n, reallocated if its capacity is short.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// accNet is ACC's independent networks with their parameters laid out in one
// vector (each net's Params is a view into it).
type accNet struct {
	nets   []*gnn.MLPNet
	flat   []float64
	agents []topo.PortID // nets[i] is the agent of agents[i] of the reference fabric
	ports  []string      // and of the port named ports[i]
}

func newACCNet(nets []*gnn.MLPNet, agents []topo.PortID, ports []string) *accNet {
	n := 0
	for _, m := range nets {
		n += len(m.Params)
	}
	a := &accNet{flat: make([]float64, 0, n), agents: agents, ports: ports}
	for _, m := range nets {
		off := len(a.flat)
		a.flat = append(a.flat, m.Params...)
		a.nets = append(a.nets, &gnn.MLPNet{Layer: m.Layer, Params: a.flat[off:len(a.flat):len(a.flat)]})
	}
	return a
}

func (a *accNet) params() []float64 { return a.flat }

func (a *accNet) clone() qnet { return newACCNet(a.nets, a.agents, a.ports) }

func (a *accNet) copyFrom(o qnet) { copy(a.flat, o.(*accNet).flat) }

func (a *accNet) newScratch() qscratch {
	s := &accScratch{a: a}
	for _, n := range a.nets {
		s.ws = append(s.ws, gnn.NewMLPWorkspace(n, 1))
	}
	return s
}

type accScratch struct {
	a  *accNet
	ws []*gnn.MLPWorkspace
}

func (s *accScratch) forward(_ int, x, q []float64) {
	for i, p := range s.a.agents {
		row := x[int(p)*gnn.ACCNumFeatures : (int(p)+1)*gnn.ACCNumFeatures]
		s.a.nets[i].Forward(s.ws[i], row, q[i*gnn.NumActions:(i+1)*gnn.NumActions])
	}
}

func (s *accScratch) backward(_ int, dq, grad []float64) {
	off := 0
	for i, n := range s.a.nets {
		k := len(n.Params)
		n.Backward(s.ws[i], dq[i*gnn.NumActions:(i+1)*gnn.NumActions], grad[off:off+k])
		off += k
	}
}
