// AVX2+FMA kernels of the float32 inference path (infer_kernels.go gives
// their pure-Go equivalents and the exact contracts). Every output element
// is its bias followed by one fused multiply-add per input, in input order,
// so a row's result does not depend on which of the four rows it is.

#include "textflag.h"

// func gemm4x24(y *float32, ldy int, x *float32, ldx int, in int, w *float32, ldw int, bias *float32, relu int)
//
// For the 4 rows r of x and the 24 columns c of w:
//   y[r*ldy+c] = act(bias[c] + Σ_{j<in} x[r*ldx+j]·w[j*ldw+c])
// with act = max(·, 0) if relu != 0. Strides are in elements. in >= 1.
// Y0..Y11 accumulate (row r, columns 8i..8i+7 in Y(3r+i)), Y12..Y14 hold a
// row of w, Y15 the broadcast input.
TEXT ·gemm4x24(SB), NOSPLIT, $0-72
	MOVQ y+0(FP), DI
	MOVQ ldy+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R9
	MOVQ in+32(FP), CX
	MOVQ w+40(FP), DX
	MOVQ ldw+48(FP), R10
	MOVQ bias+56(FP), AX
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10

	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVAPS Y0, Y3
	VMOVAPS Y1, Y4
	VMOVAPS Y2, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7
	VMOVAPS Y2, Y8
	VMOVAPS Y0, Y9
	VMOVAPS Y1, Y10
	VMOVAPS Y2, Y11

	// Row pointers: SI, R11, R12, R13.
	LEAQ (SI)(R9*1), R11
	LEAQ (SI)(R9*2), R12
	LEAQ (R11)(R9*2), R13

	TESTQ CX, CX
	JLE   gemmdone

gemmloop:
	VMOVUPS      (DX), Y12
	VMOVUPS      32(DX), Y13
	VMOVUPS      64(DX), Y14
	VBROADCASTSS (SI), Y15
	VFMADD231PS  Y15, Y12, Y0
	VFMADD231PS  Y15, Y13, Y1
	VFMADD231PS  Y15, Y14, Y2
	VBROADCASTSS (R11), Y15
	VFMADD231PS  Y15, Y12, Y3
	VFMADD231PS  Y15, Y13, Y4
	VFMADD231PS  Y15, Y14, Y5
	VBROADCASTSS (R12), Y15
	VFMADD231PS  Y15, Y12, Y6
	VFMADD231PS  Y15, Y13, Y7
	VFMADD231PS  Y15, Y14, Y8
	VBROADCASTSS (R13), Y15
	VFMADD231PS  Y15, Y12, Y9
	VFMADD231PS  Y15, Y13, Y10
	VFMADD231PS  Y15, Y14, Y11
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
	ADDQ         R10, DX
	DECQ         CX
	JNZ          gemmloop

gemmdone:
	MOVQ  relu+64(FP), BX
	TESTQ BX, BX
	JEQ   gemmstore
	VXORPS Y15, Y15, Y15
	VMAXPS Y15, Y0, Y0
	VMAXPS Y15, Y1, Y1
	VMAXPS Y15, Y2, Y2
	VMAXPS Y15, Y3, Y3
	VMAXPS Y15, Y4, Y4
	VMAXPS Y15, Y5, Y5
	VMAXPS Y15, Y6, Y6
	VMAXPS Y15, Y7, Y7
	VMAXPS Y15, Y8, Y8
	VMAXPS Y15, Y9, Y9
	VMAXPS Y15, Y10, Y10
	VMAXPS Y15, Y11, Y11

gemmstore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	ADDQ    R8, DI
	VMOVUPS Y3, (DI)
	VMOVUPS Y4, 32(DI)
	VMOVUPS Y5, 64(DI)
	ADDQ    R8, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	VMOVUPS Y8, 64(DI)
	ADDQ    R8, DI
	VMOVUPS Y9, (DI)
	VMOVUPS Y10, 32(DI)
	VMOVUPS Y11, 64(DI)
	VZEROUPPER
	RET

// EDGEROW computes r[slot] = max(a + b[senders[idx]], 0) (24 floats) into
// the scratch at byte offset off of base, for the sender index in register
// idx, and ORs its bits into Y9..Y11. It uses AX and Y12..Y14; Y15 must be
// zero.
#define EDGEROW(idx, base, off) \
	MOVLQSX (BX)(idx*4), AX; \
	LEAQ    (AX)(AX*2), AX; \
	SHLQ    $5, AX; \
	ADDQ    DX, AX; \
	VMOVUPS (SI), Y12; \
	VMOVUPS 32(SI), Y13; \
	VMOVUPS 64(SI), Y14; \
	VADDPS  (AX), Y12, Y12; \
	VADDPS  32(AX), Y13, Y13; \
	VADDPS  64(AX), Y14, Y14; \
	VMAXPS  Y15, Y12, Y12; \
	VMAXPS  Y15, Y13, Y13; \
	VMAXPS  Y15, Y14, Y14; \
	VMOVUPS Y12, off(base); \
	VMOVUPS Y13, off+32(base); \
	VMOVUPS Y14, off+64(base); \
	VORPS   Y12, Y9, Y9; \
	VORPS   Y13, Y10, Y10; \
	VORPS   Y14, Y11, Y11

// EDGEROWS computes into the scratch at base the four rows of r of the
// batch whose first edge is R10+first (each edge past the last, R11,
// replaced by the last) and into mask the inputs j at which some row is
// not 0 (r >= +0, so the OR of the bits is zero exactly where all four
// are +0). It uses AX, R9 and Y9..Y15.
#define EDGEROWS(first, base, mask) \
	VXORPS    Y15, Y15, Y15; \
	VXORPS    Y9, Y9, Y9; \
	VXORPS    Y10, Y10, Y10; \
	VXORPS    Y11, Y11, Y11; \
	LEAQ      first(R10), R9; \
	EDGEROW(R9, base, 0); \
	LEAQ      first+1(R10), R9; \
	CMPQ      R9, R11; \
	CMOVQGT   R11, R9; \
	EDGEROW(R9, base, 96); \
	LEAQ      first+2(R10), R9; \
	CMPQ      R9, R11; \
	CMOVQGT   R11, R9; \
	EDGEROW(R9, base, 192); \
	LEAQ      first+3(R10), R9; \
	CMPQ      R9, R11; \
	CMOVQGT   R11, R9; \
	EDGEROW(R9, base, 288); \
	VPCMPEQD  Y15, Y9, Y9; \
	VPCMPEQD  Y15, Y10, Y10; \
	VPCMPEQD  Y15, Y11, Y11; \
	VMOVMSKPS Y9, mask; \
	VMOVMSKPS Y10, AX; \
	SHLQ      $8, AX; \
	ORQ       AX, mask; \
	VMOVMSKPS Y11, AX; \
	SHLQ      $16, AX; \
	ORQ       AX, mask; \
	XORQ      $0xffffff, mask

// FOLD folds the four edges' column block off (bytes) into the running
// minimum at off(DI) and maximum at off+96(DI).
#define FOLD(a0, a1, a2, a3, off) \
	VMINPS  a1, a0, Y12; \
	VMINPS  a3, a2, Y13; \
	VMINPS  Y13, Y12, Y12; \
	VMINPS  off(DI), Y12, Y12; \
	VMOVUPS Y12, off(DI); \
	VMAXPS  a1, a0, Y14; \
	VMAXPS  a3, a2, Y15; \
	VMAXPS  Y15, Y14, Y14; \
	VMAXPS  off+96(DI), Y14, Y14; \
	VMOVUPS Y14, off+96(DI)

// func edge24(mnmx *float32, a *float32, b *float32, senders *int32, n int, w2 *float32, b2 *float32, r *float32)
//
// For every sender u = senders[e], e < n (n >= 1), the message
//   m = b2 + max(a + b[24u:24u+24], 0)·w2      (w2 is 24×24, input-major)
// is folded into mnmx: mnmx[0:24] is set to the elementwise minimum over
// the senders, mnmx[24:48] to the maximum. Edges go four at a time; a last
// partial batch repeats the last sender, which min and max do not notice.
//
// An input j at which all four edges' r = max(a + b_u, 0) are 0 adds
// nothing and is skipped (a third to a half of them: a is shared by the
// batch), so only the rows of w2 in the batch's mask are read. The rows of
// r and the mask of the next batch are computed before the current batch's
// products, into the other half of the scratch r (2×4×24 floats): the
// mispredicted exit of the data-dependent loop over the mask then does not
// stall on them.
TEXT ·edge24(SB), NOSPLIT, $0-64
	MOVQ mnmx+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ senders+24(FP), BX
	MOVQ w2+40(FP), R8
	MOVQ r+56(FP), R13    // r rows of the current batch
	XORQ R10, R10         // first edge of the current batch
	MOVQ n+32(FP), R11
	DECQ R11              // last edge

	// The running minimum starts at +Inf, the maximum at -Inf.
	VPCMPEQD Y12, Y12, Y12 // all ones
	VPSLLD   $23, Y12, Y13 // 0xff800000: -Inf
	VPSLLD   $24, Y12, Y12
	VPSRLD   $1, Y12, Y12  // 0x7f800000: +Inf
	VMOVUPS  Y12, (DI)
	VMOVUPS  Y12, 32(DI)
	VMOVUPS  Y12, 64(DI)
	VMOVUPS  Y13, 96(DI)
	VMOVUPS  Y13, 128(DI)
	VMOVUPS  Y13, 160(DI)

	EDGEROWS(0, R13, CX)  // CX: the next batch's mask

edgebatch:
	MOVQ CX, R14          // the current batch's mask
	MOVQ r+56(FP), R12
	LEAQ 384(R12)(R12*1), R12
	SUBQ R13, R12         // the other half of the scratch
	CMPQ R10, R11
	JGE  edgeinit         // no edge after R10+3
	LEAQ 4(R10), AX
	CMPQ AX, R11
	JGT  edgeinit
	EDGEROWS(4, R12, CX)

edgeinit:
	MOVQ    b2+48(FP), AX
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVAPS Y0, Y3
	VMOVAPS Y1, Y4
	VMOVAPS Y2, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7
	VMOVAPS Y2, Y8
	VMOVAPS Y0, Y9
	VMOVAPS Y1, Y10
	VMOVAPS Y2, Y11

	TESTQ R14, R14
	JEQ   edgefold

edgestep:
	BSFQ         R14, AX               // j
	LEAQ         -1(R14), R9
	ANDQ         R9, R14               // drop j from the mask
	LEAQ         (AX)(AX*2), R9
	SHLQ         $5, R9
	ADDQ         R8, R9                // row j of w2
	LEAQ         (R13)(AX*4), AX       // r[0][j]
	VMOVUPS      (R9), Y12
	VMOVUPS      32(R9), Y13
	VMOVUPS      64(R9), Y14
	VBROADCASTSS (AX), Y15
	VFMADD231PS  Y15, Y12, Y0
	VFMADD231PS  Y15, Y13, Y1
	VFMADD231PS  Y15, Y14, Y2
	VBROADCASTSS 96(AX), Y15
	VFMADD231PS  Y15, Y12, Y3
	VFMADD231PS  Y15, Y13, Y4
	VFMADD231PS  Y15, Y14, Y5
	VBROADCASTSS 192(AX), Y15
	VFMADD231PS  Y15, Y12, Y6
	VFMADD231PS  Y15, Y13, Y7
	VFMADD231PS  Y15, Y14, Y8
	VBROADCASTSS 288(AX), Y15
	VFMADD231PS  Y15, Y12, Y9
	VFMADD231PS  Y15, Y13, Y10
	VFMADD231PS  Y15, Y14, Y11
	TESTQ        R14, R14
	JNE          edgestep

edgefold:
	FOLD(Y0, Y3, Y6, Y9, 0)
	FOLD(Y1, Y4, Y7, Y10, 32)
	FOLD(Y2, Y5, Y8, Y11, 64)

	MOVQ R12, R13
	ADDQ $4, R10
	CMPQ R10, R11
	JLE  edgebatch

	VZEROUPPER
	RET

// func argmax8(q *float32, n int) int
//
// The index of the largest of q[0:n] (n a positive multiple of 8), the
// lowest on ties; 0 if the maximum is NaN.
TEXT ·argmax8(SB), NOSPLIT, $0-24
	MOVQ    q+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPS (SI), Y0
	MOVQ    $8, AX

argmaxmax:
	CMPQ   AX, CX
	JGE    argmaxreduce
	VMAXPS (SI)(AX*4), Y0, Y0
	ADDQ   $8, AX
	JMP    argmaxmax

argmaxreduce:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4E, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xB1, X0, X1
	VMAXPS       X1, X0, X0
	VBROADCASTSS X0, Y0
	XORQ         AX, AX

argmaxfind:
	CMPQ      AX, CX
	JGE       argmaxnan
	VCMPPS    $0, (SI)(AX*4), Y0, Y1
	VMOVMSKPS Y1, BX
	TESTL     BX, BX
	JNZ       argmaxfound
	ADDQ      $8, AX
	JMP       argmaxfind

argmaxfound:
	BSFL BX, BX
	ADDQ BX, AX
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET

argmaxnan:
	MOVQ $0, ret+16(FP)
	VZEROUPPER
	RET
