package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"graphcc/topo"
)

// inferMediumClos is 8 leaves × 8 hosts, 4 spines: 96 links, 192 ports,
// 128 agents, several chunks of work per round.
func inferMediumClos(t testing.TB) *topo.Fabric {
	t.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.HostsPerLeaf, c.Spines = 8, 8, 4
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// inferRandomGraph is an arbitrary graph of n ports: ingress lists of 0 to
// 11 random ports (repeats allowed), about half the ports agents.
func inferRandomGraph(r *rand.Rand, n int) *topo.Graph {
	g := &topo.Graph{Agent: make([]bool, n), InStart: []int32{0}, OutStart: make([]int32, n+1)}
	for p := range n {
		g.Agent[p] = r.IntN(2) == 0
		for range r.IntN(12) {
			g.In = append(g.In, topo.PortID(r.IntN(n)))
		}
		g.InStart = append(g.InStart, int32(len(g.In)))
	}
	g.Agent[n-1] = true
	return g
}

// inferCase is a model, a graph and features to compare the fast path on.
type inferCase struct {
	name string
	g    *topo.Graph
	s    Shape
}

func inferCases(t *testing.T) []inferCase {
	odd := Shape{Features: 9, Hidden: 12, K: 3, Actions: 7}
	return []inferCase{
		{"small", nnSmallClos(t).Graph(), DefaultShape()},
		{"default", nnDefaultClos(t).Graph(), DefaultShape()},
		{"medium", inferMediumClos(t).Graph(), DefaultShape()},
		{"random", inferRandomGraph(nnNewRand(3), 37), DefaultShape()},
		{"default-K1", nnDefaultClos(t).Graph(), Shape{Features: 9, Hidden: 24, K: 1, Actions: 30}},
		{"small-K3-H12", nnSmallClos(t).Graph(), odd},
		{"random-K3-H12", inferRandomGraph(nnNewRand(4), 29), odd},
		{"default-hosts", nnDefaultClos(t).Graph(), Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}},
		{"medium-hosts", inferMediumClos(t).Graph(), Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}},
		{"default-K1-hosts", nnDefaultClos(t).Graph(), Shape{Features: 9, Hidden: 24, K: 1, Actions: 30, HostActions: 5}},
		{"small-K3-H12-hosts", nnSmallClos(t).Graph(), Shape{Features: 9, Hidden: 12, K: 3, Actions: 7, HostActions: 4}},
	}
}

// inferModel returns a model of shape s with random weights and biases.
func inferModel(s Shape, seed uint64) *Model {
	m := NewModelShape(s, nnNewRand(seed))
	nnPerturbBiases(m, seed+1)
	return m
}

// inferKernels lists the kernel sets this CPU can run.
func inferKernels() []bool {
	if haveAVX2FMA() {
		return []bool{false, true}
	}
	return []bool{false}
}

func kernelName(asm bool) string {
	if asm {
		return "avx2"
	}
	return "go"
}

// TestInferenceMatchesForward: the float32 fast path's Q values are the
// float64 Forward's to within 1e-4 of the Q scale, and the greedy actions
// agree wherever the best two Q values are farther apart than that.
func TestInferenceMatchesForward(t *testing.T) {
	for _, tc := range inferCases(t) {
		for _, asm := range inferKernels() {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/%s/%d-workers", tc.name, kernelName(asm), workers), func(t *testing.T) {
					m := inferModel(tc.s, 71)
					ws := NewWorkspace(m, tc.g)
					inf := newInference(m, tc.g, workers, asm)
					defer inf.Close()
					if !slices.Equal(inf.Agents(), ws.Agents()) || !slices.Equal(inf.Hosts(), ws.Hosts()) || inf.Ports() != ws.Ports() {
						t.Fatal("agents, hosts or ports differ from the workspace's")
					}
					if (m.HostActions > 0) != (len(ws.Hosts()) > 0) {
						t.Fatalf("%d host agents with %d host actions", len(ws.Hosts()), m.HostActions)
					}
					for trial := range 3 {
						x := nnRandVec(nnNewRand(uint64(80+trial)), ws.Ports()*m.Features, 0, 1)
						want := make([]float64, ws.QLen())
						m.Forward(ws, x, want)
						na := len(ws.Agents())
						actions := make([]int, na+len(ws.Hosts()))
						inf.Greedy(x, actions)
						split := na * m.Actions
						inferCompare(t, inf.Q()[:split], want[:split], actions[:na], m.Actions)
						if m.HostActions > 0 {
							inferCompare(t, inf.Q()[split:], want[split:], actions[na:], m.HostActions)
						}
					}
				})
			}
		}
	}
}

// inferCompare checks q against the float64 reference want and the greedy
// actions against want's argmax.
func inferCompare(t *testing.T, q []float32, want []float64, actions []int, na int) {
	t.Helper()
	if len(q) != len(want) {
		t.Fatalf("%d Q values, want %d", len(q), len(want))
	}
	scale := 0.0
	for _, v := range want {
		scale = max(scale, math.Abs(v))
	}
	if scale == 0 {
		t.Fatal("all reference Q values are 0: the test checks nothing")
	}
	tol := 1e-4 * scale
	worst := 0.0
	for i, v := range want {
		d := math.Abs(float64(q[i]) - v)
		worst = max(worst, d)
		if d > tol {
			t.Fatalf("Q[%d] = %g, Forward %g: off by %.3g, more than %.3g", i, q[i], v, d, tol)
		}
	}
	checked := 0
	for i, a := range actions {
		row := want[i*na : (i+1)*na]
		best := argmax(row)
		second := math.Inf(-1)
		for j, v := range row {
			if j != best {
				second = max(second, v)
			}
		}
		if row[best]-second <= tol {
			continue
		}
		checked++
		if a != best {
			t.Fatalf("agent row %d: action %d, Forward's argmax %d (Q %g vs %g)", i, a, best, row[a], row[best])
		}
	}
	if checked == 0 {
		t.Fatal("no agent's best action is clear: the test checks nothing")
	}
	t.Logf("scale %.3g, worst |Q - Forward| %.3g (%.2g of the scale), %d of %d argmaxes compared",
		scale, worst, worst/scale, checked, len(actions))
}

// TestInferenceKernelsAgree: the AVX2 kernels and the pure-Go ones give the
// same Q values to float32 rounding, and the same greedy actions but for
// near ties.
func TestInferenceKernelsAgree(t *testing.T) {
	if !haveAVX2FMA() {
		t.Skip("this CPU has no AVX2+FMA: only the pure-Go kernels run")
	}
	for _, tc := range inferCases(t)[:4] {
		t.Run(tc.name, func(t *testing.T) {
			m := inferModel(tc.s, 91)
			fast, slow := newInference(m, tc.g, 1, true), newInference(m, tc.g, 1, false)
			x := nnRandVec(nnNewRand(92), fast.Ports()*m.Features, 0, 1)
			af, as := make([]int, len(fast.Agents())), make([]int, len(fast.Agents()))
			fast.Greedy(x, af)
			slow.Greedy(x, as)
			scale := 0.0
			for _, v := range slow.Q() {
				scale = max(scale, math.Abs(float64(v)))
			}
			worst := 0.0
			for i, v := range slow.Q() {
				worst = max(worst, math.Abs(float64(fast.Q()[i]-v)))
			}
			if worst > 1e-5*scale {
				t.Fatalf("worst |Q_avx2 - Q_go| = %.3g, more than 1e-5 of the scale %.3g", worst, scale)
			}
			for i := range af {
				if af[i] != as[i] {
					row := slow.Q()[i*m.Actions : (i+1)*m.Actions]
					if math.Abs(float64(row[af[i]]-row[as[i]])) > 1e-5*scale {
						t.Fatalf("agent row %d: action %d (avx2) vs %d (go)", i, af[i], as[i])
					}
				}
			}
			t.Logf("worst |Q_avx2 - Q_go| = %.3g of a scale %.3g", worst, scale)
		})
	}
}

// TestInferenceWorkersIdentical: any number of workers gives bit-identical
// Q values and actions.
func TestInferenceWorkersIdentical(t *testing.T) {
	g := inferMediumClos(t).Graph()
	for _, asm := range inferKernels() {
		t.Run(kernelName(asm), func(t *testing.T) {
			m := inferModel(DefaultShape(), 101)
			x := nnRandVec(nnNewRand(102), len(g.Agent)*NumFeatures, 0, 1)
			var q0 []float32
			var a0 []int
			for _, workers := range []int{1, 2, 3, 5} {
				inf := newInference(m, g, workers, asm)
				if inf.Workers() != workers {
					t.Fatalf("%d workers asked, %d running", workers, inf.Workers())
				}
				actions := make([]int, len(inf.Agents()))
				for range 3 { // and the same again on a reused Inference
					inf.Greedy(x, actions)
				}
				inf.Close()
				if q0 == nil {
					q0, a0 = slices.Clone(inf.Q()), actions
					continue
				}
				if !slices.Equal(inf.Q(), q0) || !slices.Equal(actions, a0) {
					t.Fatalf("%d workers: results differ from 1 worker's", workers)
				}
			}
		})
	}
}

func TestInferenceNoAllocs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		g       *topo.Graph
		workers int
	}{
		{"default", nnDefaultClos(t).Graph(), 0},
		{"medium/3-workers", inferMediumClos(t).Graph(), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(nnNewRand(1))
			inf := NewInference(m, tc.g, tc.workers)
			defer inf.Close()
			x := nnRandVec(nnNewRand(2), inf.Ports()*NumFeatures, 0, 1)
			actions := make([]int, len(inf.Agents()))
			if a := testing.AllocsPerRun(50, func() { inf.Greedy(x, actions) }); a != 0 {
				t.Errorf("Greedy: %v allocations per run, want 0", a)
			}
			if a := testing.AllocsPerRun(50, func() { inf.Load(m) }); a != 0 {
				t.Errorf("Load: %v allocations per run, want 0", a)
			}
		})
	}
}

// TestInferenceDefaultWorkers: the default fabric runs on the caller's
// goroutine alone; a graph past inferParallelEdges on GOMAXPROCS.
func TestInferenceDefaultWorkers(t *testing.T) {
	m := NewModel(nil)
	if w := NewInference(m, nnDefaultClos(t).Graph(), 0).Workers(); w != 1 {
		t.Errorf("default fabric: %d workers, want 1", w)
	}
	c := topo.DefaultClos()
	c.Leaves, c.HostsPerLeaf, c.Spines = 24, 16, 8
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Graph().In) < inferParallelEdges {
		t.Fatalf("%d edges: the test needs at least %d", len(f.Graph().In), inferParallelEdges)
	}
	inf := NewInference(m, f.Graph(), 0)
	defer inf.Close()
	if w, want := inf.Workers(), runtime.GOMAXPROCS(0); w != want {
		t.Errorf("%d edges: %d workers, want GOMAXPROCS %d", len(f.Graph().In), w, want)
	}
}

// TestInferenceLoad: parameters changed in place take effect at Load, not
// before.
func TestInferenceLoad(t *testing.T) {
	g := nnDefaultClos(t).Graph()
	m := inferModel(DefaultShape(), 111)
	inf := NewInference(m, g, 1)
	x := nnRandVec(nnNewRand(112), inf.Ports()*NumFeatures, 0, 1)
	actions := make([]int, len(inf.Agents()))
	inf.Greedy(x, actions)
	q0 := slices.Clone(inf.Q())
	m2 := inferModel(DefaultShape(), 113)
	m.CopyFrom(m2)
	inf.Greedy(x, actions)
	if !slices.Equal(inf.Q(), q0) {
		t.Fatal("Q changed before Load")
	}
	inf.Load(m)
	inf.Greedy(x, actions)
	if slices.Equal(inf.Q(), q0) {
		t.Fatal("Q unchanged after Load of other parameters")
	}
	ws := NewWorkspace(m, g)
	want := make([]float64, len(ws.Agents())*NumActions)
	m.Forward(ws, x, want)
	inferCompare(t, inf.Q(), want, actions, NumActions)
}

func TestInferenceCloseAndCleanup(t *testing.T) {
	g := inferMediumClos(t).Graph()
	m := inferModel(DefaultShape(), 121)
	x := nnRandVec(nnNewRand(122), len(g.Agent)*NumFeatures, 0, 1)
	inf := NewInference(m, g, 3)
	actions := make([]int, len(inf.Agents()))
	inf.Greedy(x, actions)
	q := slices.Clone(inf.Q())
	inf.Close()
	inf.Close()
	if inf.Workers() != 1 {
		t.Fatalf("%d workers after Close", inf.Workers())
	}
	inf.Greedy(x, actions)
	if !slices.Equal(inf.Q(), q) {
		t.Fatal("Q after Close differ")
	}

	// An Inference dropped without Close stops its goroutines once
	// collected.
	before := runtime.NumGoroutine()
	NewInference(m, g, 4).Greedy(x, actions)
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 10000 {
			t.Fatalf("%d goroutines, %d before the dropped Inference", runtime.NumGoroutine(), before)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

func TestInferencePanics(t *testing.T) {
	g := nnSmallClos(t).Graph()
	m := NewModel(nil)
	inf := NewInference(m, g, 1)
	na, n := len(inf.Agents()), inf.Ports()
	nnExpectPanic(t, "features has length", func() { inf.Greedy(make([]float64, n), make([]int, na)) })
	nnExpectPanic(t, "actions has length", func() { inf.Greedy(make([]float64, n*NumFeatures), make([]int, 1)) })
	other := NewModelShape(Shape{Features: 9, Hidden: 16, K: 2, Actions: 120}, nil)
	nnExpectPanic(t, "load a model of shape", func() { inf.Load(other) })
	bad := &topo.Graph{Agent: []bool{true, false}, InStart: []int32{0, 1, 2}, In: []topo.PortID{1, 2}}
	nnExpectPanic(t, "ingress port 2 outside the 2 ports", func() { NewInference(m, bad, 1) })
}

// inferRandF32 returns n float32s uniform in [-1, 1).
func inferRandF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(2*r.Float64() - 1)
	}
	return v
}

// TestGemmKernels compares both gemm paths with a float64 reference on
// assorted shapes and strides, and checks that nothing outside the output
// is written.
func TestGemmKernels(t *testing.T) {
	r := nnNewRand(131)
	for _, tc := range []struct{ rows, in, cols int }{
		{4, 9, 24}, {8, 72, 24}, {4, 24, 120}, {5, 24, 48}, {3, 7, 24}, {12, 1, 24}, {4, 24, 30}, {7, 13, 11}, {1, 24, 8},
	} {
		for _, asm := range inferKernels() {
			for _, relu := range []bool{false, true} {
				ldx, ldw, ldy := tc.in+3, tc.cols+5, tc.cols+2
				x := inferRandF32(r, (tc.rows-1)*ldx+tc.in)
				w := inferRandF32(r, (tc.in-1)*ldw+tc.cols)
				bias := inferRandF32(r, tc.cols)
				const guard = 12345
				y := make([]float32, tc.rows*ldy+8)
				for i := range y {
					y[i] = guard
				}
				gemm(asm, y, ldy, x, ldx, tc.rows, tc.in, w, ldw, tc.cols, bias, relu)
				for i := range tc.rows {
					for c := range ldy {
						got := y[i*ldy+c]
						if c >= tc.cols {
							if got != guard {
								t.Fatalf("%+v %s: wrote y[%d][%d] past the columns", tc, kernelName(asm), i, c)
							}
							continue
						}
						want := float64(bias[c])
						for j := range tc.in {
							want += float64(x[i*ldx+j]) * float64(w[j*ldw+c])
						}
						if relu {
							want = max(want, 0)
						}
						if math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want))*float64(tc.in) {
							t.Fatalf("%+v %s relu=%v: y[%d][%d] = %g, want %g", tc, kernelName(asm), relu, i, c, got, want)
						}
					}
				}
				for _, v := range y[tc.rows*ldy:] {
					if v != guard {
						t.Fatalf("%+v %s: wrote past the last row", tc, kernelName(asm))
					}
				}
			}
		}
	}
	nnExpectPanic(t, "gemm of 4 rows", func() {
		gemm(false, make([]float32, 24), 24, make([]float32, 96), 24, 4, 24, make([]float32, 576), 24, 24, make([]float32, 24), false)
	})
}

// TestEdgeKernels compares both edge paths with a float64 reference for 0
// to 9 senders (every tail of a batch of four), repeats included.
func TestEdgeKernels(t *testing.T) {
	const h, rows = 24, 17
	r := nnNewRand(141)
	a := inferRandF32(r, h)
	b := inferRandF32(r, rows*h)
	w2 := inferRandF32(r, h*h)
	b2 := inferRandF32(r, h)
	for n := range 10 {
		senders := make([]int32, n)
		for i := range senders {
			senders[i] = int32(r.IntN(rows))
		}
		want := make([]float64, 2*h)
		for e, u := range senders {
			for i := range h {
				m := float64(b2[i])
				for j := range h {
					m += max(float64(a[j])+float64(b[int(u)*h+j]), 0) * float64(w2[j*h+i])
				}
				if e == 0 || m < want[i] {
					want[i] = m
				}
				if e == 0 || m > want[h+i] {
					want[h+i] = m
				}
			}
		}
		for _, asm := range inferKernels() {
			mnmx := inferRandF32(r, 2*h+4)
			tail := slices.Clone(mnmx[2*h:])
			edges(asm, mnmx, a, b, h, senders, w2, b2, make([]float32, 8*h), make([]float32, h))
			for i, v := range want {
				if math.Abs(float64(mnmx[i])-v) > 1e-5*(1+math.Abs(v)) {
					t.Fatalf("%d senders %s: element %d = %g, want %g", n, kernelName(asm), i, mnmx[i], v)
				}
			}
			if !slices.Equal(mnmx[2*h:], tail) {
				t.Fatalf("%d senders %s: wrote past the 48 outputs", n, kernelName(asm))
			}
		}
	}
}

// TestArgmaxKernels: both argmax kernels pick the lowest index of the
// largest value, ties included.
func TestArgmaxKernels(t *testing.T) {
	r := nnNewRand(161)
	for _, n := range []int{1, 7, 8, 16, 120, 128} {
		for trial := range 200 {
			q := inferRandF32(r, n)
			switch trial % 4 {
			case 1: // a tie for the maximum
				i, j := r.IntN(n), r.IntN(n)
				q[i], q[j] = 2, 2
			case 2: // all equal
				for i := range q {
					q[i] = -0.5
				}
			case 3: // signed zeros at the top
				for i := range q {
					q[i] = -1
				}
				q[r.IntN(n)] = float32(math.Copysign(0, -1))
				q[r.IntN(n)] = 0
			}
			want := 0
			for i, v := range q {
				if v > q[want] {
					want = i
				}
			}
			for _, asm := range inferKernels() {
				if got := argmaxQ(asm, q); got != want {
					t.Fatalf("n %d trial %d %s: argmax %d, want %d (%v)", n, trial, kernelName(asm), got, want, q)
				}
			}
		}
	}
}

func TestAlignedFloat32s(t *testing.T) {
	for n := range 40 {
		s := alignedFloat32s(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("alignedFloat32s(%d): len %d cap %d", n, len(s), cap(s))
		}
		if n > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(s)))%32 != 0 {
			t.Fatalf("alignedFloat32s(%d) is not 32-byte aligned", n)
		}
	}
}

// inferStepMACs returns the multiply-adds one step of the message-passing
// network needs on g, counting what the fast path computes for real (not
// the padding of a batch): round 1's inputs (Features wide), every port's
// messages and update in rounds 1..K-1 and its next round's a and b, the
// agents' messages, update and readout in round K.
func inferStepMACs(g *topo.Graph, s Shape) int64 {
	H, F, A := int64(s.Hidden), int64(s.Features), int64(s.Actions)
	ports := int64(len(g.Agent))
	var agents, agentEdges int64
	for p, ok := range g.Agent {
		if ok {
			agents++
			agentEdges += int64(g.InStart[p+1] - g.InStart[p])
		}
	}
	upd := 3*H*H + H*H
	macs := ports * 2 * F * H
	macs += int64(s.K-1) * (int64(len(g.In))*H*H + ports*(upd+2*H*H))
	macs += agentEdges*H*H + agents*(upd+H*H+H*A)
	return macs
}

// nnBenchInfer is Inference.Greedy alone, on given features.
func nnBenchInfer(b *testing.B, g *topo.Graph, asm bool) {
	if asm && !haveAVX2FMA() {
		b.Skip("this CPU has no AVX2+FMA")
	}
	inf := newInference(NewModel(nnNewRand(1)), g, 0, asm)
	defer inf.Close()
	x := nnRandVec(nnNewRand(2), inf.Ports()*NumFeatures, 0, 1)
	actions := make([]int, len(inf.Agents()))
	b.ReportAllocs()
	for b.Loop() {
		inf.Greedy(x, actions)
	}
	b.ReportMetric(float64(inf.Workers()), "workers")
	b.ReportMetric(2*float64(inferStepMACs(g, DefaultShape()))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkInferDefault(b *testing.B)   { nnBenchInfer(b, nnDefaultClos(b).Graph(), true) }
func BenchmarkInfer10k(b *testing.B)       { nnBenchInfer(b, nnBigClos(b).Graph(), true) }
func BenchmarkInferGoDefault(b *testing.B) { nnBenchInfer(b, nnDefaultClos(b).Graph(), false) }
func BenchmarkInferGo10k(b *testing.B)     { nnBenchInfer(b, nnBigClos(b).Graph(), false) }

// BenchmarkEdgeKernel is one receiver's 80 messages (a leaf port of the
// 10k fabric) on the kernel Inference uses.
func BenchmarkEdgeKernel(b *testing.B) {
	const h, n = 24, 80
	r := nnNewRand(151)
	a, bs, w2, b2 := inferRandF32(r, h), inferRandF32(r, n*h), inferRandF32(r, h*h), inferRandF32(r, h)
	senders := make([]int32, n)
	for i := range senders {
		senders[i] = int32(i)
	}
	mnmx, rs, m := alignedFloat32s(2*h), alignedFloat32s(8*h), alignedFloat32s(h)
	asm := haveAVX2FMA()
	for b.Loop() {
		edges(asm, mnmx, a, bs, h, senders, w2, b2, rs, m)
	}
	b.ReportMetric(2*float64(n*h*h)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
