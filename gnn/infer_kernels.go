package gnn

import (
	"fmt"
	"unsafe"
)

// The kernels of the float32 inference path (Inference). Each has a pure-Go
// version, used on any CPU and for any Hidden, and an AVX2+FMA version in
// infer_amd64.s for Hidden 24. Both add up every output element in the same
// order (its bias, then one product per input in input order); they differ
// only in that the assembly fuses each multiply-add, so their results agree
// to float32 rounding, not bit for bit.

// gemmGo sets, for every row r < rows and column c < cols,
//
//	y[r*ldy+c] = act(bias[c] + Σ_{j<in} x[r*ldx+j]·w[j*ldw+c])
//
// adding the products in increasing j, where act is the ReLU if relu is set
// and the identity otherwise (see linear32).
func gemmGo(y []float32, ldy int, x []float32, ldx, rows, in int, w []float32, ldw, cols int, bias []float32, relu bool) {
	for r := range rows {
		yr := y[r*ldy : r*ldy+cols]
		linear32(yr, bias[:cols], w, ldw, x[r*ldx:r*ldx+in])
		if relu {
			for i, v := range yr {
				if v < 0 {
					yr[i] = 0
				}
			}
		}
	}
}

// linear32 sets y = b + x·w, where row j of w starts at w[j*ldw]. Zero
// inputs add nothing and are skipped (ReLU outputs are about half zeros):
// the non-zero inputs and their row offsets are gathered first, and the
// output is accumulated eight columns at a time in registers, adding the
// products in increasing input order.
func linear32(y, b, w []float32, ldw int, x []float32) {
	n := len(y)
	b = b[:n]
	if len(x) > maxSparseIn {
		copy(y, b)
		for j, xj := range x {
			wj := w[j*ldw : j*ldw+n]
			for i := range y {
				y[i] += xj * wj[i]
			}
		}
		return
	}
	var xbuf [maxSparseIn]float32
	var obuf [maxSparseIn]int
	k := 0
	for j, xj := range x {
		xbuf[k], obuf[k] = xj, j*ldw
		if xj != 0 {
			k++
		}
	}
	xs, off := xbuf[:k], obuf[:k]
	i := 0
	for ; i+8 <= n; i += 8 {
		block8f32(y[i:i+8], b[i:i+8], w[i:], xs, off)
	}
	for ; i < n; i++ {
		s := b[i]
		for k, xj := range xs {
			s += xj * w[off[k]+i]
		}
		y[i] = s
	}
}

// block8f32 sets y[0:8] = b[0:8] + Σ_k xs[k]·w[off[k]:off[k]+8]: block8
// in float32, kept apart because a generic version of the two made the
// float64 forward pass 10 to 15 % slower (BenchmarkForwardF64Default).
func block8f32(y, b, w, xs []float32, off []int) {
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

// edgeGo sets mnmx[0:h] and mnmx[h:2h] to the elementwise minimum and
// maximum, over the senders u, of the messages
//
//	m_u = b2 + relu(a + b[u*h:u*h+h])·w2        (w2 is h×h, input-major)
//
// or to zeros if there are none. r and m are scratch of h floats each.
func edgeGo(mnmx, a, b []float32, h int, senders []int32, w2, b2, r, m []float32) {
	mn, mx := mnmx[:h], mnmx[h:2*h]
	a, r, m = a[:h], r[:h], m[:h]
	if len(senders) == 0 {
		clear(mn)
		clear(mx)
		return
	}
	for e, u := range senders {
		bu := b[int(u)*h : int(u)*h+h]
		for j, av := range a {
			s := av + bu[j]
			if s < 0 {
				s = 0
			}
			r[j] = s
		}
		linear32(m, b2, w2, h, r)
		if e == 0 {
			copy(mn, m)
			copy(mx, m)
			continue
		}
		for i, v := range m {
			mn[i] = min(mn[i], v)
			mx[i] = max(mx[i], v)
		}
	}
}

// gemm is gemmGo, run by the assembly kernel on every group of four rows
// and block of 24 columns if asm is set. It panics if a slice is too short
// for the shape.
func gemm(asm bool, y []float32, ldy int, x []float32, ldx, rows, in int, w []float32, ldw, cols int, bias []float32, relu bool) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if in < 1 || ldy < cols || ldx < in || ldw < cols ||
		len(y) < (rows-1)*ldy+cols || len(x) < (rows-1)*ldx+in || len(w) < (in-1)*ldw+cols || len(bias) < cols {
		panic(fmt.Sprintf("gnn: gemm of %d rows, %d inputs, %d columns does not fit y %d/%d, x %d/%d, w %d/%d, bias %d",
			rows, in, cols, len(y), ldy, len(x), ldx, len(w), ldw, len(bias)))
	}
	if !asm {
		gemmGo(y, ldy, x, ldx, rows, in, w, ldw, cols, bias, relu)
		return
	}
	r4, c24 := rows&^3, cols-cols%24
	rl := 0
	if relu {
		rl = 1
	}
	for r := 0; r < r4; r += 4 {
		for c := 0; c < c24; c += 24 {
			gemm4x24(&y[r*ldy+c], ldy, &x[r*ldx], ldx, in, &w[c], ldw, &bias[c], rl)
		}
	}
	if c24 < cols && r4 > 0 {
		gemmGo(y[c24:], ldy, x, ldx, r4, in, w[c24:], ldw, cols-c24, bias[c24:], relu)
	}
	if r4 < rows {
		gemmGo(y[r4*ldy:], ldy, x[r4*ldx:], ldx, rows-r4, in, w, ldw, cols, bias, relu)
	}
}

// edges is edgeGo, run by the assembly kernel if asm is set, in which case
// h must be 24 and r must hold 8×24 floats. It panics if a slice is too
// short. Every sender must index a row of b: the assembly does not check
// (newInference checks every ingress port once, so that the kernel does
// not compare each edge's index on every step).
func edges(asm bool, mnmx, a, b []float32, h int, senders []int32, w2, b2, r, m []float32) {
	if len(mnmx) < 2*h || len(a) < h || len(w2) < h*h || len(b2) < h || len(r) < h || len(m) < h {
		panic(fmt.Sprintf("gnn: edge kernel of width %d with slices of %d, %d, %d, %d, %d, %d",
			h, len(mnmx), len(a), len(w2), len(b2), len(r), len(m)))
	}
	if !asm || len(senders) == 0 {
		edgeGo(mnmx, a, b, h, senders, w2, b2, r, m)
		return
	}
	if h != 24 || len(r) < 8*24 {
		panic(fmt.Sprintf("gnn: assembly edge kernel of width %d with %d floats of scratch", h, len(r)))
	}
	edge24(&mnmx[0], &a[0], &b[0], &senders[0], len(senders), &w2[0], &b2[0], &r[0])
}

// alignedFloat32s returns n zeroed float32s starting on a 32-byte boundary,
// so that rows of 24 floats are aligned for 256-bit loads.
func alignedFloat32s(n int) []float32 {
	s := make([]float32, n+8)
	off := 0
	if rem := uintptr(unsafe.Pointer(unsafe.SliceData(s))) % 32; rem != 0 {
		off = int(32-rem) / 4
	}
	return s[off : off+n : off+n]
}

// argmaxQ returns the index of the largest entry of q, the lowest on ties,
// on the assembly kernel if asm is set and len(q) is a multiple of 8. With
// a NaN in q the two kernels may differ, but both return an index of q.
func argmaxQ(asm bool, q []float32) int {
	if asm && len(q) > 0 && len(q)%8 == 0 {
		return argmax8(&q[0], len(q))
	}
	return argmax32(q)
}

// argmax32 returns the index of the largest entry of q, the lowest on ties
// (NaNs are never larger).
func argmax32(q []float32) int {
	best := 0
	for a, v := range q {
		if v > q[best] {
			best = a
		}
	}
	return best
}
