//go:build amd64 && !purego

#include "textflag.h"
#include "xxh3_amd64.h"

// Both queries below compute hashing.Probes' values in closed form, eight
// per vector: x_i = h1 + i·h2 + h3·i(i+1)/2 and v_i = Finalize(x_i).
//
// PROBESETUP takes h1 = lo from BX and hi from CX and leaves h1, h2 =
// hi·StepMultiplier, h3 = lo·OffsetMultiplier and FinalMultiplier
// broadcast in Z1–Z4. Clobbers R8–R10.
#define PROBESETUP \
	MOVQ $0xC2B2AE3D27D4EB4F, R8 \
	IMULQ BX, R8 \
	MOVQ $0x9E3779B97F4A7C15, R9 \
	IMULQ CX, R9 \
	MOVQ $0xD6E8FEB86659FD93, R10 \
	VPBROADCASTQ BX, Z1 \
	VPBROADCASTQ R9, Z2 \
	VPBROADCASTQ R8, Z3 \
	VPBROADCASTQ R10, Z4

// PROBES leaves in Z9 the values v_i of the eight probe numbers whose i
// and i(i+1)/2 are at (SI) and (DI). Clobbers Z7, Z8, Z10.
#define PROBES \
	VMOVDQU64 (SI), Z7 \
	VMOVDQU64 (DI), Z8 \
	VPMULLQ Z2, Z7, Z9 \
	VPMULLQ Z3, Z8, Z10 \
	VPADDQ  Z1, Z9, Z9 \
	VPADDQ  Z10, Z9, Z9 \
	VPSRLQ  $32, Z9, Z10 \
	VPXORQ  Z10, Z9, Z9 \
	VPMULLQ Z4, Z9, Z9

// BLOCK_COUNTERS is the body of blockCountersAVX512: it reads the block
// of 512 4-bit counters at AX, one load per line, computes the probes of
// the hash in BX (low) and CX (high), DX of them (k ≥ 1), and jumps to the
// function's label absent at the first step that finds a zero counter;
// it falls through when all are non-zero. Clobbers AX–DX, SI, DI,
// R8–R12, Z1–Z14, Z20–Z24 and K1–K4. Uses the labels step and mask, so it
// appears at most once in a function.
//
// Registers: Z20–Z23 the block's four lines; Z5 = 60, for a counter's bit
// in its word, (b&15)·4 = (v>>53)&60; Z6 = 15, a counter's bits; Z24 = 16,
// to test for words ≥ 16, the block's second half; K1 the lanes in use in
// the step. Each lane's word, b>>4 = v>>59, is picked from words 0..15 and
// from 16..31 by two permutes (VPERMI2Q reads the low four bits of the
// index), then the right one by bit 4 (VPBLENDMQ); K2 gets the lanes in
// use whose counter is zero.
#define BLOCK_COUNTERS \
	VMOVDQU64 (AX), Z20 \
	VMOVDQU64 64(AX), Z21 \
	VMOVDQU64 128(AX), Z22 \
	VMOVDQU64 192(AX), Z23 \
	PROBESETUP \
	MOVQ $60, R11 \
	VPBROADCASTQ R11, Z5 \
	MOVQ $15, R11 \
	VPBROADCASTQ R11, Z6 \
	MOVQ $16, R11 \
	VPBROADCASTQ R11, Z24 \
	LEAQ countersLane<>(SB), SI \
	LEAQ countersTri<>(SB), DI \
step: \
	MOVQ $0xFF, R12 \
	CMPQ DX, $8 \
	JGE  mask \
	MOVQ $1, R12 \
	MOVQ DX, CX \
	SHLQ CX, R12 \
	DECQ R12 \
mask: \
	KMOVB R12, K1 \
	PROBES \
	VPSRLQ $59, Z9, Z10 \
	VPSRLQ $53, Z9, Z11 \
	VPANDQ Z5, Z11, Z11 \
	VMOVDQA64 Z10, Z12 \
	VPERMI2Q  Z21, Z20, Z12 \
	VMOVDQA64 Z10, Z13 \
	VPERMI2Q  Z23, Z22, Z13 \
	VPTESTMQ  Z24, Z10, K4 \
	VPBLENDMQ Z13, Z12, K4, Z14 \
	VPSRLVQ   Z11, Z14, Z14 \
	VPTESTNMQ Z6, Z14, K1, K2 \
	KORTESTB  K2, K2 \
	JNZ       absent \
	ADDQ $64, SI \
	ADDQ $64, DI \
	SUBQ $8, DX \
	JG   step

// BLOCK_COUNTERS_KEY is the body of blockCountersKeyAVX512 and
// blockCountersKey64AVX512 after their hash (XXH3_KEY_BLOCK or
// XXH3_KEY_BLOCK64 with shift 8, the block's address in DX, lo in BX, hi
// in CX): BLOCK_COUNTERS on that block with the argument k, and the
// answer written to the result of their common signature. Uses the label
// absent.
#define BLOCK_COUNTERS_KEY \
	MOVQ DX, AX \
	MOVQ k+40(FP), DX \
	BLOCK_COUNTERS \
	VZEROUPPER \
	MOVB $1, ret+48(FP) \
	RET \
absent: \
	VZEROUPPER \
	MOVB $0, ret+48(FP) \
	RET

// func blockCountersAVX512(w *[32]uint64, lo, hi uint64, k int) bool
//
// blockCounters4 for eight probes per step: the block's 512 4-bit counters
// (32 words, four cache lines) are loaded into four registers with one
// load per line, and each probe's word is picked from them by two
// two-table permutes and a blend, then shifted to its counter. A probe
// reads no memory of its own: out of cache, a query issues four loads
// however many probes it makes (loads that merge into a line already on
// its way still cost the CPU resources of their own), and in cache the
// probes need no load port. The probe values are hashing.Probes' closed
// form, x_i = h1 + i·h2 + h3·i(i+1)/2 and v_i = Finalize(x_i); counter
// b = v_i>>55 of the block is in word b>>4 at bit (b&15)·4.
TEXT ·blockCountersAVX512(SB), NOSPLIT, $0-33
	MOVQ w+0(FP), AX
	MOVQ lo+8(FP), BX
	MOVQ hi+16(FP), CX
	MOVQ k+24(FP), DX

	BLOCK_COUNTERS

	VZEROUPPER
	MOVB $1, ret+32(FP)
	RET

absent:
	VZEROUPPER
	MOVB $0, ret+32(FP)
	RET

// func blockCountersKeyAVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool
//
// blockCountersAVX512 for a key of n bytes, 17 ≤ n ≤ 128, hashed here
// (XXH3_MID, the hash of hashing.SumSeed under t's seed): the key's block
// is block ⌊hi·nblocks/2^64⌋ (hashing.Block) of the nblocks blocks of 32
// words from words. One routine from the key to the answer, so that out of
// cache the next key's load is as few instructions away as it can be (see
// internal/xxh3asm).
TEXT ·blockCountersKeyAVX512(SB), NOSPLIT, $0-49
	XXH3_KEY_BLOCK(8) // 256 bytes a block
	BLOCK_COUNTERS_KEY

// func blockCountersKey64AVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool
//
// blockCountersKeyAVX512 with the key hashed by XXH3_MID64 (hashing
// scheme XXH3x64, hashing.Sum64Seed under t's seed): XXH3-64 of the key
// and the word derived from it, the hash {lo, hi} that then picks the
// block and the probes exactly as blockCountersKeyAVX512's XXH3-128 does.
TEXT ·blockCountersKey64AVX512(SB), NOSPLIT, $0-49
	XXH3_KEY_BLOCK64(8) // 256 bytes a block
	BLOCK_COUNTERS_KEY

// func classicCountersAVX512(c []uint64, r, lo, hi uint64, k int) bool
//
// classicCounters4 for eight probes per step, with 4-bit counters in the
// classic layout: the probe values as in blockCountersAVX512, each reduced
// to a counter b = ⌊v·r/2^64⌋ of the r < 2^32 counters in c (from 32-bit
// products: (⌊v/2^32⌋·r + ⌊(v mod 2^32)·r/2^32⌋) / 2^32, floored, is
// exactly that), the lanes' words gathered (VPGATHERQQ) four lanes
// at a time and shifted to the counter. In cache that replaces
// some two hundred scalar instructions for the usual k of about 7 with
// about forty; out of cache a member's loads leave together.
TEXT ·classicCountersAVX512(SB), NOSPLIT, $0-57
	MOVQ c_base+0(FP), AX
	MOVQ r+24(FP), R13
	MOVQ lo+32(FP), BX
	MOVQ hi+40(FP), CX
	MOVQ k+48(FP), DX

	PROBESETUP
	MOVQ $60, R11
	VPBROADCASTQ R11, Z5 // (b&15)·4
	MOVQ $15, R11
	VPBROADCASTQ R11, Z6 // a counter's bits
	VPBROADCASTQ R13, Z15 // r
	MOVQ $0x0F, R11
	KMOVB R11, K5 // the low four lanes
	MOVQ $0xF0, R11
	KMOVB R11, K6 // the high four

	LEAQ countersLane<>(SB), SI
	LEAQ countersTri<>(SB), DI

cstep:
	// K1: the lanes in use.
	MOVQ $0xFF, R12
	CMPQ DX, $8
	JGE  cmask
	MOVQ $1, R12
	MOVQ DX, CX
	SHLQ CX, R12
	DECQ R12

cmask:
	KMOVB R12, K1

	PROBES

	VPSRLQ   $32, Z9, Z10
	VPMULUDQ Z15, Z10, Z10 // ⌊v/2^32⌋·r
	VPMULUDQ Z15, Z9, Z11  // (v mod 2^32)·r
	VPSRLQ   $32, Z11, Z11
	VPADDQ   Z11, Z10, Z10
	VPSRLQ   $32, Z10, Z10 // b

	VPSRLQ $4, Z10, Z11    // the counter's word
	VPSLLQ $2, Z10, Z12
	VPANDQ Z5, Z12, Z12    // its bit in the word

	// The first four lanes, then the other four: a key that is absent
	// (half the counters zero at the usual load) is refused after four
	// loads 15 times in 16, and a member costs one predicted branch more.
	KANDB  K5, K1, K4      // the low lanes in use; the gather clears K3
	KMOVB  K4, K3
	VPXORQ Z13, Z13, Z13
	VPGATHERQQ (AX)(Z11*8), K3, Z13
	VPSRLVQ   Z12, Z13, Z13
	VPTESTNMQ Z6, Z13, K4, K2 // lanes whose counter is zero
	KORTESTB  K2, K2
	JNZ       cabsent

	KANDB    K6, K1, K4    // the high lanes in use
	KORTESTB K4, K4
	JZ       cnext
	KMOVB    K4, K3
	VPXORQ   Z13, Z13, Z13
	VPGATHERQQ (AX)(Z11*8), K3, Z13
	VPSRLVQ   Z12, Z13, Z13
	VPTESTNMQ Z6, Z13, K4, K2
	KORTESTB  K2, K2
	JNZ       cabsent

cnext:
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, DX
	JG   cstep

	VZEROUPPER
	MOVB $1, ret+56(FP)
	RET

cabsent:
	VZEROUPPER
	MOVB $0, ret+56(FP)
	RET

// countersLane holds i and countersTri i(i+1)/2 for the probe numbers
// i = 0..63 (params.MaxK = 64), eight per 512-bit vector.
DATA countersLane<>+0(SB)/8, $0
DATA countersLane<>+8(SB)/8, $1
DATA countersLane<>+16(SB)/8, $2
DATA countersLane<>+24(SB)/8, $3
DATA countersLane<>+32(SB)/8, $4
DATA countersLane<>+40(SB)/8, $5
DATA countersLane<>+48(SB)/8, $6
DATA countersLane<>+56(SB)/8, $7
DATA countersLane<>+64(SB)/8, $8
DATA countersLane<>+72(SB)/8, $9
DATA countersLane<>+80(SB)/8, $10
DATA countersLane<>+88(SB)/8, $11
DATA countersLane<>+96(SB)/8, $12
DATA countersLane<>+104(SB)/8, $13
DATA countersLane<>+112(SB)/8, $14
DATA countersLane<>+120(SB)/8, $15
DATA countersLane<>+128(SB)/8, $16
DATA countersLane<>+136(SB)/8, $17
DATA countersLane<>+144(SB)/8, $18
DATA countersLane<>+152(SB)/8, $19
DATA countersLane<>+160(SB)/8, $20
DATA countersLane<>+168(SB)/8, $21
DATA countersLane<>+176(SB)/8, $22
DATA countersLane<>+184(SB)/8, $23
DATA countersLane<>+192(SB)/8, $24
DATA countersLane<>+200(SB)/8, $25
DATA countersLane<>+208(SB)/8, $26
DATA countersLane<>+216(SB)/8, $27
DATA countersLane<>+224(SB)/8, $28
DATA countersLane<>+232(SB)/8, $29
DATA countersLane<>+240(SB)/8, $30
DATA countersLane<>+248(SB)/8, $31
DATA countersLane<>+256(SB)/8, $32
DATA countersLane<>+264(SB)/8, $33
DATA countersLane<>+272(SB)/8, $34
DATA countersLane<>+280(SB)/8, $35
DATA countersLane<>+288(SB)/8, $36
DATA countersLane<>+296(SB)/8, $37
DATA countersLane<>+304(SB)/8, $38
DATA countersLane<>+312(SB)/8, $39
DATA countersLane<>+320(SB)/8, $40
DATA countersLane<>+328(SB)/8, $41
DATA countersLane<>+336(SB)/8, $42
DATA countersLane<>+344(SB)/8, $43
DATA countersLane<>+352(SB)/8, $44
DATA countersLane<>+360(SB)/8, $45
DATA countersLane<>+368(SB)/8, $46
DATA countersLane<>+376(SB)/8, $47
DATA countersLane<>+384(SB)/8, $48
DATA countersLane<>+392(SB)/8, $49
DATA countersLane<>+400(SB)/8, $50
DATA countersLane<>+408(SB)/8, $51
DATA countersLane<>+416(SB)/8, $52
DATA countersLane<>+424(SB)/8, $53
DATA countersLane<>+432(SB)/8, $54
DATA countersLane<>+440(SB)/8, $55
DATA countersLane<>+448(SB)/8, $56
DATA countersLane<>+456(SB)/8, $57
DATA countersLane<>+464(SB)/8, $58
DATA countersLane<>+472(SB)/8, $59
DATA countersLane<>+480(SB)/8, $60
DATA countersLane<>+488(SB)/8, $61
DATA countersLane<>+496(SB)/8, $62
DATA countersLane<>+504(SB)/8, $63
GLOBL countersLane<>(SB), RODATA|NOPTR, $512

DATA countersTri<>+0(SB)/8, $0
DATA countersTri<>+8(SB)/8, $1
DATA countersTri<>+16(SB)/8, $3
DATA countersTri<>+24(SB)/8, $6
DATA countersTri<>+32(SB)/8, $10
DATA countersTri<>+40(SB)/8, $15
DATA countersTri<>+48(SB)/8, $21
DATA countersTri<>+56(SB)/8, $28
DATA countersTri<>+64(SB)/8, $36
DATA countersTri<>+72(SB)/8, $45
DATA countersTri<>+80(SB)/8, $55
DATA countersTri<>+88(SB)/8, $66
DATA countersTri<>+96(SB)/8, $78
DATA countersTri<>+104(SB)/8, $91
DATA countersTri<>+112(SB)/8, $105
DATA countersTri<>+120(SB)/8, $120
DATA countersTri<>+128(SB)/8, $136
DATA countersTri<>+136(SB)/8, $153
DATA countersTri<>+144(SB)/8, $171
DATA countersTri<>+152(SB)/8, $190
DATA countersTri<>+160(SB)/8, $210
DATA countersTri<>+168(SB)/8, $231
DATA countersTri<>+176(SB)/8, $253
DATA countersTri<>+184(SB)/8, $276
DATA countersTri<>+192(SB)/8, $300
DATA countersTri<>+200(SB)/8, $325
DATA countersTri<>+208(SB)/8, $351
DATA countersTri<>+216(SB)/8, $378
DATA countersTri<>+224(SB)/8, $406
DATA countersTri<>+232(SB)/8, $435
DATA countersTri<>+240(SB)/8, $465
DATA countersTri<>+248(SB)/8, $496
DATA countersTri<>+256(SB)/8, $528
DATA countersTri<>+264(SB)/8, $561
DATA countersTri<>+272(SB)/8, $595
DATA countersTri<>+280(SB)/8, $630
DATA countersTri<>+288(SB)/8, $666
DATA countersTri<>+296(SB)/8, $703
DATA countersTri<>+304(SB)/8, $741
DATA countersTri<>+312(SB)/8, $780
DATA countersTri<>+320(SB)/8, $820
DATA countersTri<>+328(SB)/8, $861
DATA countersTri<>+336(SB)/8, $903
DATA countersTri<>+344(SB)/8, $946
DATA countersTri<>+352(SB)/8, $990
DATA countersTri<>+360(SB)/8, $1035
DATA countersTri<>+368(SB)/8, $1081
DATA countersTri<>+376(SB)/8, $1128
DATA countersTri<>+384(SB)/8, $1176
DATA countersTri<>+392(SB)/8, $1225
DATA countersTri<>+400(SB)/8, $1275
DATA countersTri<>+408(SB)/8, $1326
DATA countersTri<>+416(SB)/8, $1378
DATA countersTri<>+424(SB)/8, $1431
DATA countersTri<>+432(SB)/8, $1485
DATA countersTri<>+440(SB)/8, $1540
DATA countersTri<>+448(SB)/8, $1596
DATA countersTri<>+456(SB)/8, $1653
DATA countersTri<>+464(SB)/8, $1711
DATA countersTri<>+472(SB)/8, $1770
DATA countersTri<>+480(SB)/8, $1830
DATA countersTri<>+488(SB)/8, $1891
DATA countersTri<>+496(SB)/8, $1953
DATA countersTri<>+504(SB)/8, $2016
GLOBL countersTri<>(SB), RODATA|NOPTR, $512
