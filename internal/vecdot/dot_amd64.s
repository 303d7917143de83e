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
