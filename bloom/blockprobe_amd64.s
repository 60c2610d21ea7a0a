//go:build amd64 && !purego

#include "textflag.h"
#include "xxh3_amd64.h"

// probeLane holds i and probeTri holds i(i+1)/2 for the probe numbers i =
// 0..63 (params.MaxK = 64), eight per 512-bit vector: the closed form of
// hashing.Probes, x_i = h1 + i·h2 + h3·i(i+1)/2, for eight probes at once.
DATA probeLane<>+0(SB)/8, $0
DATA probeLane<>+8(SB)/8, $1
DATA probeLane<>+16(SB)/8, $2
DATA probeLane<>+24(SB)/8, $3
DATA probeLane<>+32(SB)/8, $4
DATA probeLane<>+40(SB)/8, $5
DATA probeLane<>+48(SB)/8, $6
DATA probeLane<>+56(SB)/8, $7
DATA probeLane<>+64(SB)/8, $8
DATA probeLane<>+72(SB)/8, $9
DATA probeLane<>+80(SB)/8, $10
DATA probeLane<>+88(SB)/8, $11
DATA probeLane<>+96(SB)/8, $12
DATA probeLane<>+104(SB)/8, $13
DATA probeLane<>+112(SB)/8, $14
DATA probeLane<>+120(SB)/8, $15
DATA probeLane<>+128(SB)/8, $16
DATA probeLane<>+136(SB)/8, $17
DATA probeLane<>+144(SB)/8, $18
DATA probeLane<>+152(SB)/8, $19
DATA probeLane<>+160(SB)/8, $20
DATA probeLane<>+168(SB)/8, $21
DATA probeLane<>+176(SB)/8, $22
DATA probeLane<>+184(SB)/8, $23
DATA probeLane<>+192(SB)/8, $24
DATA probeLane<>+200(SB)/8, $25
DATA probeLane<>+208(SB)/8, $26
DATA probeLane<>+216(SB)/8, $27
DATA probeLane<>+224(SB)/8, $28
DATA probeLane<>+232(SB)/8, $29
DATA probeLane<>+240(SB)/8, $30
DATA probeLane<>+248(SB)/8, $31
DATA probeLane<>+256(SB)/8, $32
DATA probeLane<>+264(SB)/8, $33
DATA probeLane<>+272(SB)/8, $34
DATA probeLane<>+280(SB)/8, $35
DATA probeLane<>+288(SB)/8, $36
DATA probeLane<>+296(SB)/8, $37
DATA probeLane<>+304(SB)/8, $38
DATA probeLane<>+312(SB)/8, $39
DATA probeLane<>+320(SB)/8, $40
DATA probeLane<>+328(SB)/8, $41
DATA probeLane<>+336(SB)/8, $42
DATA probeLane<>+344(SB)/8, $43
DATA probeLane<>+352(SB)/8, $44
DATA probeLane<>+360(SB)/8, $45
DATA probeLane<>+368(SB)/8, $46
DATA probeLane<>+376(SB)/8, $47
DATA probeLane<>+384(SB)/8, $48
DATA probeLane<>+392(SB)/8, $49
DATA probeLane<>+400(SB)/8, $50
DATA probeLane<>+408(SB)/8, $51
DATA probeLane<>+416(SB)/8, $52
DATA probeLane<>+424(SB)/8, $53
DATA probeLane<>+432(SB)/8, $54
DATA probeLane<>+440(SB)/8, $55
DATA probeLane<>+448(SB)/8, $56
DATA probeLane<>+456(SB)/8, $57
DATA probeLane<>+464(SB)/8, $58
DATA probeLane<>+472(SB)/8, $59
DATA probeLane<>+480(SB)/8, $60
DATA probeLane<>+488(SB)/8, $61
DATA probeLane<>+496(SB)/8, $62
DATA probeLane<>+504(SB)/8, $63
GLOBL probeLane<>(SB), RODATA|NOPTR, $512

DATA probeTri<>+0(SB)/8, $0
DATA probeTri<>+8(SB)/8, $1
DATA probeTri<>+16(SB)/8, $3
DATA probeTri<>+24(SB)/8, $6
DATA probeTri<>+32(SB)/8, $10
DATA probeTri<>+40(SB)/8, $15
DATA probeTri<>+48(SB)/8, $21
DATA probeTri<>+56(SB)/8, $28
DATA probeTri<>+64(SB)/8, $36
DATA probeTri<>+72(SB)/8, $45
DATA probeTri<>+80(SB)/8, $55
DATA probeTri<>+88(SB)/8, $66
DATA probeTri<>+96(SB)/8, $78
DATA probeTri<>+104(SB)/8, $91
DATA probeTri<>+112(SB)/8, $105
DATA probeTri<>+120(SB)/8, $120
DATA probeTri<>+128(SB)/8, $136
DATA probeTri<>+136(SB)/8, $153
DATA probeTri<>+144(SB)/8, $171
DATA probeTri<>+152(SB)/8, $190
DATA probeTri<>+160(SB)/8, $210
DATA probeTri<>+168(SB)/8, $231
DATA probeTri<>+176(SB)/8, $253
DATA probeTri<>+184(SB)/8, $276
DATA probeTri<>+192(SB)/8, $300
DATA probeTri<>+200(SB)/8, $325
DATA probeTri<>+208(SB)/8, $351
DATA probeTri<>+216(SB)/8, $378
DATA probeTri<>+224(SB)/8, $406
DATA probeTri<>+232(SB)/8, $435
DATA probeTri<>+240(SB)/8, $465
DATA probeTri<>+248(SB)/8, $496
DATA probeTri<>+256(SB)/8, $528
DATA probeTri<>+264(SB)/8, $561
DATA probeTri<>+272(SB)/8, $595
DATA probeTri<>+280(SB)/8, $630
DATA probeTri<>+288(SB)/8, $666
DATA probeTri<>+296(SB)/8, $703
DATA probeTri<>+304(SB)/8, $741
DATA probeTri<>+312(SB)/8, $780
DATA probeTri<>+320(SB)/8, $820
DATA probeTri<>+328(SB)/8, $861
DATA probeTri<>+336(SB)/8, $903
DATA probeTri<>+344(SB)/8, $946
DATA probeTri<>+352(SB)/8, $990
DATA probeTri<>+360(SB)/8, $1035
DATA probeTri<>+368(SB)/8, $1081
DATA probeTri<>+376(SB)/8, $1128
DATA probeTri<>+384(SB)/8, $1176
DATA probeTri<>+392(SB)/8, $1225
DATA probeTri<>+400(SB)/8, $1275
DATA probeTri<>+408(SB)/8, $1326
DATA probeTri<>+416(SB)/8, $1378
DATA probeTri<>+424(SB)/8, $1431
DATA probeTri<>+432(SB)/8, $1485
DATA probeTri<>+440(SB)/8, $1540
DATA probeTri<>+448(SB)/8, $1596
DATA probeTri<>+456(SB)/8, $1653
DATA probeTri<>+464(SB)/8, $1711
DATA probeTri<>+472(SB)/8, $1770
DATA probeTri<>+480(SB)/8, $1830
DATA probeTri<>+488(SB)/8, $1891
DATA probeTri<>+496(SB)/8, $1953
DATA probeTri<>+504(SB)/8, $2016
GLOBL probeTri<>(SB), RODATA|NOPTR, $512

// probeOne and probeFinal are 1 and hashing.FinalMultiplier, for the
// vector instructions that broadcast them to every lane from memory.
DATA probeOne<>+0(SB)/8, $1
GLOBL probeOne<>(SB), RODATA|NOPTR, $8
DATA probeFinal<>+0(SB)/8, $0xD6E8FEB86659FD93
GLOBL probeFinal<>(SB), RODATA|NOPTR, $8

// PROBE_SETUP prepares the closed form of hashing.Probes for the hash in
// BX (low) and CX (high): Z1–Z3 get h1 = lo, h2 = hi·StepMultiplier and
// h3 = lo·OffsetMultiplier, broadcast, and SI and DI point to probeLane
// and probeTri. Clobbers R8 and R9.
#define PROBE_SETUP \
	MOVQ $0xC2B2AE3D27D4EB4F, R8 \
	IMULQ BX, R8 \
	MOVQ $0x9E3779B97F4A7C15, R9 \
	IMULQ CX, R9 \
	VPBROADCASTQ BX, Z1 \
	VPBROADCASTQ R9, Z2 \
	VPBROADCASTQ R8, Z3 \
	LEAQ probeLane<>(SB), SI \
	LEAQ probeTri<>(SB), DI

// PROBE_VALUES leaves in v the values Finalize(x_i) of the eight probes
// whose numbers i are at off(SI) (and i(i+1)/2 at off(DI)), after
// PROBE_SETUP. Clobbers t1, t2 and t3.
#define PROBE_VALUES(off, t1, t2, t3, v) \
	VMOVDQU64 off(SI), t1 \
	VMOVDQU64 off(DI), t2 \
	VPMULLQ Z2, t1, v \
	VPMULLQ Z3, t2, t3 \
	VPADDQ  Z1, v, v \
	VPADDQ  t3, v, v \
	VPSRLQ  $32, v, t3 \
	VPXORQ  t3, v, v \
	VPMULLQ.BCST probeFinal<>(SB), v, v

// BLOCK_ALL_SET is the body of blockAllSetAVX512: it reads the 512-bit
// block at AX, computes the probes of the hash in BX (low) and CX (high),
// DX of them (k ≥ 1), and jumps to the function's label absent at the
// first step that finds a zero bit; it falls through when all are set.
// Clobbers AX–DX, SI, DI, R8, R9, R12, Z1–Z3, Z5, Z7–Z19 and K1–K4. Uses
// the labels step and test, so it appears at most once in a function.
//
// Registers: Z5 the block; Z1–Z3 h1, h2 = hi·StepMultiplier and h3 =
// lo·OffsetMultiplier, broadcast; K1 and K3 the lanes in use in the
// step's two vectors of eight probes (BZHI: the low min(DX, 64) bits of
// ones). A lane's probe value v_i = Finalize(x_i) gives bit b = v_i>>55
// of the block: word b>>6 (the top three bits, VPERMQ), bit b&63 (the
// next six: VPRORVQ rotates by v_i>>55 mod 64, which brings the bit to
// bit 0 with one shift fewer than masking the count for VPSRLVQ); K2 and
// K4 get the lanes in use whose bit is zero. For k ≤ 8, one vector, the
// second's mask is not computed. Needs BMI2 (BZHI) besides AVX-512 F and
// DQ (hasAVX512 checks all three). Against the form with a mask built by
// SHL, the bit shifted out with VPSRLVQ and the constants broadcast from
// registers (six instructions more for k ≤ 8), by 45-byte key at 10^5
// keys, medians of 41 interleaved rounds' ratios: members 2.9% and
// non-members 1.5% faster.
#define BLOCK_ALL_SET \
	VMOVDQU64 (AX), Z5 \
	PROBE_SETUP \
step: \
	MOVQ  $-1, R12 \
	BZHIQ DX, R12, R12 \
	KMOVB R12, K1 \
	PROBE_VALUES(0, Z7, Z8, Z10, Z9) \
	VPSRLQ  $61, Z9, Z10 \
	VPSRLQ  $55, Z9, Z11 \
	VPERMQ  Z5, Z10, Z12 \
	VPRORVQ Z11, Z12, Z12 \
	VPTESTNMQ.BCST probeOne<>(SB), Z12, K1, K2 \
	CMPQ DX, $8 \
	JLE  test \
	SHRQ  $8, R12 \
	KMOVB R12, K3 \
	PROBE_VALUES(64, Z13, Z14, Z17, Z16) \
	VPSRLQ  $61, Z16, Z17 \
	VPSRLQ  $55, Z16, Z18 \
	VPERMQ  Z5, Z17, Z19 \
	VPRORVQ Z18, Z19, Z19 \
	VPTESTNMQ.BCST probeOne<>(SB), Z19, K3, K4 \
	KORB K2, K4, K2 \
test: \
	KORTESTB K2, K2 \
	JNZ  absent \
	ADDQ $128, SI \
	ADDQ $128, DI \
	SUBQ $16, DX \
	JG   step

// BLOCK_ALL_SET_KEY is the body of blockAllSetKeyAVX512 and
// blockAllSetKey64AVX512 after their hash (XXH3_KEY_BLOCK or
// XXH3_KEY_BLOCK64 with shift 6: the block's address in DX, lo in BX, hi
// in CX): BLOCK_ALL_SET on that block with the argument k, and the answer
// written to the result of their common signature. Uses the label absent.
#define BLOCK_ALL_SET_KEY \
	MOVQ DX, AX \
	MOVQ k+40(FP), DX \
	BLOCK_ALL_SET \
	VZEROUPPER \
	MOVB $1, ret+48(FP) \
	RET \
absent: \
	VZEROUPPER \
	MOVB $0, ret+48(FP) \
	RET

// BLOCK_SET_KEY is the body of blockSetKeyAsm and blockSetKey64Asm after
// their hash (XXH3_KEY_BLOCK or XXH3_KEY_BLOCK64 with shift 6: the
// block's address in DX, lo in BX, hi in CX): BLOCK_SET on that block
// with the argument k and the frame's 128 bytes of lanes, 64-byte
// aligned, as its scratch.
#define BLOCK_SET_KEY \
	MOVQ DX, AX \
	MOVQ k+40(FP), DX \
	LEAQ 63(SP), R10 \
	ANDQ $-64, R10 \
	BLOCK_SET \
	VZEROUPPER \
	RET

// func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool
//
// blockAllSet for sixteen probes per step, in two vectors of eight: the
// probe values are computed in closed form (hashing.ProbeValue) in the
// lanes, each lane's word of the block is picked from the block held in
// one register (VPERMQ by the top three bits of the value) and shifted
// right by the next six bits, and a lane whose low bit is zero ends the
// query. One branch per step: for the usual k ≤ 16 the answer is a single
// predictable branch, whatever probe finds the zero.
TEXT ·blockAllSetAVX512(SB), NOSPLIT, $0-33
	MOVQ w+0(FP), AX
	MOVQ lo+8(FP), BX
	MOVQ hi+16(FP), CX
	MOVQ k+24(FP), DX

	BLOCK_ALL_SET

	VZEROUPPER
	MOVB $1, ret+32(FP)
	RET

absent:
	VZEROUPPER
	MOVB $0, ret+32(FP)
	RET

// func blockAllSetKeyAVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool
//
// blockAllSetAVX512 for a key of n bytes, 17 ≤ n ≤ 128, hashed here
// (XXH3_MID, the hash of hashing.SumSeed under t's seed): the key's block
// is block ⌊hi·nblocks/2^64⌋ (hashing.Block) of the nblocks blocks of 8
// words from words. One routine from the key to the answer, so that out of
// cache the next key's load is as few instructions away as it can be (see
// internal/xxh3asm).
TEXT ·blockAllSetKeyAVX512(SB), NOSPLIT, $0-49
	XXH3_KEY_BLOCK(6) // 64 bytes a block
	BLOCK_ALL_SET_KEY

// func blockAllSetKey64AVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool
//
// blockAllSetKeyAVX512 with the key hashed by XXH3_MID64: XXH3-64 of the
// key under t's seed and the word derived from it, the hash {lo, hi} that
// then picks the block and the probes exactly as blockAllSetKeyAVX512's
// XXH3-128 does.
TEXT ·blockAllSetKey64AVX512(SB), NOSPLIT, $0-49
	XXH3_KEY_BLOCK64(6) // 64 bytes a block
	BLOCK_ALL_SET_KEY

// BLOCK_SET is the body of blockSetAVX512, blockSetKeyAsm and
// blockSetKey64Asm: it sets in the 512-bit block at AX the probes of the
// hash in BX (low) and CX (high), DX of them (k ≥ 1), eight at a time,
// with the block read and written once at the end. R10 points to 128
// bytes of scratch, 64-byte aligned. Clobbers DX, SI, DI, R8, R9, R12,
// Z1–Z12, Z20, Z21, K1 and K2. Uses the label set, so it appears at most
// once in a function.
//
// The probe values come in lanes as in BLOCK_ALL_SET. Lane i's probe is
// bit v_i&63 (VPROLVQ rotates the 1 by v_i>>55 mod 64) of word v_i>>61;
// the eight lanes' words and bits go to the 128 bytes at R10, and the
// block's own word numbers (Z6: 0..7) are compared with each lane's word
// in turn (embedded broadcast), so that the lane's bit is ORed into the
// word it belongs to: two instructions a probe, where a scalar loop
// takes twelve (and k reads and writes of the block). A lane beyond k
// gets word 8, which no word of the block has. Against a scalar loop in
// assembly (BMI2's RORX and SHLX), by 45-byte key: adds 16–22% faster in
// cache, the same within the noise out of it (docs/BENCHMARKS.md).
// OR_LANE ORs the bit of the lane at off in the scratch at R10 (its word
// number at off, its bit at 64+off) into Z20's lanes whose word number
// (Z6) is the lane's: BLOCK_SET's two instructions a probe.
#define OR_LANE(off) \
	VPCMPEQQ.BCST off(R10), Z6, K2 \
	VPORQ.BCST 64+off(R10), Z20, K2, Z20

#define BLOCK_SET \
	PROBE_SETUP \
	VMOVDQU64 (SI), Z6 \
	VPBROADCASTQ probeOne<>(SB), Z4 \
	VPSLLQ $3, Z4, Z21 \
	VPXORQ Z20, Z20, Z20 \
set: \
	MOVQ  $-1, R12 \
	BZHIQ DX, R12, R12 \
	KMOVB R12, K1 \
	PROBE_VALUES(0, Z7, Z8, Z10, Z9) \
	VMOVDQA64 Z21, Z10 \
	VPSRLQ  $61, Z9, K1, Z10 \
	VPSRLQ  $55, Z9, Z11 \
	VPROLVQ Z11, Z4, Z12 \
	VMOVDQU64 Z10, (R10) \
	VMOVDQU64 Z12, 64(R10) \
	OR_LANE(0) \
	OR_LANE(8) \
	OR_LANE(16) \
	OR_LANE(24) \
	OR_LANE(32) \
	OR_LANE(40) \
	OR_LANE(48) \
	OR_LANE(56) \
	ADDQ $64, SI \
	ADDQ $64, DI \
	SUBQ $8, DX \
	JG   set \
	VPORQ (AX), Z20, Z20 \
	VMOVDQU64 Z20, (AX)

// func blockSetAVX512(w *[8]uint64, lo, hi uint64, k int)
//
// blockSet in AVX-512 (BLOCK_SET), for a hash already computed. Its frame
// is 128 bytes of lanes, 64-byte aligned as blockSetKeyAsm's.
TEXT ·blockSetAVX512(SB), NOSPLIT, $192-32
	MOVQ w+0(FP), AX
	MOVQ lo+8(FP), BX
	MOVQ hi+16(FP), CX
	MOVQ k+24(FP), DX
	LEAQ 63(SP), R10
	ANDQ $-64, R10

	BLOCK_SET

	VZEROUPPER
	RET

// func blockSetKeyAsm(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int)
//
// blockSet for a key of n bytes, 17 ≤ n ≤ 128, hashed here as in
// blockAllSetKeyAVX512: it sets the key's k bits in its block (BLOCK_SET)
// and counts nothing. Its frame is 128 bytes of lanes, 64-byte aligned so
// that the loads of single lanes are forwarded from the two stores within
// one line each.
TEXT ·blockSetKeyAsm(SB), NOSPLIT, $192-48
	XXH3_KEY_BLOCK(6) // 64 bytes a block
	BLOCK_SET_KEY

// func blockSetKey64Asm(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int)
//
// blockSetKeyAsm with the key hashed by XXH3_MID64, as in
// blockAllSetKey64AVX512. Its frame is blockSetKeyAsm's.
TEXT ·blockSetKey64Asm(SB), NOSPLIT, $192-48
	XXH3_KEY_BLOCK64(6) // 64 bytes a block
	BLOCK_SET_KEY

// RANGE_PROBE(dst, step) computes the next probe of the sequence in R8
// (x), R9 (y), R10 (z) with R11 = hashing.FinalMultiplier, its bit b =
// BX + ⌊v·SI/2^64⌋ (BX the probe's base, then advanced by step, a memory
// operand), and leaves in dst the word of b shifted right by b mod 64, so
// that dst's low bit is the bit. Clobbers AX, CX, DX.
#define RANGE_PROBE(dst, step) \
	MOVQ  R8, AX \
	SHRQ  $32, AX \
	XORQ  R8, AX \
	IMULQ R11, AX \
	ADDQ  R9, R8 \
	ADDQ  R10, R9 \
	MULQ  SI \
	ADDQ  BX, DX \
	ADDQ  step, BX \
	MOVQ  DX, CX \
	SHRQ  $6, DX \
	MOVQ  (DI)(DX*8), dst \
	SHRQ  CX, dst

// func rangeHasKeyAsm(words *uint64, r uint64, key *byte, n int, t *xxh3asm.Keyed, k int, step uint64) bool
//
// containsRange for a key of n bytes, 17 ≤ n ≤ 128, hashed here
// (XXH3_MID), in the classic (step 0, r = m) or partitioned (step = r =
// the slice) layout: probe i is bit i·step + ⌊v_i·r/2^64⌋. As
// containsRange, it reads the first two probes' words before testing
// either, then the others one by one with an early exit. Scalar only:
// the probes go to memory one by one, and a vector unit would not make
// the misses fewer.
TEXT ·rangeHasKeyAsm(SB), NOSPLIT, $0-57
	MOVQ key+16(FP), SI
	MOVQ n+24(FP), R8
	MOVQ t+32(FP), R9
	XXH3_MID

	MOVQ BX, R8                   // x = h1 = lo
	MOVQ $0xC2B2AE3D27D4EB4F, R10 // hashing.OffsetMultiplier
	IMULQ BX, R10                 // z = h3
	MOVQ $0x9E3779B97F4A7C15, R9  // hashing.StepMultiplier
	IMULQ CX, R9
	ADDQ R10, R9                  // y = hi·StepMultiplier + z
	MOVQ $0xD6E8FEB86659FD93, R11 // hashing.FinalMultiplier
	MOVQ words+0(FP), DI
	MOVQ r+8(FP), SI
	MOVQ k+40(FP), R12
	XORL BX, BX                   // the first probe's base

	CMPQ R12, $2
	JLT  probe
	RANGE_PROBE(R13, step+48(FP))
	RANGE_PROBE(AX, step+48(FP))
	ANDQ R13, AX
	TESTQ $1, AX
	JZ   rabsent
	SUBQ $2, R12
	JZ   rpresent

probe:
	RANGE_PROBE(AX, step+48(FP))
	TESTQ $1, AX
	JZ   rabsent
	DECQ R12
	JNZ  probe

rpresent:
	MOVB $1, ret+56(FP)
	RET

rabsent:
	MOVB $0, ret+56(FP)
	RET
