package gnn

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"graphcc/topo"
)

// Inference is the fast path of a Model for greedy action selection: a
// float32 snapshot of the model's parameters, laid out for AVX2+FMA kernels
// (or pure-Go ones on other CPUs), run on one graph. It computes the same
// function as Model.Forward, in float32, for callers that only need the Q
// values and their argmax (GraphCC.Decide, evaluation); training's Forward
// and Backward stay float64.
//
// Changes to the model's parameters take effect at the next Load. Greedy
// does not allocate. On a large graph it splits the ports among a fixed
// pool of goroutines, started by NewInference; each port's result is
// computed by the same instructions whatever the number of workers, so the
// results do not depend on it. An Inference serves one goroutine at a time.
type Inference struct {
	c *inferCore
}

// inferChunk is the unit of work: the ports whose rows a worker computes
// at once (four groups of the kernels' four rows).
const inferChunk = 16

// inferParallelEdges is the number of ingress edges from which NewInference
// uses more than one worker by default; below it (the 40-agent default
// fabric has 312), one goroutine is faster than waking others.
const inferParallelEdges = 16384

// inferCore is everything an Inference's workers share. It does not point
// back to the Inference, so that an unreachable Inference can stop them.
type inferCore struct {
	shape  Shape
	asm    bool // the AVX2+FMA kernels (Hidden 24 on a CPU that has them)
	ports  int
	rows   int // ports rounded up to inferChunk: rows of every per-port array
	agents []topo.PortID
	hosts  []topo.PortID // with a host head: the host NIC ports, increasing

	// Weights, one aligned block each, input-major as in Model.Params.
	msgW1v, msgW1u, msgB1, msgW2, msgB2 []float32
	updW1, updB1, updW2, updB2          []float32
	outW1, outB1, outW2, outB2          []float32
	hostW1, hostB1, hostW2, hostB2      []float32 // the host head's, nil without one
	zeros                               []float32 // Hidden zeros: the bias of h·W1u

	// The graph: ingress lists, and per round k = 1..K the ports whose h^k
	// is computed (every port for k < K, the agents for k = K), grouped by
	// source node so that a switch's senders stay in cache.
	inStart []int32
	in      []int32
	order   [][]int32
	qrow    []int32 // per position of order[K]: the agent's row of Q

	// Activations, rows×Hidden each: h[k] for k = 0..K-1 (h[0] the padded
	// features), and per round k = 1..K the receiver part a[k] = b1 +
	// h^{k-1}·W1v and the sender part b[k] = h^{k-1}·W1u of the message
	// MLP's first layer.
	h, a, b [][]float32
	q       []float32 // agents×Actions

	// The step in progress.
	x       []float64
	actions []int
	phase   int
	next    atomic.Int64 // next chunk's first position
	workers []*inferWorker

	// The helper goroutines (workers 1..): wake[i-1] starts worker i on
	// the current phase; wg waits for them to finish it; helpers waits for
	// them to return, in stop.
	wake     []chan struct{}
	wg       sync.WaitGroup
	helpers  sync.WaitGroup
	stopOnce sync.Once
}

// inferWorker is one worker's scratch: inferChunk rows of each
// intermediate.
type inferWorker struct {
	agg []float32 // [h_v, min, max]: MLP_upd's input, 3H per row
	hid []float32 // a hidden layer, H per row
	hn  []float32 // h^k, H per row
	an  []float32 // a^{k+1}, H per row
	bn  []float32 // b^{k+1}, H per row
	q   []float32 // Actions per row
	hq  []float32 // HostActions per row
	r   []float32 // the edge kernel's scratch: 8 rows of H
	m   []float32 // one message, H
}

// NewInference returns the fast path of m on g, with m's current
// parameters. workers is the number of goroutines a step uses (the caller's
// and workers-1 started here); workers <= 0 chooses: runtime.GOMAXPROCS(0)
// on a graph of at least inferParallelEdges ingress edges, 1 on a smaller
// one. Call Close to stop the goroutines early; otherwise they stop once
// the Inference is unreachable.
func NewInference(m *Model, g *topo.Graph, workers int) *Inference {
	return newInference(m, g, workers, haveAVX2FMA())
}

// newInference is NewInference with the kernels chosen by asm: the
// assembly ones if set and the shape allows, the pure-Go ones otherwise.
func newInference(m *Model, g *topo.Graph, workers int, asm bool) *Inference {
	s := m.Shape
	if err := s.Validate(); err != nil {
		panic("gnn: " + err.Error())
	}
	checkLen("model parameters", len(m.Params), s.NumParams())
	n := len(g.Agent)
	if len(g.InStart) != n+1 {
		panic(fmt.Sprintf("gnn: graph has %d ports but %d ingress offsets", n, len(g.InStart)))
	}
	c := &inferCore{shape: s, asm: asm && s.Hidden == 24, ports: n, rows: (n + inferChunk - 1) / inferChunk * inferChunk}
	c.setGraph(g)
	c.allocWeights()
	c.load(m)
	c.setOrders()
	c.allocActivations()
	c.allocWorkers(workers)
	inf := &Inference{c: c}
	if len(c.workers) > 1 {
		c.start()
		runtime.AddCleanup(inf, func(c *inferCore) { c.stop() }, c)
	}
	return inf
}

// setGraph copies g's ingress lists, checking every offset and port, and
// lists its agents.
func (c *inferCore) setGraph(g *topo.Graph) {
	n := c.ports
	c.inStart = slices.Clone(g.InStart)
	c.in = make([]int32, len(g.In))
	for i, u := range g.In {
		c.in[i] = int32(u)
	}
	for p := range n {
		lo, hi := c.inStart[p], c.inStart[p+1]
		if lo < 0 || lo > hi || int(hi) > len(c.in) {
			panic(fmt.Sprintf("gnn: port %d has ingress offsets %d..%d of %d", p, lo, hi, len(c.in)))
		}
	}
	for _, u := range c.in {
		if u < 0 || int(u) >= n {
			panic(fmt.Sprintf("gnn: ingress port %d outside the %d ports", u, n))
		}
	}
	for p, ok := range g.Agent {
		if ok {
			c.agents = append(c.agents, topo.PortID(p))
		} else if c.shape.HostActions > 0 {
			c.hosts = append(c.hosts, topo.PortID(p))
		}
	}
}

// setOrders sets the processing orders of the rounds, by source node (the
// first ingress port names it), then by port: every port for rounds 1 to
// K-1, the agents for round K, with each agent's row of Q.
func (c *inferCore) setOrders() {
	K := c.shape.K
	c.order = make([][]int32, K+1)
	for k := 1; k < K; k++ {
		all := make([]int32, c.ports)
		for p := range all {
			all[p] = int32(p)
		}
		c.sortByNode(all)
		c.order[k] = all
	}
	last := make([]int32, len(c.agents))
	for i, p := range c.agents {
		last[i] = int32(p)
	}
	c.sortByNode(last)
	hosts := make([]int32, len(c.hosts))
	for i, p := range c.hosts {
		hosts[i] = int32(p)
	}
	c.sortByNode(hosts)
	c.order[K] = append(last, hosts...) // the agents' positions first
	c.qrow = make([]int32, len(c.order[K]))
	for i, p := range c.order[K] {
		if i < len(c.agents) {
			j, _ := slices.BinarySearch(c.agents, topo.PortID(p))
			c.qrow[i] = int32(j)
			continue
		}
		j, _ := slices.BinarySearch(c.hosts, topo.PortID(p))
		c.qrow[i] = int32(len(c.agents) + j)
	}
}

// sortByNode sorts ports by source node (the first ingress port; -1 for a
// port without one), then by port.
func (c *inferCore) sortByNode(ports []int32) {
	key := func(p int32) int32 {
		if c.inStart[p] == c.inStart[p+1] {
			return -1
		}
		return c.in[c.inStart[p]]
	}
	slices.SortFunc(ports, func(x, y int32) int {
		if kx, ky := key(x), key(y); kx != ky {
			return int(kx - ky)
		}
		return int(x - y)
	})
}

// allocActivations allocates the per-port activations h, a and b, and Q.
func (c *inferCore) allocActivations() {
	s := c.shape
	perPort := func() []float32 { return alignedFloat32s(c.rows * s.Hidden) }
	c.h = make([][]float32, s.K)
	for k := range c.h {
		c.h[k] = perPort()
	}
	c.a = make([][]float32, s.K+1)
	c.b = make([][]float32, s.K+1)
	for k := 1; k <= s.K; k++ {
		c.a[k], c.b[k] = perPort(), perPort()
	}
	c.q = alignedFloat32s(s.QLen(len(c.agents), len(c.hosts)))
}

// allocWorkers gives each of workers workers its scratch; workers <= 0
// chooses as NewInference says, and there are never more workers than
// chunks of ports.
func (c *inferCore) allocWorkers(workers int) {
	if workers <= 0 {
		workers = 1
		if len(c.in) >= inferParallelEdges {
			workers = runtime.GOMAXPROCS(0)
		}
	}
	workers = max(1, min(workers, (c.ports+inferChunk-1)/inferChunk))
	H, A, HA := c.shape.Hidden, c.shape.Actions, c.shape.HostActions
	// With a host head a chunk's host rows start anywhere in it, and are
	// computed four at a time from there: up to four more rows.
	rows := inferChunk
	if HA > 0 {
		rows += 4
	}
	for range workers {
		c.workers = append(c.workers, &inferWorker{
			agg: alignedFloat32s(inferChunk * 3 * H),
			hid: alignedFloat32s(rows * H),
			hn:  alignedFloat32s(rows * H),
			an:  alignedFloat32s(inferChunk * H),
			bn:  alignedFloat32s(inferChunk * H),
			q:   alignedFloat32s(inferChunk * A),
			hq:  alignedFloat32s(rows * HA),
			r:   alignedFloat32s(8 * H),
			m:   alignedFloat32s(H),
		})
	}
}

// allocWeights gives every weight block its own aligned storage.
func (c *inferCore) allocWeights() {
	s := c.shape
	msg, upd, out := s.layout()
	H := s.Hidden
	c.msgW1v, c.msgW1u = alignedFloat32s(H*H), alignedFloat32s(H*H)
	c.msgB1, c.msgW2, c.msgB2 = alignedFloat32s(H), alignedFloat32s(msg.Hidden*msg.Out), alignedFloat32s(H)
	c.updW1, c.updB1 = alignedFloat32s(upd.In*upd.Hidden), alignedFloat32s(upd.Hidden)
	c.updW2, c.updB2 = alignedFloat32s(upd.Hidden*upd.Out), alignedFloat32s(upd.Out)
	c.outW1, c.outB1 = alignedFloat32s(out.In*out.Hidden), alignedFloat32s(out.Hidden)
	c.outW2, c.outB2 = alignedFloat32s(out.Hidden*out.Out), alignedFloat32s(out.Out)
	c.zeros = alignedFloat32s(H)
	if s.HostActions > 0 {
		ho := s.hostLayout()
		c.hostW1, c.hostB1 = alignedFloat32s(ho.In*ho.Hidden), alignedFloat32s(ho.Hidden)
		c.hostW2, c.hostB2 = alignedFloat32s(ho.Hidden*ho.Out), alignedFloat32s(ho.Out)
	}
}

// load converts m's parameters into c's weight blocks.
func (c *inferCore) load(m *Model) {
	if m.Shape != c.shape {
		panic(fmt.Sprintf("gnn: load a model of shape %+v into an inference of shape %+v", m.Shape, c.shape))
	}
	checkLen("model parameters", len(m.Params), m.NumParams())
	p, H := m.Params, m.Hidden
	conv := func(dst []float32, src []float64) {
		checkLen("weight block", len(src), len(dst))
		for i, v := range src {
			dst[i] = float32(v)
		}
	}
	w1 := m.Msg.w1(p)
	conv(c.msgW1v, w1[:H*H])
	conv(c.msgW1u, w1[H*H:])
	conv(c.msgB1, m.Msg.b1(p))
	conv(c.msgW2, m.Msg.w2(p))
	conv(c.msgB2, m.Msg.b2(p))
	conv(c.updW1, m.Upd.w1(p))
	conv(c.updB1, m.Upd.b1(p))
	conv(c.updW2, m.Upd.w2(p))
	conv(c.updB2, m.Upd.b2(p))
	conv(c.outW1, m.Out.w1(p))
	conv(c.outB1, m.Out.b1(p))
	conv(c.outW2, m.Out.w2(p))
	conv(c.outB2, m.Out.b2(p))
	if m.HostActions > 0 {
		conv(c.hostW1, m.HostOut.w1(p))
		conv(c.hostB1, m.HostOut.b1(p))
		conv(c.hostW2, m.HostOut.w2(p))
		conv(c.hostB2, m.HostOut.b2(p))
	}
}

// Load re-snapshots m's parameters (after a training update, say). m must
// have the shape the Inference was made for. It does not allocate.
func (inf *Inference) Load(m *Model) { inf.c.load(m) }

// Greedy computes the Q values of every agent from the per-port features x
// (ports×Features, row-major by topo.PortID, as for Model.Forward) and
// writes into actions (one per agent, in the order of Agents, then with a
// host head one per host agent, in the order of Hosts) the action of
// largest Q value, the lowest index on ties. It does not allocate.
func (inf *Inference) Greedy(x []float64, actions []int) {
	c := inf.c
	checkLen("features", len(x), c.ports*c.shape.Features)
	checkLen("actions", len(actions), len(c.agents)+len(c.hosts))
	c.x, c.actions = x, actions
	for k := 0; k <= c.shape.K; k++ {
		c.run(k)
	}
	c.x, c.actions = nil, nil
}

// Q returns the Q values of the last Greedy (agents×Actions, rows in the
// order of Agents, then hosts×HostActions in the order of Hosts). The slice is the Inference's own and is overwritten by
// the next Greedy.
func (inf *Inference) Q() []float32 { return inf.c.q }

// Agents returns the agent ports in the order of the rows of Q: increasing
// PortID among the ports with Graph.Agent set.
func (inf *Inference) Agents() []topo.PortID {
	a := inf.c.agents
	return a[:len(a):len(a)]
}

// Hosts returns the host agents (with a host head; none without) in the
// order of their rows of Q and actions, after the agents': increasing
// PortID among the ports without Graph.Agent.
func (inf *Inference) Hosts() []topo.PortID {
	h := inf.c.hosts
	return h[:len(h):len(h)]
}

// Ports returns the number of ports (rows of Greedy's features).
func (inf *Inference) Ports() int { return inf.c.ports }

// Shape returns the shape of the model the Inference runs.
func (inf *Inference) Shape() Shape { return inf.c.shape }

// Workers returns the number of goroutines a step uses, the caller's
// included.
func (inf *Inference) Workers() int {
	if inf.c.wake == nil {
		return 1
	}
	return len(inf.c.wake) + 1
}

// Close stops the helper goroutines and waits for them to return; later
// steps run on the caller's alone. It is idempotent.
func (inf *Inference) Close() { inf.c.stop() }
