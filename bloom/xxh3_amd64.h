// Code generated from internal/xxh3asm/xxh3_amd64.h by internal/xxh3asm/genheader (go generate); DO NOT EDIT.
// Code shared by the amd64 assembly of bloom, counting and
// internal/xxh3asm. The assembler includes headers from a package's own
// directory only, so bloom and counting hold copies that
// internal/xxh3asm/genheader writes from this file, the one source: edit
// it, then run go generate ./bloom ./counting (CI fails when a copy
// differs from what the generator writes).
//
// XXH3_MID hashes the n bytes at SI, 17 ≤ n ≤ 128, with XXH3-128 and a
// seed, exactly as hashing.SumSeed does (XXH3 by Yann Collet; the
// algorithm of doc/xxhash_spec.md in github.com/Cyan4973/xxHash, "128-bit
// variant, 17 to 128 bytes"). The seed comes pre-mixed into the secret:
// R9 points to an xxh3asm.Keyed table, whose words 0..15 are the default
// secret's first sixteen words with the seed added to the even ones and
// subtracted from the odd ones, and word 16 is the seed itself, so a round
// reads its four keyed words as memory operands.
//
// In: SI the bytes, R8 n, R9 the table. Out: BX the low and CX the high
// half of the hash. Clobbers AX, DX, R8, R11, R12, R13 and flags. Uses
// the labels xxh3r0, xxh3r1 and xxh3r2, so it appears at most once in a
// function.

// XXH3_MIX16 adds to BX XXH3's mix of 16 input bytes, the words at the
// memory operands w0 and w1, with the keyed secret words at toff(R9) and
// toff+8(R9): BX += fold(w0^t0, w1^t1), where fold(x, y) is the xor of the
// two halves of the 128-bit product (the spec's mix16B, its seed already
// in the secret). Clobbers AX, DX and flags.
#define XXH3_MIX16(w0, w1, toff) \
	MOVQ w0, AX \
	XORQ toff(R9), AX \
	MOVQ w1, DX \
	XORQ toff+8(R9), DX \
	MULQ DX \
	XORQ DX, AX \
	ADDQ AX, BX

// XXH3_ROUND folds the 16 bytes at foff(SI) and the 16 at (R11) into the
// accumulators BX (low) and CX (high), with the keyed secret words at
// toff(R9) .. toff+24(R9): low += fold(f0^t0, f1^t1) ^ (b0+b1) and high
// += fold(b0^t2, b1^t3) ^ (f0+f1).
#define XXH3_ROUND(foff, toff) \
	XXH3_MIX16(foff(SI), foff+8(SI), toff) \
	MOVQ (R11), R12 \
	MOVQ 8(R11), R13 \
	LEAQ (R12)(R13*1), AX \
	XORQ AX, BX \
	MOVQ R12, AX \
	XORQ toff+16(R9), AX \
	XORQ toff+24(R9), R13 \
	MULQ R13 \
	XORQ DX, AX \
	ADDQ AX, CX \
	MOVQ foff(SI), AX \
	ADDQ foff+8(SI), AX \
	XORQ AX, CX

// XXH3_AVALANCHE is XXH3's final mix of one 64-bit word in r. Clobbers DX.
#define XXH3_AVALANCHE(r) \
	MOVQ r, DX \
	SHRQ $37, DX \
	XORQ DX, r \
	MOVQ $0x165667919E3779F9, DX \
	IMULQ DX, r \
	MOVQ r, DX \
	SHRQ $32, DX \
	XORQ DX, r

// XXH3_MID: the rounds run from the innermost pair of 16-byte chunks
// outwards (bytes 48.. with n−64.., then 32.. with n−48.., 16.. with
// n−32.., 0.. with n−16..), as many as n needs; then low = avalanche(low
// + high) and high = −avalanche(low·P1 + high·P4 + (n − seed)·P2).
#define XXH3_MID \
	MOVQ $0x9E3779B185EBCA87, BX \
	IMULQ R8, BX \
	XORL CX, CX \
	CMPQ R8, $32 \
	JLE  xxh3r0 \
	CMPQ R8, $64 \
	JLE  xxh3r1 \
	CMPQ R8, $96 \
	JLE  xxh3r2 \
	LEAQ -64(SI)(R8*1), R11 \
	XXH3_ROUND(48, 96) \
xxh3r2: \
	LEAQ -48(SI)(R8*1), R11 \
	XXH3_ROUND(32, 64) \
xxh3r1: \
	LEAQ -32(SI)(R8*1), R11 \
	XXH3_ROUND(16, 32) \
xxh3r0: \
	LEAQ -16(SI)(R8*1), R11 \
	XXH3_ROUND(0, 0) \
	LEAQ (BX)(CX*1), R12 \
	MOVQ $0x9E3779B185EBCA87, AX \
	IMULQ BX, AX \
	MOVQ $0x85EBCA77C2B2AE63, DX \
	IMULQ CX, DX \
	ADDQ DX, AX \
	SUBQ 128(R9), R8 \
	MOVQ $0xC2B2AE3D27D4EB4F, DX \
	IMULQ DX, R8 \
	ADDQ R8, AX \
	XXH3_AVALANCHE(R12) \
	XXH3_AVALANCHE(AX) \
	NEGQ AX \
	MOVQ R12, BX \
	MOVQ AX, CX

// XXH3_MID64 hashes the n bytes at SI, 17 ≤ n ≤ 128, with XXH3-64 and a
// seed, exactly as xxh3.HashSeed of github.com/zeebo/xxh3 does (the spec's
// "64-bit variant, 17 to 128 bytes"), and derives from that hash lo a
// second word, hi = t ^ t>>28 with t = lo·0x9FB21C651E98DF25: the
// 128-bit hash {lo, hi} of a scheme whose key hash is XXH3-64. The same
// chunks of 16 bytes meet the same keyed secret words as in XXH3_MID, one
// 128-bit product each, but each chunk is mixed alone (XXH3_MIX16) into
// one accumulator, which starts at n·P1 and ends through one
// XXH3_AVALANCHE, where XXH3_MID keeps two accumulators and ends with
// three multiplies and two avalanches. The additions commute, so the
// mixes run in XXH3_MID's order, from the innermost pair outwards.
//
// In: SI the bytes, R8 n, R9 an xxh3asm.Keyed table. Out: BX lo and CX
// hi. Clobbers AX, DX and flags only (SI, R8 and R9 are kept). Uses the
// labels xxh3q0, xxh3q1 and xxh3q2, so it appears at most once in a
// function.
#define XXH3_MID64 \
	MOVQ $0x9E3779B185EBCA87, BX \
	IMULQ R8, BX \
	CMPQ R8, $32 \
	JLE  xxh3q0 \
	CMPQ R8, $64 \
	JLE  xxh3q1 \
	CMPQ R8, $96 \
	JLE  xxh3q2 \
	XXH3_MIX16(48(SI), 56(SI), 96) \
	XXH3_MIX16(-64(SI)(R8*1), -56(SI)(R8*1), 112) \
xxh3q2: \
	XXH3_MIX16(32(SI), 40(SI), 64) \
	XXH3_MIX16(-48(SI)(R8*1), -40(SI)(R8*1), 80) \
xxh3q1: \
	XXH3_MIX16(16(SI), 24(SI), 32) \
	XXH3_MIX16(-32(SI)(R8*1), -24(SI)(R8*1), 48) \
xxh3q0: \
	XXH3_MIX16(0(SI), 8(SI), 0) \
	XXH3_MIX16(-16(SI)(R8*1), -8(SI)(R8*1), 16) \
	XXH3_AVALANCHE(BX) \
	MOVQ $0x9FB21C651E98DF25, CX \
	IMULQ BX, CX \
	MOVQ CX, DX \
	SHRQ $28, DX \
	XORQ DX, CX

// XXH3_KEY_ARGS loads the key, its length and the table of the routine
// XXH3_KEY_BLOCK and XXH3_KEY_BLOCK64 start into SI, R8 and R9.
#define XXH3_KEY_ARGS \
	MOVQ key+16(FP), SI \
	MOVQ n+24(FP), R8 \
	MOVQ t+32(FP), R9

// XXH3_BLOCK_OF(shift) leaves in DX the address of block ⌊CX·nblocks/2^64⌋
// of the routine's nblocks blocks of 2^shift bytes from words. Clobbers AX
// and flags.
#define XXH3_BLOCK_OF(shift) \
	MOVQ CX, AX \
	MULQ nblocks+8(FP) \
	SHLQ $shift, DX \
	ADDQ words+0(FP), DX

// XXH3_KEY_BLOCK(shift) starts a routine declared as
//
//	func f(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, ...)
//
// (those five arguments first, at those offsets): it hashes the n bytes
// at key with XXH3_MID and leaves in DX the address of the key's block,
// block ⌊hi·nblocks/2^64⌋ (hashing.Block) of nblocks blocks of 2^shift
// bytes from words, with the hash's low half in BX and high half in CX.
// Clobbers what XXH3_MID does and SI, R9.
#define XXH3_KEY_BLOCK(shift) \
	XXH3_KEY_ARGS \
	XXH3_MID \
	XXH3_BLOCK_OF(shift)

// XXH3_KEY_BLOCK64(shift) is XXH3_KEY_BLOCK with XXH3_MID64: the same
// arguments, the same block of the hash {lo, hi} in DX, lo in BX and hi in
// CX. Clobbers AX, SI, R8, R9 and flags.
#define XXH3_KEY_BLOCK64(shift) \
	XXH3_KEY_ARGS \
	XXH3_MID64 \
	XXH3_BLOCK_OF(shift)
