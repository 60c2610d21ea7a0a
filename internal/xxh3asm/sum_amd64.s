//go:build amd64 && !purego

#include "textflag.h"
#include "xxh3_amd64.h"

// func sum(p *byte, n int, t *Keyed) (lo, hi uint64)
TEXT ·sum(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), R8
	MOVQ t+16(FP), R9
	XXH3_MID
	MOVQ BX, lo+24(FP)
	MOVQ CX, hi+32(FP)
	RET

// func sum64(p *byte, n int, t *Keyed) (lo, hi uint64)
TEXT ·sum64(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), R8
	MOVQ t+16(FP), R9
	XXH3_MID64
	MOVQ BX, lo+24(FP)
	MOVQ CX, hi+32(FP)
	RET
