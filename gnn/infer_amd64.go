package gnn

import "golang.org/x/sys/cpu"

// haveAVX2FMA reports whether this CPU runs the assembly kernels of
// infer_amd64.s.
func haveAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// gemm4x24 is gemmGo for 4 rows and 24 columns with fused multiply-adds
// (infer_amd64.s). relu is 0 or 1. The caller checks every bound.
//
//go:noescape
func gemm4x24(y *float32, ldy int, x *float32, ldx int, in int, w *float32, ldw int, bias *float32, relu int)

// edge24 is edgeGo for Hidden 24 and at least one sender (infer_amd64.s).
// r is scratch for 8×24 floats. The caller checks every bound.
//
//go:noescape
func edge24(mnmx *float32, a *float32, b *float32, senders *int32, n int, w2 *float32, b2 *float32, r *float32)

// argmax8 is argmax32 for a positive multiple of 8 values, but for NaN:
// with a NaN among them, it returns 0 or the index of the largest
// (infer_amd64.s).
//
//go:noescape
func argmax8(q *float32, n int) int
