#include "textflag.h"

// func dotQueryNEON(q *int16, v *int8, n int, out *[16]int32)
// n is a positive multiple of 16. Each step loads 16 of the query's 16-bit
// lanes and 16 bytes of the vector, sign-extends the bytes to 16-bit lanes
// (SXTL, SXTL2) and multiplies-accumulates into four 4×32-bit accumulators
// (SMLAL, SMLAL2); the 16 partial sums are stored to out, for the caller to
// add. Go's assembler has no mnemonics for the signed widening
// instructions, so they are written as their encodings (WORD), with the
// registers fixed: q in V0 and V1, v in V2, extended in V3 and V4,
// accumulators V16 to V19.
TEXT ·dotQueryNEON(SB), NOSPLIT, $0-32
	MOVD q+0(FP), R0
	MOVD v+8(FP), R1
	MOVD n+16(FP), R2
	MOVD out+24(FP), R3
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16

loop:
	VLD1.P 32(R0), [V0.H8, V1.H8]
	VLD1.P 16(R1), [V2.B16]
	WORD $0x0F08A443 // SXTL   V3.8H, V2.8B
	WORD $0x4F08A444 // SXTL2  V4.8H, V2.16B
	WORD $0x0E638010 // SMLAL  V16.4S, V0.4H, V3.4H
	WORD $0x4E638011 // SMLAL2 V17.4S, V0.8H, V3.8H
	WORD $0x0E648032 // SMLAL  V18.4S, V1.4H, V4.4H
	WORD $0x4E648033 // SMLAL2 V19.4S, V1.8H, V4.8H
	SUBS $16, R2, R2
	BNE  loop

	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R3)
	RET

// func dotF32NEON(a, b *float32, n int, out *[16]float32)
// n is a positive multiple of 16. Each step loads 16 floats of each
// vector and multiplies-accumulates them into four 4-lane accumulators
// (FMLA, written as its encoding: a in V0-V3, b in V4-V7, accumulators
// V16-V19); the 16 partial sums are stored to out.
TEXT ·dotF32NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD out+24(FP), R3
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16

floop:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	WORD $0x4E24CC10 // FMLA V16.4S, V0.4S, V4.4S
	WORD $0x4E25CC31 // FMLA V17.4S, V1.4S, V5.4S
	WORD $0x4E26CC52 // FMLA V18.4S, V2.4S, V6.4S
	WORD $0x4E27CC73 // FMLA V19.4S, V3.4S, V7.4S
	SUBS $16, R2, R2
	BNE  floop

	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R3)
	RET

// func prefetch(p *byte)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVD p+0(FP), R0
	PRFM (R0), PLDL1KEEP
	RET
