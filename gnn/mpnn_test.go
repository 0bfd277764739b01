package gnn

import (
	"graphcc/internal/testfabric"
	"math"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

// nnSmallClos is 2 leaves, 1 spine, 2 hosts per leaf: 6 links, 12 ports, 6 agents.
func nnSmallClos(t testing.TB) *topo.Fabric {
	t.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 1, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func nnDefaultClos(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// nnPerturbBiases makes every bias non-zero so that its gradient is checked
// at a generic point.
func nnPerturbBiases(m *Model, seed uint64) {
	r := nnNewRand(seed)
	for _, l := range []MLP{m.Msg, m.Upd, m.Out} {
		for _, b := range [][]float64{l.b1(m.Params), l.b2(m.Params)} {
			for i := range b {
				b[i] = 0.1 * (2*r.Float64() - 1)
			}
		}
	}
}

// nnReferenceForward is the model written out literally, with no algebra:
// full MLP_msg on [h_v, h_u] for every edge, every port in every round.
func nnReferenceForward(m *Model, g *topo.Graph, x []float64) [][]float64 {
	H, F := m.Hidden, m.Features
	n := len(g.Agent)
	h := make([][]float64, n)
	for v := range h {
		h[v] = make([]float64, H)
		copy(h[v], x[v*F:(v+1)*F])
	}
	hid := make([]float64, H)
	for range m.K {
		next := make([][]float64, n)
		for v := range n {
			mn, mx := make([]float64, H), make([]float64, H)
			in := g.Ingress(topo.PortID(v))
			for j, u := range in {
				msg := make([]float64, H)
				m.Msg.Forward(m.Params, slices.Concat(h[v], h[u]), hid, msg)
				for i := range H {
					if j == 0 || msg[i] < mn[i] {
						mn[i] = msg[i]
					}
					if j == 0 || msg[i] > mx[i] {
						mx[i] = msg[i]
					}
				}
			}
			next[v] = make([]float64, H)
			m.Upd.Forward(m.Params, slices.Concat(h[v], mn, mx), hid, next[v])
		}
		h = next
	}
	var q [][]float64
	for v, ok := range g.Agent {
		if ok {
			qv := make([]float64, m.Actions)
			m.Out.Forward(m.Params, h[v], hid, qv)
			q = append(q, qv)
		}
	}
	return q
}

func TestMPNNParamCount(t *testing.T) {
	m := NewModel(nnNewRand(1))
	// msg 48·24+24+24·24+24 = 1776, upd 72·24+24+24·24+24 = 2352, out 24·24+24+24·120+120 = 3600.
	if got, want := len(m.Params), 1776+2352+3600; got != want || DefaultShape().NumParams() != want {
		t.Fatalf("%d parameters, want %d", got, want)
	}
	if m.Out.End() != len(m.Params) || m.Upd.Off != m.Msg.End() || m.Out.Off != m.Upd.End() {
		t.Fatalf("layout %+v %+v %+v does not tile %d parameters", m.Msg, m.Upd, m.Out, len(m.Params))
	}
}

func TestMPNNAgentsOrder(t *testing.T) {
	f := nnDefaultClos(t)
	ws := NewWorkspace(NewModel(nil), f.Graph())
	a := ws.Agents()
	if len(a) != 40 || !slices.IsSorted(a) || !slices.Equal(a, f.Agents()) {
		t.Fatalf("agents %v, want the fabric's 40 switch ports in increasing order", a)
	}
	for _, p := range a {
		if !f.Nodes[f.Ports[p].Src].Switch {
			t.Fatalf("agent %d is a host port", p)
		}
	}
}

func TestMPNNForwardReference(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *topo.Fabric
		s    Shape
	}{
		{"small", nnSmallClos(t), DefaultShape()},
		{"default", nnDefaultClos(t), DefaultShape()},
		{"small-K3", nnSmallClos(t), Shape{Features: 9, Hidden: 12, K: 3, Actions: 7}},
		{"default-K1", nnDefaultClos(t), Shape{Features: 4, Hidden: 4, K: 1, Actions: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModelShape(tc.s, nnNewRand(11))
			nnPerturbBiases(m, 12)
			g := tc.f.Graph()
			ws := NewWorkspace(m, g)
			x := nnRandVec(nnNewRand(13), len(g.Agent)*m.Features, 0, 1)
			q := make([]float64, len(ws.Agents())*m.Actions)
			m.Forward(ws, x, q)
			ref := nnReferenceForward(m, g, x)
			worst := 0.0
			for i, qv := range ref {
				for a, want := range qv {
					got := q[i*m.Actions+a]
					d := math.Abs(got - want)
					worst = max(worst, d)
					if d > 1e-12*max(1, math.Abs(want)) {
						t.Fatalf("agent %d action %d: Q %.17g, reference %.17g", ws.Agents()[i], a, got, want)
					}
				}
			}
			t.Logf("worst |Q - reference| = %.2g", worst)
		})
	}
}

// mpnnLoss sets up loss = Σ c·Q on fabric f and returns the model, the
// parameter gradient at the current parameters and the loss function.
func nnMpnnSetup(t *testing.T, f *topo.Fabric, s Shape, oneHot bool) (*Model, []float64, func() float64) {
	t.Helper()
	m := NewModelShape(s, nnNewRand(21))
	nnPerturbBiases(m, 22)
	g := f.Graph()
	ws := NewWorkspace(m, g)
	r := nnNewRand(23)
	x := nnRandVec(r, len(g.Agent)*m.Features, 0, 1)
	na := len(ws.Agents())
	c := make([]float64, ws.QLen())
	// The switch agents' rows of Actions, then the host agents' of
	// HostActions (with a host head).
	rows := make([][2]int, 0, na+len(ws.Hosts()))
	for i := range na {
		rows = append(rows, [2]int{i * m.Actions, m.Actions})
	}
	for j := range ws.Hosts() {
		rows = append(rows, [2]int{na*m.Actions + j*m.HostActions, m.HostActions})
	}
	for _, row := range rows {
		o, n := row[0], row[1]
		if oneHot { // the DQN case: one taken action per agent
			c[o+r.IntN(n)] = 2*r.Float64() - 1
		} else {
			copy(c[o:o+n], nnRandVec(r, n, -1, 1))
		}
	}
	q := make([]float64, len(c))
	loss := func() float64 {
		m.Forward(ws, x, q)
		return dot(c, q)
	}
	loss()
	grad := make([]float64, len(m.Params))
	m.Backward(ws, c, grad)
	return m, grad, loss
}

// TestMPNNGradient checks the MPNN's analytic gradient against finite
// differences: at every parameter on the small fabrics, at 40 random ones
// on the default Clos. With -short (make race, where the race detector
// makes the differences several times slower) it checks 300 random
// parameters of the small fabrics instead of all.
func TestMPNNGradient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		f      *topo.Fabric
		s      Shape
		oneHot bool
		coords int // 0: every parameter
	}{
		{"small/dense", nnSmallClos(t), DefaultShape(), false, 0},
		{"small/one-hot", nnSmallClos(t), DefaultShape(), true, 0},
		{"small/K3", nnSmallClos(t), Shape{Features: 9, Hidden: 10, K: 3, Actions: 5}, false, 0},
		{"default/dense", nnDefaultClos(t), DefaultShape(), false, 40},
		{"default/one-hot", nnDefaultClos(t), DefaultShape(), true, 40},
		{"small/hosts", nnSmallClos(t), Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}, false, 0},
		{"small/hosts/one-hot", nnSmallClos(t), Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}, true, 0},
		{"small/hosts/K1", nnSmallClos(t), Shape{Features: 9, Hidden: 10, K: 1, Actions: 5, HostActions: 3}, false, 0},
		{"default/hosts", nnDefaultClos(t), Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}, true, 40},
	} {
		if tc.coords == 0 && testing.Short() {
			tc.coords = 300
		}
		t.Run(tc.name, func(t *testing.T) {
			m, grad, loss := nnMpnnSetup(t, tc.f, tc.s, tc.oneHot)
			idx := nnAllIndices(len(m.Params))
			if tc.coords > 0 {
				r := nnNewRand(31)
				idx = idx[:0]
				// Random coordinates from each MLP.
				mlps := []MLP{m.Msg, m.Upd, m.Out}
				if m.HostActions > 0 {
					mlps = append(mlps, m.HostOut)
				}
				for _, l := range mlps {
					for range tc.coords / 3 {
						idx = append(idx, l.Off+r.IntN(l.NumParams()))
					}
				}
			}
			nonZero := 0
			for _, i := range idx {
				if grad[i] != 0 {
					nonZero++
				}
			}
			worst := nnCheckGrad(t, m.Params, grad, idx, loss)
			t.Logf("%d of %d coordinates checked (%d non-zero): worst relative error %.2g", len(idx), len(m.Params), nonZero, worst)
			if nonZero < len(idx)/3 {
				t.Errorf("only %d of %d checked gradients are non-zero", nonZero, len(idx))
			}
		})
	}
}

// TestMPNNMinMaxRouting checks the gradient reaching MLP_msg through the min and
// max halves separately, by making MLP_upd read only one half of M.
func TestMPNNMinMaxRouting(t *testing.T) {
	for _, half := range []string{"min", "max"} {
		t.Run(half, func(t *testing.T) {
			f := nnSmallClos(t)
			m := NewModel(nnNewRand(41))
			nnPerturbBiases(m, 42)
			H := m.Hidden
			w1 := m.Upd.w1(m.Params) // rows: h_v (H), min (H), max (H)
			drop := 2 * H            // zero the max rows
			if half == "max" {
				drop = H
			}
			clear(w1[drop*H : (drop+H)*H])
			g := f.Graph()
			ws := NewWorkspace(m, g)
			x := nnRandVec(nnNewRand(43), len(g.Agent)*m.Features, 0, 1)
			c := nnRandVec(nnNewRand(44), len(ws.Agents())*m.Actions, -1, 1)
			q := make([]float64, len(c))
			loss := func() float64 { m.Forward(ws, x, q); return dot(c, q) }
			loss()
			grad := make([]float64, len(m.Params))
			m.Backward(ws, c, grad)
			idx := make([]int, 0, m.Msg.NumParams())
			for i := m.Msg.Off; i < m.Msg.End(); i++ {
				idx = append(idx, i)
			}
			worst := nnCheckGrad(t, m.Params, grad, idx, loss)
			t.Logf("MLP_msg through the %s half only: worst relative error %.2g", half, worst)
		})
	}
}

func TestMPNNForwardBackwardNoAllocs(t *testing.T) {
	f := nnDefaultClos(t)
	m := NewModel(nnNewRand(1))
	g := f.Graph()
	ws := NewWorkspace(m, g)
	x := nnRandVec(nnNewRand(2), len(g.Agent)*NumFeatures, 0, 1)
	q := make([]float64, len(ws.Agents())*NumActions)
	dq := make([]float64, len(q))
	for i := range ws.Agents() {
		dq[i*NumActions+i] = 1
	}
	grad := make([]float64, len(m.Params))
	actions := make([]int, len(ws.Agents()))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Forward", func() { m.Forward(ws, x, q) }},
		{"Backward", func() { m.Backward(ws, dq, grad) }},
		{"Greedy", func() { m.Greedy(ws, x, actions) }},
	} {
		if a := testing.AllocsPerRun(50, tc.f); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tc.name, a)
		}
	}
}

func TestMPNNGreedy(t *testing.T) {
	f := nnDefaultClos(t)
	m := NewModel(nnNewRand(5))
	g := f.Graph()
	ws := NewWorkspace(m, g)
	x := nnRandVec(nnNewRand(6), len(g.Agent)*NumFeatures, 0, 1)
	q := make([]float64, len(ws.Agents())*NumActions)
	m.Forward(ws, x, q)
	actions := make([]int, len(ws.Agents()))
	m.Greedy(ws, x, actions)
	if !slices.Equal(ws.Q(), q) {
		t.Fatal("Greedy's Q differ from Forward's")
	}
	for i, a := range actions {
		row := q[i*NumActions : (i+1)*NumActions]
		if want := slices.Index(row, slices.Max(row)); a != want {
			t.Fatalf("agent %d: action %d, want %d", i, a, want)
		}
	}
}

func TestMPNNSameSeedSameModel(t *testing.T) {
	a, b, c := NewModel(nnNewRand(9)), NewModel(nnNewRand(9)), NewModel(nnNewRand(10))
	if !slices.Equal(a.Params, b.Params) {
		t.Fatal("same seed, different parameters")
	}
	if slices.Equal(a.Params, c.Params) {
		t.Fatal("different seeds, same parameters")
	}
	cl := a.Clone()
	a.Params[3]++
	if cl.Params[3] == a.Params[3] {
		t.Fatal("Clone shares parameters")
	}
	cl.CopyFrom(a)
	if !slices.Equal(cl.Params, a.Params) {
		t.Fatal("CopyFrom did not copy")
	}
	nnExpectPanic(t, "copy from a model of shape", func() {
		cl.CopyFrom(NewModelShape(Shape{Features: 9, Hidden: 16, K: 2, Actions: 120}, nil))
	})
}

// nnIngressDist returns the number of ingress hops from every port to v: h^k_v
// depends on exactly the ports within k hops.
func nnIngressDist(g *topo.Graph, v topo.PortID) []int {
	d := make([]int, len(g.Agent))
	for i := range d {
		d[i] = -1
	}
	d[v] = 0
	queue := []topo.PortID{v}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, u := range g.Ingress(p) {
			if d[u] < 0 {
				d[u] = d[p] + 1
				queue = append(queue, u)
			}
		}
	}
	return d
}

// TestMPNNLocality: an agent's Q depends only on the ports within K ingress hops.
// Changing the features of any port farther away leaves it bit-identical;
// changing a port within K hops changes it.
func TestMPNNLocality(t *testing.T) {
	f := nnDefaultClos(t)
	m := NewModel(nnNewRand(51))
	nnPerturbBiases(m, 52)
	g := f.Graph()
	ws := NewWorkspace(m, g)
	n := len(g.Agent)
	x := nnRandVec(nnNewRand(53), n*NumFeatures, 0, 1)
	agents := ws.Agents()
	q0 := make([]float64, len(agents)*NumActions)
	m.Forward(ws, x, q0)
	dist := make([][]int, len(agents))
	for i, v := range agents {
		dist[i] = nnIngressDist(g, v)
	}
	q := make([]float64, len(q0))
	far, near, changed := 0, 0, 0
	for u := range n {
		x2 := slices.Clone(x)
		for j := range NumFeatures {
			x2[u*NumFeatures+j] += 0.3
		}
		m.Forward(ws, x2, q)
		for i, v := range agents {
			same := slices.Equal(q[i*NumActions:(i+1)*NumActions], q0[i*NumActions:(i+1)*NumActions])
			switch d := dist[i][u]; {
			case d > K || d < 0:
				far++
				if !same {
					t.Fatalf("agent %d: Q changed with the features of port %d, %d hops away", v, u, d)
				}
			default:
				// A nearer port may still leave Q bit-identical: a
				// message that wins no element of the min or the max
				// has no influence at all.
				near++
				if !same {
					changed++
				}
			}
		}
	}
	if far == 0 || changed < near/2 {
		t.Fatalf("%d far pairs, %d of %d near pairs changed: the test checks nothing", far, changed, near)
	}
	t.Logf("%d (agent, port) pairs beyond %d hops unchanged; %d of %d within changed", far, K, changed, near)
}

// TestMPNNPermutation: swapping two hosts of one leaf (their features on both
// directions of their links) swaps the Q values of the leaf's ports towards
// them and leaves every other agent's Q bit-identical (min and max do not
// depend on the order of the neighbours).
func TestMPNNPermutation(t *testing.T) {
	f := nnDefaultClos(t)
	m := NewModel(nnNewRand(61))
	nnPerturbBiases(m, 62)
	g := f.Graph()
	ws := NewWorkspace(m, g)
	n := len(g.Agent)
	x := nnRandVec(nnNewRand(63), n*NumFeatures, 0, 1)
	agents := ws.Agents()
	q0 := make([]float64, len(agents)*NumActions)
	m.Forward(ws, x, q0)

	h0, _ := f.NodeByName("h0")
	h1, _ := f.NodeByName("h1")
	p0, p1 := f.HostPort(h0), f.HostPort(h1) // host → leaf
	swap := map[topo.PortID]topo.PortID{p0: p1, p1: p0, p0.Reverse(): p1.Reverse(), p1.Reverse(): p0.Reverse()}
	x2 := slices.Clone(x)
	for a, b := range swap {
		copy(x2[int(a)*NumFeatures:(int(a)+1)*NumFeatures], x[int(b)*NumFeatures:(int(b)+1)*NumFeatures])
	}
	q := make([]float64, len(q0))
	m.Forward(ws, x2, q)
	row := func(q []float64, p topo.PortID) []float64 {
		i, ok := slices.BinarySearch(agents, p)
		if !ok {
			t.Fatalf("port %d is not an agent", p)
		}
		return q[i*NumActions : (i+1)*NumActions]
	}
	for _, v := range agents {
		w := v
		if s, ok := swap[v]; ok {
			w = s
		}
		if !slices.Equal(row(q, v), row(q0, w)) {
			t.Errorf("agent %d after the swap: Q differ from agent %d's before", v, w)
		}
	}
	if slices.Equal(row(q0, p0.Reverse()), row(q0, p1.Reverse())) {
		t.Fatal("the two swapped agents had equal Q: the test checks nothing")
	}
}

func TestMPNNWorkspaceShapePanics(t *testing.T) {
	f := nnSmallClos(t)
	m := NewModel(nnNewRand(1))
	ws := NewWorkspace(m, f.Graph())
	n, na := ws.Ports(), len(ws.Agents())
	nnExpectPanic(t, "features has length", func() { m.Forward(ws, make([]float64, n), make([]float64, na*NumActions)) })
	nnExpectPanic(t, "Q values has length", func() { m.Forward(ws, make([]float64, n*NumFeatures), make([]float64, na)) })
	nnExpectPanic(t, "Q gradient has length", func() { m.Backward(ws, make([]float64, 1), make([]float64, len(m.Params))) })
	nnExpectPanic(t, "gradient has length", func() { m.Backward(ws, make([]float64, na*NumActions), make([]float64, 1)) })
	other := NewModelShape(Shape{Features: 9, Hidden: 16, K: 2, Actions: 120}, nil)
	nnExpectPanic(t, "workspace of shape", func() { other.Forward(ws, make([]float64, n*NumFeatures), make([]float64, na*NumActions)) })
	nnExpectPanic(t, "hidden 8 must be at least the 9 features", func() { NewModelShape(Shape{Features: 9, Hidden: 8, K: 2, Actions: 1}, nil) })
}

// nnBigClos is about 10,000 ports: 64 leaves × 64 hosts, 16 spines: 5,120
// links, 10,240 ports, 6,144 agents, 479,232 ingress edges.
func nnBigClos(b *testing.B) *topo.Fabric {
	c := topo.DefaultClos()
	c.Leaves, c.HostsPerLeaf, c.Spines = 64, 64, 16
	f, err := topo.Clos(c)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// nnBenchStep is one control step of the GraphCC policy, GraphCC.Decide:
// the Featurizer's Observe of a synthetic telemetry, the float32 fast path
// (K = 2 rounds of message passing, readout, argmax: Inference.Greedy) and
// the agents' ECN settings. It reports the useful multiply-adds per step
// as GFLOP/s (2 flops each).
func nnBenchStep(b *testing.B, f *topo.Fabric, set FeatureSet) {
	nnBenchStepModel(b, f, NewModelSet(set, nnNewRand(1)))
}

// nnBenchStepModel is nnBenchStep of model m; with a host head the step
// also reads out the host agents and writes their settings (DecideHosts).
// GFLOP/s counts the switch readout only.
func nnBenchStepModel(b *testing.B, f *topo.Fabric, m *Model) {
	g := mustGraphCC(b, m, f, FeatureConfig{})
	defer g.Inference().Close()
	hosts := make([]control.HostParams, len(f.Ports))
	tel := nnBenchTelemetry(f, 2)
	for i := range tel.Ports {
		tel.Ports[i].FlowStarts = int64(i) % (tel.Ports[i].EnqPackets() + 1)
	}
	ecn := control.StaticSettings(f)
	b.ReportAllocs()
	for b.Loop() {
		g.Decide(tel, ecn)
		if g.DecidesHosts() {
			g.DecideHosts(tel, hosts)
		}
	}
	gr := f.Graph()
	b.ReportMetric(float64(len(gr.Agent)), "ports")
	b.ReportMetric(float64(len(g.Agents())), "agents")
	b.ReportMetric(float64(len(gr.In)), "edges")
	b.ReportMetric(float64(g.Inference().Workers()), "workers")
	b.ReportMetric(2*float64(inferStepMACs(gr, g.Model().Shape))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// nnBenchTelemetry is one interval's telemetry with random utilization,
// marking rate and queue on every port.
func nnBenchTelemetry(f *topo.Fabric, seed uint64) *control.Telemetry {
	r := nnNewRand(seed)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300_000)), f.Ports[i].Rate)
	}
	return tel
}

// nnBenchForwardF64 is the float64 reference of the inference in a step:
// Model.Greedy (Forward and argmax) on given features.
func nnBenchForwardF64(b *testing.B, f *topo.Fabric) {
	m := NewModel(nnNewRand(1))
	g := f.Graph()
	ws := NewWorkspace(m, g)
	x := nnRandVec(nnNewRand(2), len(g.Agent)*NumFeatures, 0, 1)
	actions := make([]int, len(ws.Agents()))
	b.ReportAllocs()
	for b.Loop() {
		m.Greedy(ws, x, actions)
	}
	b.ReportMetric(float64(len(g.In)), "edges")
	b.ReportMetric(2*float64(inferStepMACs(g, DefaultShape()))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkStepDefault(b *testing.B) { nnBenchStep(b, nnDefaultClos(b), FeaturesPaper) }
func BenchmarkStep10k(b *testing.B)     { nnBenchStep(b, nnBigClos(b), FeaturesPaper) }

// BenchmarkStepDefaultHosts is BenchmarkStepDefault with a host head: the
// 24 host agents read out and their settings written too.
func BenchmarkStepDefaultHosts(b *testing.B) {
	s := DefaultShape()
	s.HostActions = NumHostActions
	nnBenchStepModel(b, nnDefaultClos(b), NewModelShape(s, nnNewRand(1)))
}

// BenchmarkStepDefaultFlowMix is BenchmarkStepDefault on the flow-mix
// features (18 per port).
func BenchmarkStepDefaultFlowMix(b *testing.B) {
	nnBenchStep(b, nnDefaultClos(b), FeaturesFlowMix)
}

func BenchmarkForwardF64Default(b *testing.B) { nnBenchForwardF64(b, nnDefaultClos(b)) }
func BenchmarkForwardF64_10k(b *testing.B)    { nnBenchForwardF64(b, nnBigClos(b)) }

// BenchmarkTrainStep is Forward + Backward with one taken action per agent
// on the default Clos, the cost of one transition of a minibatch.
func BenchmarkTrainStep(b *testing.B) {
	f := nnDefaultClos(b)
	m := NewModel(nnNewRand(1))
	g := f.Graph()
	ws := NewWorkspace(m, g)
	x := nnRandVec(nnNewRand(2), len(g.Agent)*NumFeatures, 0, 1)
	na := len(ws.Agents())
	q, dq := make([]float64, na*NumActions), make([]float64, na*NumActions)
	for i := range na {
		dq[i*NumActions+(7*i)%NumActions] = 1
	}
	grad := make([]float64, len(m.Params))
	b.ReportAllocs()
	for b.Loop() {
		m.Forward(ws, x, q)
		m.Backward(ws, dq, grad)
	}
}
