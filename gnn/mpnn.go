package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"graphcc/topo"
)

// The GraphCC network's shape (docs/learning.md, "Method"). The number of
// outputs per agent is NumActions (120), defined with the action table.
const (
	NumFeatures = 9  // inputs per port: u, q, marking rate at t, t-1, t-2
	Hidden      = 24 // width of h and of every MLP's hidden layer
	K           = 2  // message-passing rounds
)

// Shape is the size of a message-passing network. DefaultShape is GraphCC's;
// other shapes exist for model files and tests.
type Shape struct {
	Features int // inputs per port; at most Hidden
	Hidden   int // width of h and of every hidden layer
	K        int // message-passing rounds, at least 1
	Actions  int // Q values per agent
	// HostActions is the number of Q values per host agent (a host's NIC
	// port) of the host head, 0 for a model without one (every model
	// trained before host heads, the shipped one among them).
	HostActions int
}

// DefaultShape returns GraphCC's shape: 9 features, hidden 24, K = 2, 120
// actions.
func DefaultShape() Shape {
	return Shape{Features: NumFeatures, Hidden: Hidden, K: K, Actions: NumActions}
}

// Validate reports whether s is a usable shape.
func (s Shape) Validate() error {
	switch {
	case s.Features < 1:
		return fmt.Errorf("features %d must be at least 1", s.Features)
	case s.Hidden < s.Features:
		return fmt.Errorf("hidden %d must be at least the %d features", s.Hidden, s.Features)
	case s.K < 1:
		return fmt.Errorf("rounds (K) %d must be at least 1", s.K)
	case s.Actions < 1:
		return fmt.Errorf("actions %d must be at least 1", s.Actions)
	case s.HostActions < 0:
		return fmt.Errorf("host actions %d must not be negative", s.HostActions)
	}
	return nil
}

// layout returns the three MLPs of s in parameter order.
func (s Shape) layout() (msg, upd, out MLP) {
	h := s.Hidden
	msg = MLP{In: 2 * h, Hidden: h, Out: h}
	upd = MLP{In: 3 * h, Hidden: h, Out: h, Off: msg.End()}
	out = MLP{In: h, Hidden: h, Out: s.Actions, Off: upd.End()}
	return msg, upd, out
}

// hostLayout returns the host head's MLP (H→H→HostActions), after the
// three of layout; its Out is 0 without a host head.
func (s Shape) hostLayout() MLP {
	_, _, out := s.layout()
	return MLP{In: s.Hidden, Hidden: s.Hidden, Out: s.HostActions, Off: out.End()}
}

// NumParams returns the number of parameters of a Model of shape s.
func (s Shape) NumParams() int {
	if s.HostActions > 0 {
		return s.hostLayout().End()
	}
	_, _, out := s.layout()
	return out.End()
}

// QLen returns the number of Q values of a Model of shape s on a graph of
// agents agents and hosts host ports: agents×Actions for the switch
// agents, then, with a host head, hosts×HostActions for the host agents.
func (s Shape) QLen(agents, hosts int) int {
	if s.HostActions == 0 {
		hosts = 0
	}
	return agents*s.Actions + hosts*s.HostActions
}

// Model is the GraphCC message-passing Q-network. Every port of the fabric,
// switch and host egress ports alike, is a node; only switch ports (agents)
// are read out. With h⁰_v the port's features zero-padded to Hidden, each
// round k = 1..K computes, for every port v at once from the previous
// round's h,
//
//	m_u  = MLP_msg([h_v, h_u])          for every u in B_i(v) = Graph.Ingress(v)
//	M_v  = [min_u m_u ; max_u m_u]      elementwise
//	h'_v = MLP_upd([h_v, M_v])
//
// and then Q_v = MLP_out(h^K_v), one value per action, for every agent v. A
// port without ingress neighbours gets M_v = 0. As in the GraphCC paper, the
// three MLPs are shared by every agent and MLP_msg and MLP_upd by every
// round, so one small parameter vector serves any fabric.
//
// Params holds MLP_msg (2H→H→H), MLP_upd (3H→H→H) and MLP_out (H→H→A) in
// that order; Msg, Upd and Out say where. 7,728 parameters in the default
// shape, whatever the number of features (h⁰ is padded to Hidden).
//
// A model with a host head (Shape.HostActions > 0) also reads out every
// host NIC port (the ports without Graph.Agent), computing their h^K too:
// Q^host_v = MLP_host(h^K_v), one value per host action, MLP_host
// (H→H→HostActions, HostOut) shared by every host port and stored after
// MLP_out (1,000 more parameters with the 16 host actions).
//
// FeatureSet names the inputs a GraphCC policy computes for the model; a
// model of that set has Features = FeatureSet.Len(). Models of other
// shapes (tests) leave it FeaturesPaper. ActionSet names the settings its
// outputs choose among.
type Model struct {
	Shape
	FeatureSet FeatureSet
	// ActionSet is the table the model's outputs index (the zero value,
	// ActionsPaper, for models of other shapes).
	ActionSet     ActionSet
	Msg, Upd, Out MLP
	// HostOut is the host head's MLP (Shape.HostActions outputs, the host
	// action table's), read out at every host NIC port after Out's
	// parameters; its Out is 0 without a host head.
	HostOut MLP
	// HostTable is the host action table the host head's outputs index
	// (the zero value, the grid, for a model without profiles).
	HostTable HostTable
	Params    []float64
}

// NewModel returns a GraphCC model of the default shape initialised from r.
func NewModel(r *rand.Rand) *Model { return NewModelShape(DefaultShape(), r) }

// NewModelSet returns a GraphCC model on feature set set (the default
// shape with set.Len() features) initialised from r. Its parameters are
// those NewModel gives from the same r.
func NewModelSet(set FeatureSet, r *rand.Rand) *Model {
	m := NewModelShape(set.Shape(), r)
	m.FeatureSet = set
	return m
}

// NewModelShape returns a model of shape s initialised from r (He-uniform
// first layers, Glorot-uniform second layers, zero biases). A nil r leaves
// every parameter 0. It panics if s is not valid.
func NewModelShape(s Shape, r *rand.Rand) *Model {
	if err := s.Validate(); err != nil {
		panic("gnn: " + err.Error())
	}
	m := &Model{Shape: s, Params: make([]float64, s.NumParams())}
	m.Msg, m.Upd, m.Out = s.layout()
	m.HostOut = s.hostLayout()
	if r != nil {
		m.Msg.Init(m.Params, r)
		m.Upd.Init(m.Params, r)
		m.Out.Init(m.Params, r)
		if s.HostActions > 0 {
			m.HostOut.Init(m.Params, r)
		}
	}
	return m
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Params = append([]float64(nil), m.Params...)
	return &c
}

// CopyFrom sets m's parameters to src's (the target-network update). The
// shapes must match.
func (m *Model) CopyFrom(src *Model) {
	if m.Shape != src.Shape {
		panic(fmt.Sprintf("gnn: copy from a model of shape %+v into one of shape %+v", src.Shape, m.Shape))
	}
	copy(m.Params, src.Params)
}

// Workspace holds everything one Forward of a Model on one graph computes
// and everything Backward needs, sized once per graph shape. A workspace
// serves one goroutine at a time; Backward uses the intermediates of the
// last Forward on it.
type Workspace struct {
	shape  Shape
	g      *topo.Graph
	ports  int
	agents []topo.PortID
	hosts  []topo.PortID // with a host head: the host NIC ports (not Graph.Agent), increasing

	// active[k] (k = 1..K) lists the ports whose h^k is computed: every
	// port for k < K, the agents for k = K. send[k] lists the ports whose
	// h^{k-1} is a message source in round k.
	active, send [][]int32

	h [][]float64 // h[k]: ports×H, k = 0..K (h[0] = padded features)

	// Per round k = 1..K (index k-1), ports×… rows:
	a      [][]float64 // b1 + h_v·W1[:H]: message pre-activation, receiver part (H)
	b      [][]float64 // h_u·W1[H:]: message pre-activation, sender part (H)
	agg    [][]float64 // [h_v, M_v] (3H): MLP_upd input
	uhid   [][]float64 // MLP_upd hidden activation (H)
	argMin [][]int32   // per element of M's min half: index into Graph.In of the winning edge, -1 if none
	argMax [][]int32   // same for the max half

	ohid []float64 // MLP_out's (then the host head's) hidden activation, (agents+hosts)×H
	q    []float64 // Greedy's Q values, QLen

	// Scratch.
	r, msg, dr, dm, dhid []float64 // H each
	dx                   []float64 // 3H
	dh                   [][]float64
	da, db               []float64 // ports×H
	mark                 []bool    // per edge of Graph.In
	wins                 []int32   // winning edges of one port, cap 2H
}

// NewWorkspace returns a workspace for m's shape on g.
func NewWorkspace(m *Model, g *topo.Graph) *Workspace {
	s := m.Shape
	n := len(g.Agent)
	if len(g.InStart) != n+1 {
		panic(fmt.Sprintf("gnn: graph has %d ports but %d ingress offsets", n, len(g.InStart)))
	}
	h := s.Hidden
	ws := &Workspace{shape: s, g: g, ports: n}
	for p, ok := range g.Agent {
		if ok {
			ws.agents = append(ws.agents, topo.PortID(p))
		} else if s.HostActions > 0 {
			ws.hosts = append(ws.hosts, topo.PortID(p))
		}
	}
	all := make([]int32, n)
	for p := range all {
		all[p] = int32(p)
	}
	agents := make([]int32, 0, len(ws.agents)+len(ws.hosts))
	for _, p := range ws.agents {
		agents = append(agents, int32(p))
	}
	for _, p := range ws.hosts {
		agents = append(agents, int32(p))
	}
	ws.active = make([][]int32, s.K+1)
	ws.send = make([][]int32, s.K+1)
	for k := 1; k <= s.K; k++ {
		ws.active[k] = all
		if k == s.K {
			ws.active[k] = agents
		}
		sender := make([]bool, n)
		for _, v := range ws.active[k] {
			for _, u := range g.Ingress(topo.PortID(v)) {
				sender[u] = true
			}
		}
		for p, ok := range sender {
			if ok {
				ws.send[k] = append(ws.send[k], int32(p))
			}
		}
	}
	rows := func(w int) []float64 { return make([]float64, n*w) }
	ws.h = make([][]float64, s.K+1)
	ws.dh = make([][]float64, s.K+1)
	for k := range ws.h {
		ws.h[k] = rows(h)
		ws.dh[k] = rows(h)
	}
	for range s.K {
		ws.a = append(ws.a, rows(h))
		ws.b = append(ws.b, rows(h))
		ws.agg = append(ws.agg, rows(3*h))
		ws.uhid = append(ws.uhid, rows(h))
		ws.argMin = append(ws.argMin, make([]int32, n*h))
		ws.argMax = append(ws.argMax, make([]int32, n*h))
	}
	ws.ohid = make([]float64, (len(ws.agents)+len(ws.hosts))*h)
	ws.q = make([]float64, s.QLen(len(ws.agents), len(ws.hosts)))
	ws.r, ws.msg, ws.dr, ws.dm, ws.dhid = make([]float64, h), make([]float64, h), make([]float64, h), make([]float64, h), make([]float64, h)
	ws.dx = make([]float64, 3*h)
	ws.da, ws.db = rows(h), rows(h)
	ws.mark = make([]bool, len(g.In))
	ws.wins = make([]int32, 0, 2*h)
	return ws
}

// Agents returns the agent ports in the order of the rows of Q: increasing
// PortID among the ports with Graph.Agent set.
func (ws *Workspace) Agents() []topo.PortID { return ws.agents[:len(ws.agents):len(ws.agents)] }

// Hosts returns the host agents, the host NIC ports read out by the host
// head, in the order of their rows of Q (after the agents'): increasing
// PortID among the ports without Graph.Agent. Empty without a host head.
func (ws *Workspace) Hosts() []topo.PortID { return ws.hosts[:len(ws.hosts):len(ws.hosts)] }

// QLen returns the number of Q values of a Forward on ws.
func (ws *Workspace) QLen() int { return ws.shape.QLen(len(ws.agents), len(ws.hosts)) }

// Ports returns the number of ports (rows of x).
func (ws *Workspace) Ports() int { return ws.ports }

func (m *Model) check(ws *Workspace) {
	if ws.shape != m.Shape {
		panic(fmt.Sprintf("gnn: workspace of shape %+v used with a model of shape %+v", ws.shape, m.Shape))
	}
	checkLen("model parameters", len(m.Params), m.NumParams())
}

// Forward computes the Q values of every agent of ws's graph from the
// per-port features x (ports×Features, row-major by topo.PortID) into q
// (agents×Actions, rows in the order of ws.Agents(), then with a host head
// hosts×HostActions, rows in the order of ws.Hosts(): ws.QLen() in all).
// It keeps in ws what Backward needs and does not allocate.
func (m *Model) Forward(ws *Workspace, x, q []float64) {
	m.check(ws)
	checkLen("features", len(x), ws.ports*m.Features)
	checkLen("Q values", len(q), ws.QLen())
	p, H, F := m.Params, m.Hidden, m.Features
	g := ws.g

	h0 := ws.h[0]
	for v := range ws.ports {
		row := h0[v*H : v*H+H]
		copy(row, x[v*F:v*F+F])
		clear(row[F:])
	}

	msgW1, msgB1, msgW2, msgB2 := m.Msg.w1(p), m.Msg.b1(p), m.Msg.w2(p), m.Msg.b2(p)
	w1v, w1u := msgW1[:H*H], msgW1[H*H:]
	r, msg := ws.r, ws.msg
	for k := 1; k <= m.K; k++ {
		hp, hn := ws.h[k-1], ws.h[k]
		a, b, agg, uhid := ws.a[k-1], ws.b[k-1], ws.agg[k-1], ws.uhid[k-1]
		amin, amax := ws.argMin[k-1], ws.argMax[k-1]
		for _, u := range ws.send[k] {
			bu := b[int(u)*H : int(u)*H+H]
			clear(bu)
			linearAcc(bu, w1u, hp[int(u)*H:int(u)*H+H])
		}
		for _, v := range ws.active[k] {
			o := int(v) * H
			hv := hp[o : o+H]
			av := a[o : o+H]
			linear(av, msgB1, w1v, hv)
			in := agg[3*o : 3*o+3*H]
			copy(in, hv)
			mn, mx := in[H:2*H], in[2*H:3*H]
			imn, imx := amin[o:o+H], amax[o:o+H]
			lo, hi := int(g.InStart[v]), int(g.InStart[v+1])
			for i := range imn {
				imn[i], imx[i] = -1, -1
			}
			if lo == hi {
				clear(mn)
				clear(mx)
			} else {
				for i := range mn {
					mn[i], mx[i] = math.Inf(1), math.Inf(-1)
				}
			}
			for e := lo; e < hi; e++ {
				u := int(g.In[e])
				bu := b[u*H : u*H+H]
				for i := range r {
					s := av[i] + bu[i]
					if s < 0 {
						s = 0
					}
					r[i] = s
				}
				linear(msg, msgB2, msgW2, r)
				minMax(mn, mx, imn, imx, msg, int32(e))
			}
			m.Upd.fwd(p, in, uhid[o:o+H], hn[o:o+H])
		}
	}
	hK := ws.h[m.K]
	A := m.Actions
	for i, v := range ws.agents {
		o := int(v) * H
		m.Out.fwd(p, hK[o:o+H], ws.ohid[i*H:i*H+H], q[i*A:i*A+A])
	}
	nA, HA := len(ws.agents), m.HostActions
	for j, v := range ws.hosts {
		o, i := int(v)*H, nA+j
		m.HostOut.fwd(p, hK[o:o+H], ws.ohid[i*H:i*H+H], q[nA*A+j*HA:nA*A+j*HA+HA])
	}
}

// fwd is Forward without the checks.
func (m MLP) fwd(p, x, hid, y []float64) {
	linear(hid, m.b1(p), m.w1(p), x)
	relu(hid)
	linear(y, m.b2(p), m.w2(p), hid)
}

// minMax folds msg into the running elementwise minimum mn and maximum mx,
// recording edge e as the arg where it wins (strictly: the first edge wins
// ties).
func minMax(mn, mx []float64, imn, imx []int32, msg []float64, e int32) {
	mx, imn, imx, msg = mx[:len(mn)], imn[:len(mn)], imx[:len(mn)], msg[:len(mn)]
	for i, x := range msg {
		if x < mn[i] {
			mn[i], imn[i] = x, e
		}
		if x > mx[i] {
			mx[i], imx[i] = x, e
		}
	}
}

// Backward accumulates into grad (len(Params)) the gradient of a loss with
// respect to the parameters, given dq (ws.QLen()), the gradient of the
// loss with respect to the Q values of the last Forward on ws. The min and
// max aggregations pass each element's gradient to the message that won it.
// It does not allocate.
func (m *Model) Backward(ws *Workspace, dq, grad []float64) {
	m.check(ws)
	checkLen("Q gradient", len(dq), ws.QLen())
	checkLen("gradient", len(grad), len(m.Params))
	m.backOut(ws, dq, grad)
	mb := m.msgBack(grad)
	for k := m.K; k >= 1; k-- {
		m.backRound(ws, k, &mb, grad)
	}
}

// backOut is Backward through MLP_out: it sets ws.dh[K] of the agents'
// ports from dq and accumulates MLP_out's gradient.
func (m *Model) backOut(ws *Workspace, dq, grad []float64) {
	p, H, A := m.Params, m.Hidden, m.Actions
	dhK := ws.dh[m.K]
	for _, v := range ws.active[m.K] {
		clear(dhK[int(v)*H : int(v)*H+H])
	}
	hK := ws.h[m.K]
	for i, v := range ws.agents {
		dqi := dq[i*A : i*A+A]
		if allZero(dqi) {
			continue
		}
		o := int(v) * H
		m.Out.backward(p, hK[o:o+H], ws.ohid[i*H:i*H+H], dqi, grad, ws.dx[:H], ws.dhid)
		addTo(dhK[o:o+H], ws.dx[:H])
	}
	nA, HA := len(ws.agents), m.HostActions
	for j, v := range ws.hosts {
		dqj := dq[nA*A+j*HA : nA*A+j*HA+HA]
		if allZero(dqj) {
			continue
		}
		o, i := int(v)*H, nA+j
		m.HostOut.backward(p, hK[o:o+H], ws.ohid[i*H:i*H+H], dqj, grad, ws.dx[:H], ws.dhid)
		addTo(dhK[o:o+H], ws.dx[:H])
	}
}

// msgBackViews are MLP_msg's weights and their gradients' views into grad,
// its first layer split into the columns of h_v and of h_u.
type msgBackViews struct {
	w1v, w1u, w2              []float64
	gW1v, gW1u, gB1, gW2, gB2 []float64
}

func (m *Model) msgBack(grad []float64) msgBackViews {
	H := m.Hidden
	msgW1 := m.Msg.w1(m.Params)
	gW1 := m.Msg.w1(grad)
	return msgBackViews{
		w1v: msgW1[:H*H], w1u: msgW1[H*H:], w2: m.Msg.w2(m.Params),
		gW1v: gW1[:H*H], gW1u: gW1[H*H:], gB1: m.Msg.b1(grad), gW2: m.Msg.w2(grad), gB2: m.Msg.b2(grad),
	}
}

// backRound is Backward through round k: from ws.dh[k] it accumulates the
// gradients of MLP_upd and MLP_msg and, for k > 1, sets ws.dh[k-1].
func (m *Model) backRound(ws *Workspace, k int, mb *msgBackViews, grad []float64) {
	H := m.Hidden
	hp, dhn, db := ws.h[k-1], ws.dh[k], ws.db
	var dhp []float64 // nil in round 1: nothing needs dL/dh⁰
	if k > 1 {
		dhp = ws.dh[k-1]
		for _, v := range ws.active[k-1] {
			clear(dhp[int(v)*H : int(v)*H+H])
		}
	}
	for _, u := range ws.send[k] {
		clear(db[int(u)*H : int(u)*H+H])
	}
	for _, v := range ws.active[k] {
		o := int(v) * H
		if allZero(dhn[o : o+H]) {
			continue
		}
		m.backPort(ws, k, o, dhp, mb, grad)
	}
	for _, u := range ws.send[k] {
		o := int(u) * H
		dbu := db[o : o+H]
		outerAcc(mb.gW1u, hp[o:o+H], dbu)
		if dhp != nil {
			matVecTAcc(dhp[o:o+H], mb.w1u, dbu)
		}
	}
}

// backPort is Backward through round k's update of the port at offset o
// (its index times Hidden) and through the messages that won its
// aggregation: MLP_upd's and MLP_msg's gradients, dL/dh_v of the previous
// round into dhp (if not nil), and the senders' share into ws.db.
func (m *Model) backPort(ws *Workspace, k, o int, dhp []float64, mb *msgBackViews, grad []float64) {
	H := m.Hidden
	hp, dhv := ws.h[k-1], ws.dh[k][o:o+H]
	m.Upd.backward(m.Params, ws.agg[k-1][3*o:3*o+3*H], ws.uhid[k-1][o:o+H], dhv, grad, ws.dx, ws.dhid)
	if dhp != nil {
		addTo(dhp[o:o+H], ws.dx[:H])
	}
	// Route dM to the winning messages, one edge at a time.
	imn, imx := ws.argMin[k-1][o:o+H], ws.argMax[k-1][o:o+H]
	dav := ws.da[o : o+H]
	clear(dav)
	for _, e := range ws.winners(imn, imx) {
		ws.mark[e] = false
		m.backMsg(ws, k, o, e, mb)
	}
	addTo(mb.gB1, dav)
	outerAcc(mb.gW1v, hp[o:o+H], dav)
	if dhp != nil {
		matVecTAcc(dhp[o:o+H], mb.w1v, dav)
	}
}

// winners returns the distinct edges that won an element of the minimum
// (imn) or the maximum (imx), in order of their first win, marked in
// ws.mark: the caller clears each mark.
func (ws *Workspace) winners(imn, imx []int32) []int32 {
	wins := ws.wins[:0]
	for i := range imn {
		if e := imn[i]; e >= 0 && !ws.mark[e] {
			ws.mark[e] = true
			wins = append(wins, e)
		}
		if e := imx[i]; e >= 0 && !ws.mark[e] {
			ws.mark[e] = true
			wins = append(wins, e)
		}
	}
	return wins
}

// backMsg is Backward through round k's message of edge e to the port at
// offset o: the elements of dM it won, through MLP_msg (whose hidden layer
// is recomputed from the halves a and b of its first layer), into MLP_msg's
// gradient, ws.da of the port and ws.db of the sender.
func (m *Model) backMsg(ws *Workspace, k, o int, e int32, mb *msgBackViews) {
	H := m.Hidden
	imn, imx := ws.argMin[k-1][o:o+H], ws.argMax[k-1][o:o+H]
	r, dr, dm := ws.r, ws.dr, ws.dm
	dmn, dmx := ws.dx[H:2*H], ws.dx[2*H:]
	for i := range dm {
		d := 0.0
		if imn[i] == e {
			d += dmn[i]
		}
		if imx[i] == e {
			d += dmx[i]
		}
		dm[i] = d
	}
	u := int(ws.g.In[e])
	av, bu := ws.a[k-1][o:o+H], ws.b[k-1][u*H:u*H+H]
	for i := range r {
		s := av[i] + bu[i]
		if s < 0 {
			s = 0
		}
		r[i] = s
	}
	addTo(mb.gB2, dm)
	outerAcc(mb.gW2, r, dm)
	matVecT(dr, mb.w2, dm)
	reluBack(dr, r)
	addTo(ws.da[o:o+H], dr)
	addTo(ws.db[u*H:u*H+H], dr)
}

func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// Greedy runs Forward on x and writes into actions (one per agent, in the
// order of ws.Agents(), then with a host head one per host agent, in the
// order of ws.Hosts()) the action of largest Q value, the lowest index on
// ties. It does not allocate.
func (m *Model) Greedy(ws *Workspace, x []float64, actions []int) {
	nA := len(ws.agents)
	checkLen("actions", len(actions), nA+len(ws.hosts))
	m.Forward(ws, x, ws.q)
	argmaxRows(actions[:nA], ws.q, m.Actions)
	argmaxRows(actions[nA:], ws.q[nA*m.Actions:], m.HostActions)
}

// Q returns the Q values of the last Greedy call on ws (agents×Actions);
// they are valid until the next call.
func (ws *Workspace) Q() []float64 { return ws.q }

// argmaxRows writes the index of the largest entry of each row of q
// (len(actions) rows of n) into actions, the lowest index on ties.
func argmaxRows(actions []int, q []float64, n int) {
	for i := range actions {
		actions[i] = argmax(q[i*n : i*n+n])
	}
}

// argmax returns the index of the largest entry of q, the lowest on ties.
func argmax(q []float64) int {
	best := 0
	for a := 1; a < len(q); a++ {
		if q[a] > q[best] {
			best = a
		}
	}
	return best
}
