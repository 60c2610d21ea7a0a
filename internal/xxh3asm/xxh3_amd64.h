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

// XXH3_ROUND folds the 16 bytes at foff(SI) and the 16 at (R11) into the
// accumulators BX (low) and CX (high), with the keyed secret words at
// toff(R9) .. toff+24(R9): low += fold(f0^t0, f1^t1) ^ (b0+b1) and high
// += fold(b0^t2, b1^t3) ^ (f0+f1), where fold(x, y) is the xor of the two
// halves of the 128-bit product.
#define XXH3_ROUND(foff, toff) \
	MOVQ foff(SI), AX \
	XORQ toff(R9), AX \
	MOVQ foff+8(SI), DX \
	XORQ toff+8(R9), DX \
	MULQ DX \
	XORQ DX, AX \
	ADDQ AX, BX \
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
	MOVQ key+16(FP), SI \
	MOVQ n+24(FP), R8 \
	MOVQ t+32(FP), R9 \
	XXH3_MID \
	MOVQ CX, AX \
	MULQ nblocks+8(FP) \
	SHLQ $shift, DX \
	ADDQ words+0(FP), DX
