//go:build !amd64

package gnn

// haveAVX2FMA reports whether this CPU runs the assembly kernels; there are
// none on this architecture.
func haveAVX2FMA() bool { return false }

func gemm4x24(y *float32, ldy int, x *float32, ldx int, in int, w *float32, ldw int, bias *float32, relu int) {
	panic("gnn: gemm4x24 without assembly")
}

func edge24(mnmx *float32, a *float32, b *float32, senders *int32, n int, w2 *float32, b2 *float32, r *float32) {
	panic("gnn: edge24 without assembly")
}

func argmax8(q *float32, n int) int { panic("gnn: argmax8 without assembly") }
