//go:build amd64 && !purego

#include "textflag.h"

// func Words(words []uint64, pos []uint64, shift uint)
TEXT ·Words(SB), NOSPLIT, $0-56
	MOVQ words_base+0(FP), SI
	MOVQ pos_base+24(FP), DI
	MOVQ pos_len+32(FP), BX
	MOVQ shift+48(FP), CX
	TESTQ BX, BX
	JZ done

loop:
	MOVQ (DI), AX
	SHRQ CX, AX
	PREFETCHT0 (SI)(AX*8)
	ADDQ $8, DI
	DECQ BX
	JNZ loop

done:
	RET
