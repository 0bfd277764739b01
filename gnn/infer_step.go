package gnn

// embed is phase 0 for the ports lo..hi-1 (lo a multiple of inferChunk):
// h^0 = the features zero-padded to Hidden, and from it round 1's parts of
// the message MLP's first layer, a = b1 + h·W1v and b = h·W1u (only the
// first Features rows of W1 meet non-zero inputs).
func (c *inferCore) embed(lo, hi int) {
	H, F := c.shape.Hidden, c.shape.Features
	h0 := c.h[0]
	for v := lo; v < hi; v++ {
		row := h0[v*H : v*H+F]
		for j, xj := range c.x[v*F : v*F+F] {
			row[j] = float32(xj)
		}
	}
	rows := (hi - lo + 3) &^ 3
	o := lo * H
	gemm(c.asm, c.a[1][o:], H, h0[o:], H, rows, F, c.msgW1v, H, H, c.msgB1, false)
	gemm(c.asm, c.b[1][o:], H, h0[o:], H, rows, F, c.msgW1u, H, H, c.zeros, false)
}

// round is message-passing round k for the ports at positions lo..hi-1 of
// order[k]: for each port v, M_v = [min, max] over its ingress neighbours u
// of b2 + relu(a_v + b_u)·W2, then h^k_v = MLP_upd([h^{k-1}_v, M_v]). Before
// the last round it also computes round k+1's a and b; in the last round it
// reads out Q_v = MLP_out(h^K_v) and the greedy action.
//
// Rows go four at a time: up to three rows past the chunk are computed from
// stale scratch and dropped.
func (c *inferCore) round(w *inferWorker, k, lo, hi int) {
	s := c.shape
	H, A := s.Hidden, s.Actions
	ord := c.order[k][lo:hi]
	hp, ak, bk := c.h[k-1], c.a[k], c.b[k]
	for r, v := range ord {
		agg := w.agg[r*3*H : (r+1)*3*H]
		o := int(v) * H
		copy(agg[:H], hp[o:o+H])
		edges(c.asm, agg[H:], ak[o:o+H], bk, H, c.in[c.inStart[v]:c.inStart[v+1]], c.msgW2, c.msgB2, w.r, w.m)
	}
	rows := (len(ord) + 3) &^ 3
	gemm(c.asm, w.hid, H, w.agg, 3*H, rows, 3*H, c.updW1, H, H, c.updB1, true)
	gemm(c.asm, w.hn, H, w.hid, H, rows, H, c.updW2, H, H, c.updB2, false)
	if k < s.K {
		gemm(c.asm, w.an, H, w.hn, H, rows, H, c.msgW1v, H, H, c.msgB1, false)
		gemm(c.asm, w.bn, H, w.hn, H, rows, H, c.msgW1u, H, H, c.zeros, false)
		hk, an, bn := c.h[k], c.a[k+1], c.b[k+1]
		for r, v := range ord {
			o, i := int(v)*H, r*H
			copy(hk[o:o+H], w.hn[i:i+H])
			copy(an[o:o+H], w.an[i:i+H])
			copy(bn[o:o+H], w.bn[i:i+H])
		}
		return
	}
	// The switch agents' positions come first in order[K], the host
	// agents' after them: rows below split are read out by MLP_out.
	split := min(max(len(c.agents)-lo, 0), len(ord))
	if split > 0 {
		rows := (split + 3) &^ 3
		gemm(c.asm, w.hid, H, w.hn, H, rows, H, c.outW1, H, H, c.outB1, true)
		gemm(c.asm, w.q, A, w.hid, H, rows, H, c.outW2, A, A, c.outB2, false)
		for r := range split {
			row := int(c.qrow[lo+r])
			qr := c.q[row*A : row*A+A]
			copy(qr, w.q[r*A:r*A+A])
			c.actions[row] = argmaxQ(c.asm, qr)
		}
	}
	if split < len(ord) {
		c.readHosts(w, lo, split, len(ord))
	}
}

// readHosts is the host head's readout of the rows split..n-1 of the
// chunk at position lo of order[K] (host agents): their Q values and
// greedy host actions.
func (c *inferCore) readHosts(w *inferWorker, lo, split, n int) {
	H, A, HA := c.shape.Hidden, c.shape.Actions, c.shape.HostActions
	rows := (n - split + 3) &^ 3
	hn := w.hn[split*H:]
	gemm(c.asm, w.hid, H, hn, H, rows, H, c.hostW1, H, H, c.hostB1, true)
	gemm(c.asm, w.hq, HA, w.hid, H, rows, H, c.hostW2, HA, HA, c.hostB2, false)
	base := len(c.agents) * A
	for r := range n - split {
		row := int(c.qrow[lo+split+r])
		o := base + (row-len(c.agents))*HA
		qr := c.q[o : o+HA]
		copy(qr, w.hq[r*HA:r*HA+HA])
		c.actions[row] = argmaxQ(c.asm, qr)
	}
}
