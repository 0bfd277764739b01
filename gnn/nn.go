// Package gnn holds graphcc's learning core: the GraphCC message-passing
// Q-network, the per-agent MLP Q-network of the ACC baseline, the Adam
// optimizer, the Huber loss and the model file format; the action table
// of ECN settings (Action, and MaxKMax, the deepest queue it may ask for);
// the trainer and its training curve (WriteCurve).
//
// Everything is float64. Every network keeps all its parameters in one flat
// []float64 so that the optimizer, checkpoints and target-network copies treat
// a model as one vector. Forward and Backward write into caller-provided
// buffers (a workspace sized once per shape) and do not allocate. Shape
// mismatches are programming errors and panic with a "gnn: …" message, as
// gonum's floats package does.
package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MLP is the layout of a two-layer perceptron
//
//	y = b2 + relu(b1 + x·W1)·W2
//
// inside a flat parameter vector: it holds no numbers itself, only where
// they are, so that several MLPs can share one vector. From Off on, the
// vector holds W1 (In×Hidden, row-major: W1[j*Hidden+i] is the weight from
// input j to hidden unit i), b1 (Hidden), W2 (Hidden×Out, row-major) and b2
// (Out). Storing the weights input-major makes the forward pass a sum of
// contiguous rows scaled by the inputs, so zero inputs (ReLU outputs,
// zero-padded features) cost nothing.
type MLP struct {
	In, Hidden, Out int
	Off             int // index of W1[0] in the parameter vector
}

// NumParams returns the number of parameters of m.
func (m MLP) NumParams() int { return m.In*m.Hidden + m.Hidden + m.Hidden*m.Out + m.Out }

// End returns the index just past m's parameters.
func (m MLP) End() int { return m.Off + m.NumParams() }

func (m MLP) w1(p []float64) []float64 { return p[m.Off : m.Off+m.In*m.Hidden] }
func (m MLP) b1(p []float64) []float64 {
	o := m.Off + m.In*m.Hidden
	return p[o : o+m.Hidden]
}
func (m MLP) w2(p []float64) []float64 {
	o := m.Off + m.In*m.Hidden + m.Hidden
	return p[o : o+m.Hidden*m.Out]
}
func (m MLP) b2(p []float64) []float64 {
	o := m.Off + m.In*m.Hidden + m.Hidden + m.Hidden*m.Out
	return p[o : o+m.Out]
}

func (m MLP) checkParams(p []float64, what string) {
	if m.In < 1 || m.Hidden < 1 || m.Out < 1 || m.Off < 0 {
		panic(fmt.Sprintf("gnn: bad MLP shape %d→%d→%d at offset %d", m.In, m.Hidden, m.Out, m.Off))
	}
	if len(p) < m.End() {
		panic(fmt.Sprintf("gnn: %s vector of length %d is too short for an MLP ending at %d", what, len(p), m.End()))
	}
}

func checkLen(what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("gnn: %s has length %d, want %d", what, got, want))
	}
}

// Init sets m's parameters in p: W1 He-uniform (it feeds a ReLU), W2
// Glorot-uniform (it is linear), biases zero. Draws come from r only.
func (m MLP) Init(p []float64, r *rand.Rand) {
	m.checkParams(p, "parameter")
	heUniform(m.w1(p), m.In, r)
	clear(m.b1(p))
	glorotUniform(m.w2(p), m.Hidden, m.Out, r)
	clear(m.b2(p))
}

// heUniform fills w from U(-a, a) with a = sqrt(6/fanIn).
func heUniform(w []float64, fanIn int, r *rand.Rand) {
	a := math.Sqrt(6 / float64(fanIn))
	for i := range w {
		w[i] = a * (2*r.Float64() - 1)
	}
}

// glorotUniform fills w from U(-a, a) with a = sqrt(6/(fanIn+fanOut)).
func glorotUniform(w []float64, fanIn, fanOut int, r *rand.Rand) {
	a := math.Sqrt(6 / float64(fanIn+fanOut))
	for i := range w {
		w[i] = a * (2*r.Float64() - 1)
	}
}

// Forward computes y = m(x) with the parameters in p. It writes the hidden
// activation relu(b1 + x·W1) into hid (len Hidden), which Backward needs
// (the ReLU derivative is recovered from it: 1 where hid > 0), and the
// output into y (len Out).
func (m MLP) Forward(p, x, hid, y []float64) {
	m.checkParams(p, "parameter")
	checkLen("MLP input", len(x), m.In)
	checkLen("MLP hidden buffer", len(hid), m.Hidden)
	checkLen("MLP output", len(y), m.Out)
	linear(hid, m.b1(p), m.w1(p), x)
	relu(hid)
	linear(y, m.b2(p), m.w2(p), hid)
}

// Backward accumulates into grad (same layout as p) the gradient of a loss
// whose gradient with respect to the output of the Forward call that took x
// and wrote hid is dy. It writes the gradient with respect to x into dx
// (len In; nil skips it) and uses dhid (len Hidden) as scratch. dy is not
// modified.
func (m MLP) Backward(p, x, hid, dy, grad, dx, dhid []float64) {
	m.checkParams(p, "parameter")
	m.checkParams(grad, "gradient")
	checkLen("MLP input", len(x), m.In)
	checkLen("MLP hidden buffer", len(hid), m.Hidden)
	checkLen("MLP output gradient", len(dy), m.Out)
	checkLen("MLP hidden scratch", len(dhid), m.Hidden)
	if dx != nil {
		checkLen("MLP input gradient", len(dx), m.In)
	}
	m.backward(p, x, hid, dy, grad, dx, dhid)
}

// backward is Backward without the checks.
func (m MLP) backward(p, x, hid, dy, grad, dx, dhid []float64) {
	addTo(m.b2(grad), dy)
	outerAcc(m.w2(grad), hid, dy)
	matVecT(dhid, m.w2(p), dy)
	reluBack(dhid, hid)
	addTo(m.b1(grad), dhid)
	outerAcc(m.w1(grad), x, dhid)
	if dx != nil {
		matVecT(dx, m.w1(p), dhid)
	}
}

// The kernels below are the inner loops of every network: plain loops over
// float64 slices, re-sliced so that the compiler drops the bounds checks.

// linear sets y = b + x·w where w is len(x)×len(y) row-major. Zero inputs
// (ReLU outputs, zero padding) are skipped: the non-zero inputs and their row
// offsets are gathered first, without branches, and the output is then
// accumulated eight elements at a time in registers (block8).
func linear(y, b, w, x []float64) {
	n := len(y)
	b = b[:n]
	w = w[:len(x)*n]
	if len(x) > maxSparseIn {
		copy(y, b)
		linearAcc(y, w, x)
		return
	}
	var xbuf [maxSparseIn]float64
	var obuf [maxSparseIn]int
	k := 0
	for j, xj := range x {
		xbuf[k], obuf[k] = xj, j*n
		d := 0
		if xj != 0 {
			d = 1
		}
		k += d
	}
	xs, off := xbuf[:k], obuf[:k]
	i := 0
	for ; i+8 <= n; i += 8 {
		block8(y[i:i+8], b[i:i+8], w[i:], xs, off)
	}
	for ; i < n; i++ {
		s := b[i]
		for k, xj := range xs {
			s += xj * w[off[k]+i]
		}
		y[i] = s
	}
}

// block8 sets y[0:8] = b[0:8] + Σ_k xs[k]·w[off[k]:off[k]+8].
func block8(y, b, w, xs []float64, off []int) {
	y, b = y[:8], b[:8]
	s0, s1, s2, s3, s4, s5, s6, s7 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
	off = off[:len(xs)]
	for k, xj := range xs {
		o := off[k]
		r := w[o : o+8 : o+8]
		s0 += xj * r[0]
		s1 += xj * r[1]
		s2 += xj * r[2]
		s3 += xj * r[3]
		s4 += xj * r[4]
		s5 += xj * r[5]
		s6 += xj * r[6]
		s7 += xj * r[7]
	}
	y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7] = s0, s1, s2, s3, s4, s5, s6, s7
}

// maxSparseIn is the widest input whose non-zero entries linear compacts
// (on the stack); wider inputs are read densely.
const maxSparseIn = 128

// linearAcc adds x·w to y (w is len(x)×len(y) row-major).
func linearAcc(y, w, x []float64) {
	n := len(y)
	w = w[:len(x)*n]
	for j, xj := range x {
		if xj != 0 {
			axpy(y, xj, w[j*n:j*n+n])
		}
	}
}

// axpy adds a*x to y.
func axpy(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		yy := y[i : i+4 : i+4]
		xx := x[i : i+4 : i+4]
		yy[0] += a * xx[0]
		yy[1] += a * xx[1]
		yy[2] += a * xx[2]
		yy[3] += a * xx[3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// dot returns x·y.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx := x[i : i+4 : i+4]
		yy := y[i : i+4 : i+4]
		s0 += xx[0] * yy[0]
		s1 += xx[1] * yy[1]
		s2 += xx[2] * yy[2]
		s3 += xx[3] * yy[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// matVecT sets dx = w·dy for w of shape len(dx)×len(dy) row-major (the
// input gradient of linear).
func matVecT(dx, w, dy []float64) {
	n := len(dy)
	w = w[:len(dx)*n]
	for j := range dx {
		dx[j] = dot(dy, w[j*n:j*n+n])
	}
}

// matVecTAcc adds w·dy to dx.
func matVecTAcc(dx, w, dy []float64) {
	n := len(dy)
	w = w[:len(dx)*n]
	for j := range dx {
		dx[j] += dot(dy, w[j*n:j*n+n])
	}
}

// outerAcc adds the outer product x⊗dy to dw (len(x)×len(dy) row-major).
func outerAcc(dw, x, dy []float64) {
	n := len(dy)
	dw = dw[:len(x)*n]
	for j, xj := range x {
		if xj != 0 {
			axpy(dw[j*n:j*n+n], xj, dy)
		}
	}
}

// addTo adds x to y.
func addTo(y, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += x[i]
	}
}

// relu clamps x at 0 in place.
func relu(x []float64) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// reluBack zeroes d wherever the ReLU output act is not positive.
func reluBack(d, act []float64) {
	act = act[:len(d)]
	for i := range d {
		if !(act[i] > 0) {
			d[i] = 0
		}
	}
}

// MLPNet is a plain MLP Q-network, Q = MLP(x), for baselines without message
// passing such as ACC, where every agent has its own MLPNet (no parameter
// sharing). Params holds the one MLP of Layer.
type MLPNet struct {
	Layer  MLP
	Params []float64
}

// NewMLPNet returns an in→hidden→out network initialised from r (He-uniform
// first layer, Glorot-uniform second, zero biases); a nil r leaves every
// parameter 0.
func NewMLPNet(in, hidden, out int, r *rand.Rand) *MLPNet {
	l := MLP{In: in, Hidden: hidden, Out: out}
	if in < 1 || hidden < 1 || out < 1 {
		panic(fmt.Sprintf("gnn: bad MLP shape %d→%d→%d", in, hidden, out))
	}
	n := &MLPNet{Layer: l, Params: make([]float64, l.NumParams())}
	if r != nil {
		l.Init(n.Params, r)
	}
	return n
}

// Clone returns a deep copy of n.
func (n *MLPNet) Clone() *MLPNet {
	return &MLPNet{Layer: n.Layer, Params: append([]float64(nil), n.Params...)}
}

// CopyFrom sets n's parameters to src's (the target-network update).
func (n *MLPNet) CopyFrom(src *MLPNet) {
	if n.Layer != src.Layer {
		panic(fmt.Sprintf("gnn: copy from an MLPNet %d→%d→%d into one %d→%d→%d",
			src.Layer.In, src.Layer.Hidden, src.Layer.Out, n.Layer.In, n.Layer.Hidden, n.Layer.Out))
	}
	copy(n.Params, src.Params)
}

// MLPWorkspace holds the activations of one Forward of an MLPNet on a batch
// of Rows inputs, for Backward.
type MLPWorkspace struct {
	layer MLP
	Rows  int
	x     []float64 // the inputs of the last Forward
	hid   []float64 // Rows×Hidden
	q     []float64 // Rows×Out, for Greedy
	dhid  []float64 // Hidden: scratch
}

// NewMLPWorkspace returns a workspace for batches of rows inputs of n.
func NewMLPWorkspace(n *MLPNet, rows int) *MLPWorkspace {
	if rows < 1 {
		panic(fmt.Sprintf("gnn: MLP workspace of %d rows", rows))
	}
	l := n.Layer
	return &MLPWorkspace{
		layer: l, Rows: rows,
		x:    make([]float64, rows*l.In),
		hid:  make([]float64, rows*l.Hidden),
		q:    make([]float64, rows*l.Out),
		dhid: make([]float64, l.Hidden),
	}
}

func (n *MLPNet) check(ws *MLPWorkspace) {
	if ws.layer.In != n.Layer.In || ws.layer.Hidden != n.Layer.Hidden || ws.layer.Out != n.Layer.Out {
		panic("gnn: MLP workspace of another shape")
	}
	n.Layer.checkParams(n.Params, "parameter")
}

// Forward computes q = MLP(x) for ws.Rows inputs (x is Rows×In, q is
// Rows×Out, row-major). It copies x into ws for Backward and does not
// allocate.
func (n *MLPNet) Forward(ws *MLPWorkspace, x, q []float64) {
	n.check(ws)
	l := n.Layer
	checkLen("MLP inputs", len(x), ws.Rows*l.In)
	checkLen("MLP Q values", len(q), ws.Rows*l.Out)
	copy(ws.x, x)
	for i := range ws.Rows {
		l.fwd(n.Params, ws.x[i*l.In:(i+1)*l.In], ws.hid[i*l.Hidden:(i+1)*l.Hidden], q[i*l.Out:(i+1)*l.Out])
	}
}

// Backward accumulates into grad (len(Params)) the gradient of a loss whose
// gradient with respect to the q of the last Forward on ws is dq. Rows whose
// dq is all zero cost nothing. It does not allocate.
func (n *MLPNet) Backward(ws *MLPWorkspace, dq, grad []float64) {
	n.check(ws)
	l := n.Layer
	checkLen("MLP Q gradient", len(dq), ws.Rows*l.Out)
	checkLen("gradient", len(grad), len(n.Params))
	for i := range ws.Rows {
		d := dq[i*l.Out : (i+1)*l.Out]
		if allZero(d) {
			continue
		}
		l.backward(n.Params, ws.x[i*l.In:(i+1)*l.In], ws.hid[i*l.Hidden:(i+1)*l.Hidden], d, grad, nil, ws.dhid)
	}
}

// Greedy runs Forward on x and writes the action of largest Q value of each
// row into actions (len Rows), the lowest index on ties.
func (n *MLPNet) Greedy(ws *MLPWorkspace, x []float64, actions []int) {
	checkLen("actions", len(actions), ws.Rows)
	n.Forward(ws, x, ws.q)
	argmaxRows(actions, ws.q, n.Layer.Out)
}

// Q returns the Q values of the last Greedy call on ws (Rows×Out).
func (ws *MLPWorkspace) Q() []float64 { return ws.q }
