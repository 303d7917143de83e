#include "textflag.h"

// func dotQueryAVX2(q *int16, v *int8, n int) int32
// n is a multiple of 32. Each step loads 16 of the query's 16-bit lanes,
// sign-extends 16 bytes of the vector to 16-bit lanes (VPMOVSXBW),
// multiplies and adds pairs into 32-bit lanes (VPMADDWD) and accumulates;
// two accumulators hide the add latency.
TEXT ·dotQueryAVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

loop:
	CMPQ CX, $32
	JL   done
	VMOVDQU   (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y1, Y2, Y3
	VPADDD    Y3, Y0, Y0
	VMOVDQU   32(SI), Y1
	VPMOVSXBW 16(DI), Y2
	VPMADDWD  Y1, Y2, Y4
	VPADDD    Y4, Y5, Y5
	ADDQ      $64, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JMP       loop

done:
	VPADDD       Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotRowsAVX2(q *int16, base *int8, dims int, ords *uint32, n int, out *int32)
// out[i] = q · base[ords[i]*dims : (ords[i]+1)*dims] for i < n; dims is a
// multiple of 32. The rows are scattered (a graph's neighbours), so each
// one is a cache miss: the loop prefetches the row rowsAhead rows on (every
// 64-byte line of it) while it scores this one, so that the misses of
// several rows overlap instead of following one another.
#define rowsAhead 8

TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), R8
	MOVQ base+8(FP), R9
	MOVQ dims+16(FP), R10
	MOVQ ords+24(FP), R11
	MOVQ n+32(FP), R12
	MOVQ out+40(FP), R13
	XORQ R14, R14

	// Prefetch the first rowsAhead rows.
	XORQ AX, AX

first:
	CMPQ AX, R12
	JGE  rows
	CMPQ AX, $rowsAhead
	JGE  rows
	MOVL (R11)(AX*4), BX
	IMULQ R10, BX
	LEAQ (R9)(BX*1), DX
	MOVQ R10, CX

firstline:
	PREFETCHT0 (DX)
	ADDQ $64, DX
	SUBQ $64, CX
	JG   firstline
	PREFETCHT0 -1(DX)(CX*1) // the row's last byte, when the row straddles one more line
	INCQ AX
	JMP  first

rows:
	CMPQ R14, R12
	JGE  end
	MOVQ R14, AX
	ADDQ $rowsAhead, AX
	CMPQ AX, R12
	JGE  score
	MOVL (R11)(AX*4), BX
	IMULQ R10, BX
	LEAQ (R9)(BX*1), DX
	MOVQ R10, CX

line:
	PREFETCHT0 (DX)
	ADDQ $64, DX
	SUBQ $64, CX
	JG   line
	PREFETCHT0 -1(DX)(CX*1)

score:
	MOVL (R11)(R14*4), BX
	IMULQ R10, BX
	LEAQ (R9)(BX*1), DI
	MOVQ R8, SI
	MOVQ R10, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

dot:
	CMPQ CX, $32
	JL   sum
	VMOVDQU   (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y1, Y2, Y3
	VPADDD    Y3, Y0, Y0
	VMOVDQU   32(SI), Y1
	VPMOVSXBW 16(DI), Y2
	VPMADDWD  Y1, Y2, Y4
	VPADDD    Y4, Y5, Y5
	ADDQ      $64, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JMP       dot

sum:
	VPADDD       Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R13)(R14*4)
	INCQ         R14
	JMP          rows

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
