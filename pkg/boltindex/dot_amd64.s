#include "textflag.h"

// func dotInt8AVX2(a, b *int8, n int) int32
// n is a multiple of 32. Each step sign-extends 16 bytes of each side to
// 16-bit lanes (VPMOVSXBW), multiplies and adds pairs into 32-bit lanes
// (VPMADDWD) and accumulates; two accumulators hide the add latency.
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

loop:
	CMPQ CX, $32
	JL   done
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y1, Y2, Y3
	VPADDD    Y3, Y0, Y0
	VPMOVSXBW 16(SI), Y1
	VPMOVSXBW 16(DI), Y2
	VPMADDWD  Y1, Y2, Y4
	VPADDD    Y4, Y5, Y5
	ADDQ      $32, SI
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
