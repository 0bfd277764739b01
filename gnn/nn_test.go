package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func nnNewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func nnRandVec(r *rand.Rand, n int, lo, hi float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = lo + (hi-lo)*r.Float64()
	}
	return x
}

// nnRelErr is the relative error of a numerical derivative num against the
// analytic ana.
func nnRelErr(ana, num float64) float64 {
	if ana == num {
		return 0
	}
	return math.Abs(ana-num) / max(math.Abs(ana), math.Abs(num))
}

// Gradient checks: five-point central differences (truncation error
// O(h⁴)), relative error below gradTol wherever the derivative is above the
// noise floor of the differences, gradNoise times the largest component
// checked (analytic or numerical); below that floor, absolute error below
// gradTol times the floor. The floor exists because float64 round-off in
// the loss, about 1e-16 |L| / h (1e-11 here), swamps derivatives ten
// thousand times smaller than the largest. A check whose analytic and
// numerical derivatives are all zero fails: it would pass any gradient
// code, since it tests nothing.
const (
	gradStep  = 1e-5
	gradTol   = 1e-6
	gradNoise = 1e-4
)

// gradReport is the outcome of gradCheck: the largest relative error among
// the coordinates above the noise floor, how many were, and a message per
// coordinate that failed (or one if the check tested nothing).
type gradReport struct {
	worst  float64
	above  int
	floor  float64
	errors []string
}

// gradCheck compares grad (the analytic gradient of loss at params) with
// finite differences at the coordinates idx. It leaves params as it found
// them and calls loss once more at the end, so that state loss leaves
// behind (activations) is that of params.
func gradCheck(params, grad []float64, idx []int, loss func() float64) gradReport {
	const h = gradStep
	num := make([]float64, len(idx))
	scale := 0.0
	for k, i := range idx {
		p := params[i]
		at := func(d float64) float64 { params[i] = p + d; return loss() }
		num[k] = (8*(at(h)-at(-h)) - (at(2*h) - at(-2*h))) / (12 * h)
		params[i] = p
		scale = max(scale, math.Abs(grad[i]), math.Abs(num[k]))
	}
	loss()
	r := gradReport{floor: gradNoise * scale}
	if scale == 0 {
		r.errors = append(r.errors, fmt.Sprintf("the analytic and numerical derivatives are zero at all %d coordinates checked: the check tests nothing", len(idx)))
		return r
	}
	for k, i := range idx {
		a, n := grad[i], num[k]
		big := max(math.Abs(a), math.Abs(n)) >= r.floor
		e := nnRelErr(a, n)
		switch {
		case big && e > gradTol:
			r.errors = append(r.errors, fmt.Sprintf("d/dθ[%d]: analytic %.12g, numerical %.12g, relative error %.3g", i, a, n, e))
		case !big && math.Abs(a-n) > gradTol*r.floor:
			r.errors = append(r.errors, fmt.Sprintf("d/dθ[%d]: analytic %.12g, numerical %.12g, absolute error %.3g over %.3g", i, a, n, math.Abs(a-n), gradTol*r.floor))
		}
		if big {
			r.worst = max(r.worst, e)
			r.above++
		}
	}
	return r
}

// nnCheckGrad is gradCheck failing t on every error; it returns the
// largest relative error among the coordinates above the noise floor.
func nnCheckGrad(t *testing.T, params, grad []float64, idx []int, loss func() float64) float64 {
	t.Helper()
	r := gradCheck(params, grad, idx, loss)
	for _, e := range r.errors {
		t.Error(e)
	}
	t.Logf("%d of %d coordinates above the noise floor %.2g", r.above, len(idx), r.floor)
	return r.worst
}

// TestGradCheck checks the checker: on a function whose gradient is known,
// the true gradient passes and every kind of wrong one fails, as does a
// check of a loss that does not depend on the coordinates checked.
func TestGradCheck(t *testing.T) {
	const n = 12
	r := nnNewRand(9)
	a, b := nnRandVec(r, n, 0.5, 2), nnRandVec(r, n, -1, 1)
	b[3] = 1e-7 // a derivative below the noise floor
	params := nnRandVec(r, n, -1, 1)
	loss := func() float64 { // Σ a_i θ_i³/3 + b_i θ_i
		var l float64
		for i, x := range params {
			l += a[i]*x*x*x/3 + b[i]*x
		}
		return l
	}
	truth := func() []float64 {
		g := make([]float64, n)
		for i, x := range params {
			g[i] = a[i]*x*x + b[i]
		}
		return g
	}
	// A coordinate whose true derivative is 1e-7 sits below the floor.
	params[3] = 0
	idx := nnAllIndices(n)
	if rep := gradCheck(params, truth(), idx, loss); len(rep.errors) != 0 || rep.above != n-1 {
		t.Fatalf("the true gradient: %d of %d above the floor, errors %q", rep.above, n, rep.errors)
	}
	wrong := map[string]func(g []float64){
		"zero":                func(g []float64) { clear(g) },
		"one coordinate zero": func(g []float64) { g[5] = 0 },
		"sign":                func(g []float64) { g[7] = -g[7] },
		"scaled": func(g []float64) {
			for i := range g {
				g[i] *= 1.001
			}
		},
		"one part in 1e5 off":  func(g []float64) { g[2] *= 1 + 1e-5 },
		"below the floor":      func(g []float64) { g[3] = 1e-5 },
		"swapped coordinates":  func(g []float64) { g[0], g[1] = g[1], g[0] },
		"one coordinate large": func(g []float64) { g[4] = 1e6 },
	}
	for name, spoil := range wrong {
		g := truth()
		spoil(g)
		if rep := gradCheck(params, g, idx, loss); len(rep.errors) == 0 {
			t.Errorf("%s: a wrong gradient passed the check", name)
		}
	}
	constant := func() float64 { return 1 }
	if rep := gradCheck(params, make([]float64, n), idx, constant); len(rep.errors) == 0 {
		t.Error("a zero gradient of a constant loss passed: the check tested nothing")
	}
	before := slices.Clone(params)
	gradCheck(params, truth(), idx, loss)
	if !slices.Equal(params, before) {
		t.Error("gradCheck changed the parameters")
	}
}

func nnAllIndices(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func TestMLPGradient(t *testing.T) {
	for _, tc := range []struct {
		name            string
		in, hidden, out int
		off             int
	}{
		{"tiny", 3, 4, 2, 0},
		{"msg", 48, 24, 24, 5},
		{"out", 24, 24, 120, 0},
		{"odd", 7, 5, 3, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := nnNewRand(1)
			m := MLP{In: tc.in, Hidden: tc.hidden, Out: tc.out, Off: tc.off}
			p := make([]float64, m.End()+3)
			m.Init(p, r)
			for i := range m.b1(p) { // non-zero biases exercise their gradient too
				m.b1(p)[i] = 0.1 * (2*r.Float64() - 1)
			}
			x := nnRandVec(r, tc.in, -1, 1)
			c := nnRandVec(r, tc.out, -1, 1) // loss = c·y
			hid, y := make([]float64, tc.hidden), make([]float64, tc.out)
			loss := func() float64 {
				m.Forward(p, x, hid, y)
				return dot(c, y)
			}
			loss()
			grad := make([]float64, len(p))
			dx, dhid := make([]float64, tc.in), make([]float64, tc.hidden)
			m.Backward(p, x, hid, c, grad, dx, dhid)
			for i := range tc.off {
				if grad[i] != 0 {
					t.Fatalf("gradient written before the MLP's offset at %d", i)
				}
			}
			worst := nnCheckGrad(t, p, grad, nnAllIndices(len(p)), loss)
			// Input gradient.
			worstX := nnCheckGrad(t, x, dx, nnAllIndices(len(x)), loss)
			t.Logf("%d params: worst relative error %.2g (inputs %.2g)", m.NumParams(), worst, worstX)
		})
	}
}

func TestMLPBackwardAccumulates(t *testing.T) {
	r := nnNewRand(2)
	m := MLP{In: 5, Hidden: 6, Out: 4}
	p := make([]float64, m.NumParams())
	m.Init(p, r)
	x, dy := nnRandVec(r, 5, -1, 1), nnRandVec(r, 4, -1, 1)
	hid, y := make([]float64, 6), make([]float64, 4)
	m.Forward(p, x, hid, y)
	g1 := make([]float64, len(p))
	m.Backward(p, x, hid, dy, g1, nil, make([]float64, 6))
	g2 := slices.Clone(g1)
	m.Backward(p, x, hid, dy, g2, nil, make([]float64, 6))
	for i := range g1 {
		if math.Abs(g2[i]-2*g1[i]) > 1e-15 {
			t.Fatalf("grad[%d]: two backward passes give %g, want 2×%g", i, g2[i], g1[i])
		}
	}
}

func TestMLPInitDeterministic(t *testing.T) {
	m := MLP{In: 48, Hidden: 24, Out: 24}
	a, b, c := make([]float64, m.NumParams()), make([]float64, m.NumParams()), make([]float64, m.NumParams())
	m.Init(a, nnNewRand(7))
	m.Init(b, nnNewRand(7))
	m.Init(c, nnNewRand(8))
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different parameters")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same parameters")
	}
	lim1, lim2 := math.Sqrt(6.0/48), math.Sqrt(6.0/48)
	for i, w := range m.w1(a) {
		if math.Abs(w) > lim1 {
			t.Fatalf("W1[%d] = %g beyond the He limit %g", i, w, lim1)
		}
	}
	for i, w := range m.w2(a) {
		if math.Abs(w) > lim2 {
			t.Fatalf("W2[%d] = %g beyond the Glorot limit %g", i, w, lim2)
		}
	}
	for _, b := range append(m.b1(a), m.b2(a)...) {
		if b != 0 {
			t.Fatal("non-zero initial bias")
		}
	}
}

func nnExpectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		e := recover()
		if e == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		s, ok := e.(string)
		if !ok || !strings.HasPrefix(s, "gnn: ") || !strings.Contains(s, want) {
			t.Fatalf("panic %v, want a \"gnn: \" message containing %q", e, want)
		}
	}()
	f()
}

func TestMLPShapePanics(t *testing.T) {
	m := MLP{In: 3, Hidden: 4, Out: 2}
	p := make([]float64, m.NumParams())
	hid, y := make([]float64, 4), make([]float64, 2)
	nnExpectPanic(t, "MLP input has length 2, want 3", func() { m.Forward(p, make([]float64, 2), hid, y) })
	nnExpectPanic(t, "MLP output has length 3", func() { m.Forward(p, make([]float64, 3), hid, make([]float64, 3)) })
	nnExpectPanic(t, "too short", func() { m.Forward(p[:5], make([]float64, 3), hid, y) })
	nnExpectPanic(t, "MLP input gradient", func() {
		m.Backward(p, make([]float64, 3), hid, y, make([]float64, len(p)), make([]float64, 1), hid)
	})
}

func TestMLPNet(t *testing.T) {
	const in, hidden, out, rows = 8, 16, 120, 3
	r := nnNewRand(3)
	n := NewMLPNet(in, hidden, out, r)
	if got, want := len(n.Params), in*hidden+hidden+hidden*out+out; got != want {
		t.Fatalf("%d parameters, want %d", got, want)
	}
	if !slices.Equal(n.Params, NewMLPNet(in, hidden, out, nnNewRand(3)).Params) {
		t.Fatal("same seed, different parameters")
	}
	ws := NewMLPWorkspace(n, rows)
	x := nnRandVec(r, rows*in, 0, 1)
	c := make([]float64, rows*out) // loss: c·q, one taken action per row
	for i := range rows {
		c[i*out+r.IntN(out)] = 2*r.Float64() - 1
	}
	q := make([]float64, rows*out)
	loss := func() float64 {
		n.Forward(ws, x, q)
		return dot(c, q)
	}
	loss()
	grad := make([]float64, len(n.Params))
	n.Backward(ws, c, grad)
	worst := nnCheckGrad(t, n.Params, grad, nnAllIndices(len(n.Params)), loss)
	t.Logf("MLPNet %d params: worst relative error %.2g", len(n.Params), worst)

	actions := make([]int, rows)
	if a := testing.AllocsPerRun(20, func() { n.Greedy(ws, x, actions); n.Backward(ws, c, grad) }); a != 0 {
		t.Errorf("Greedy+Backward: %v allocations, want 0", a)
	}
	for i := range rows {
		row := ws.Q()[i*out : (i+1)*out]
		if best := slices.Index(row, slices.Max(row)); actions[i] != best {
			t.Errorf("row %d: greedy action %d, want %d", i, actions[i], best)
		}
	}

	tgt := n.Clone()
	n.Params[0] += 1
	if tgt.Params[0] == n.Params[0] {
		t.Fatal("Clone shares parameters")
	}
	tgt.CopyFrom(n)
	if !slices.Equal(tgt.Params, n.Params) {
		t.Fatal("CopyFrom did not copy")
	}
	nnExpectPanic(t, "copy from an MLPNet", func() { tgt.CopyFrom(NewMLPNet(in, hidden, 5, nil)) })
}

func TestMLPArgmaxTies(t *testing.T) {
	q := []float64{1, 3, 3, 0, 5, 5, 5, 5, -1, -2, -3, -0.5} // three rows of 4
	a := make([]int, 3)
	argmaxRows(a, q, 4)
	if !slices.Equal(a, []int{1, 0, 3}) {
		t.Fatalf("argmax %v, want [1 0 3]", a)
	}
}
