#include "textflag.h"

// STEP32 adds the products of 32 query lanes at SI and 32 vector bytes at
// DI into Y0 and Y5, and advances SI, DI and the count CX: 16 of the
// query's 16-bit lanes loaded, 16 bytes of the vector sign-extended to
// 16-bit lanes (VPMOVSXBW), pairs multiplied and added into 32-bit lanes
// (VPMADDWD), twice; two accumulators hide the add latency.
#define STEP32 \
	VMOVDQU   (SI), Y1; \
	VPMOVSXBW (DI), Y2; \
	VPMADDWD  Y1, Y2, Y3; \
	VPADDD    Y3, Y0, Y0; \
	VMOVDQU   32(SI), Y1; \
	VPMOVSXBW 16(DI), Y2; \
	VPMADDWD  Y1, Y2, Y4; \
	VPADDD    Y4, Y5, Y5; \
	ADDQ      $64, SI; \
	ADDQ      $32, DI; \
	SUBQ      $32, CX

// SUM sets AX to the sum of the 32-bit lanes of Y0 and Y5.
#define SUM \
	VPADDD       Y5, Y0, Y0; \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0x4E, X0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0xB1, X0, X1; \
	VPADDD       X1, X0, X0; \
	VMOVD        X0, AX

// func dotQueryAVX2(q *int16, v *int8, n int) int32
// n is a multiple of 32, taken 32 at a time (STEP32).
TEXT ·dotQueryAVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

loop:
	CMPQ CX, $32
	JL   done
	STEP32
	JMP loop

done:
	SUM
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotRowsAVX2(q *int16, base *int8, dims int, ords *uint32, n int, out *int32)
// out[i] = q · base[ords[i]*dims : (ords[i]+1)*dims] for i < n; dims is a
// multiple of 32. The rows are scattered (a graph's neighbours), so each
// one is a cache miss: the loop prefetches the row rowsAhead rows on (every
// 64-byte line of it) while it scores this one, so that the misses of
// several rows overlap instead of following one another.
#define rowsAhead 8

TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ base+8(FP), R9
	MOVQ dims+16(FP), R10
	MOVQ ords+24(FP), R11
	MOVQ n+32(FP), R12
	MOVQ out+40(FP), R13
	XORQ R14, R14 // the next row to score
	XORQ R8, R8   // the next row to prefetch

next:
	// Prefetch rows until rowsAhead rows past the one to score.
	CMPQ R8, R12
	JGE  score
	MOVQ R14, AX
	ADDQ $rowsAhead, AX
	CMPQ R8, AX
	JG   score
	MOVL (R11)(R8*4), BX
	IMULQ R10, BX
	LEAQ (R9)(BX*1), DX
	MOVQ R10, CX

line:
	PREFETCHT0 (DX)
	ADDQ $64, DX
	SUBQ $64, CX
	JG   line
	PREFETCHT0 -1(DX)(CX*1) // the row's last byte, when the row straddles one more line
	INCQ R8
	JMP  next

score:
	CMPQ R14, R12
	JGE  end
	MOVL (R11)(R14*4), BX
	IMULQ R10, BX
	LEAQ (R9)(BX*1), DI
	MOVQ q+0(FP), SI
	MOVQ R10, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

dot:
	CMPQ CX, $32
	JL   sum
	STEP32
	JMP  dot

sum:
	SUM
	MOVL AX, (R13)(R14*4)
	INCQ R14
	JMP  next

end:
	VZEROUPPER
	RET

// func widenAVX2(dst *int16, src *int8, n int)
// dst[i] = int16(src[i]) for i < n, n a multiple of 16: 16 bytes
// sign-extended to 16-bit lanes per step (VPMOVSXBW).
TEXT ·widenAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

widen:
	CMPQ CX, $16
	JL   widened
	VPMOVSXBW (SI), Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $16, CX
	JMP       widen

widened:
	VZEROUPPER
	RET

// func prefetch(p *byte)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ       p+0(FP), AX
	PREFETCHT0 (AX)
	RET
