//go:build amd64 && !purego

#include "textflag.h"

// func Bits(words []uint64, pos []uint64)
TEXT ·Bits(SB), NOSPLIT, $0-48
	MOVQ words_base+0(FP), SI
	MOVQ pos_base+24(FP), DI
	MOVQ pos_len+32(FP), CX
	TESTQ CX, CX
	JZ done

loop:
	MOVQ (DI), AX
	SHRQ $6, AX
	PREFETCHT0 (SI)(AX*8)
	ADDQ $8, DI
	DECQ CX
	JNZ loop

done:
	RET
