//go:build amd64 && !purego

package bloom

import (
	"unsafe"

	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"golang.org/x/sys/cpu"
)

// hasAVX512 reports whether this CPU and OS run the AVX-512 routines
// (blockAllSetAVX512, blockAllSetKeyAVX512, blockAllSetKey64AVX512,
// blockSetAVX512, blockSetKeyAsm and blockSetKey64Asm): AVX-512 F
// (512-bit registers, VPERMQ, VPRORVQ, VPROLVQ, embedded broadcast) and
// DQ (VPMULLQ, KORTESTB), and BMI2 (BZHI), which every CPU with AVX-512
// has (checked all the same). It is read once: a fact about the machine,
// not a setting.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasBMI2

// blockAllSetAVX512 is blockAllSet in AVX-512 assembly
// (blockprobe_amd64.s), eight probes per step. k must be at least 1.
// TestBlockAllSetAssembly cross-checks the two on every k, and CI runs the
// package again with -tags purego, where only the Go form exists.
//
//go:noescape
func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool

// blockSetAVX512 is blockSet in AVX-512 assembly (blockprobe_amd64.s),
// eight probes per step and the block read and written once. k must be
// at least 1. TestBlockAllSetAssembly cross-checks the two on every k.
//
//go:noescape
func blockSetAVX512(w *[8]uint64, lo, hi uint64, k int)

// blockAllSetKeyAVX512 is blockAllSetAVX512 for the key of n bytes at key,
// MinLen ≤ n ≤ MaxLen of internal/xxh3asm, which it hashes itself with t's
// seed (blockprobe_amd64.s): the nblocks blocks of 8 words from words are
// the filter's bits. TestBlockedKeyAssembly cross-checks it with hashing
// the key and ContainsHash.
//
//go:noescape
func blockAllSetKeyAVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool

// blockAllSetKey is blockAllSetKeyAVX512 for f (keyPath keyBlocked) and
// a key of MinLen to MaxLen bytes.
func (f *Filter) blockAllSetKey(key []byte) bool {
	return blockAllSetKeyAVX512(unsafe.SliceData(f.words), f.span, unsafe.SliceData(key), len(key), f.keyed, f.k)
}

// blockAllSetKeyString is blockAllSetKey for a string key.
func (f *Filter) blockAllSetKeyString(key string) bool {
	return blockAllSetKeyAVX512(unsafe.SliceData(f.words), f.span, unsafe.StringData(key), len(key), f.keyed, f.k)
}

// blockSetKeyAsm is blockSet for the key of n bytes at key, MinLen ≤ n ≤
// MaxLen of internal/xxh3asm, hashed with t's seed, in the nblocks blocks
// of 8 words from words (blockprobe_amd64.s). TestBlockedKeyAssembly
// cross-checks it with hashing the key and AddHash.
//
//go:noescape
func blockSetKeyAsm(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int)

// blockSetKey is blockSetKeyAsm for f (keyPath keyBlocked) and a key of
// MinLen to MaxLen bytes. It does not count the key.
func (f *Filter) blockSetKey(key []byte) {
	blockSetKeyAsm(unsafe.SliceData(f.words), f.span, unsafe.SliceData(key), len(key), f.keyed, f.k)
}

// blockSetKeyString is blockSetKey for a string key.
func (f *Filter) blockSetKeyString(key string) {
	blockSetKeyAsm(unsafe.SliceData(f.words), f.span, unsafe.StringData(key), len(key), f.keyed, f.k)
}

// blockAllSetKey64AVX512 is blockAllSetKeyAVX512 with the key hashed by
// XXH3-64 (xxh3.HashSeed of github.com/zeebo/xxh3 under t's seed) and
// the second word derived from it, hi = t ^ t>>28 with t =
// lo·0x9FB21C651E98DF25 (blockprobe_amd64.s, internal/xxh3asm's
// XXH3_MID64): the block and probes are those of the hash {lo, hi}.
// TestBlockedKey64Assembly cross-checks it with blockAllSet.
//
//go:noescape
func blockAllSetKey64AVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool

// blockAllSetKey64 is blockAllSetKey64AVX512 for f (keyPath
// keyBlocked64) and a key of MinLen to MaxLen bytes.
func (f *Filter) blockAllSetKey64(key []byte) bool {
	return blockAllSetKey64AVX512(unsafe.SliceData(f.words), f.span, unsafe.SliceData(key), len(key), f.keyed, f.k)
}

// blockAllSetKey64String is blockAllSetKey64 for a string key.
func (f *Filter) blockAllSetKey64String(key string) bool {
	return blockAllSetKey64AVX512(unsafe.SliceData(f.words), f.span, unsafe.StringData(key), len(key), f.keyed, f.k)
}

// blockSetKey64Asm is blockSetKeyAsm with the key hashed as in
// blockAllSetKey64AVX512 (blockprobe_amd64.s). TestBlockedKey64Assembly
// cross-checks it with blockSet.
//
//go:noescape
func blockSetKey64Asm(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int)

// blockSetKey64 is blockSetKey64Asm for f (keyPath keyBlocked64) and a
// key of MinLen to MaxLen bytes. It does not count the key.
func (f *Filter) blockSetKey64(key []byte) {
	blockSetKey64Asm(unsafe.SliceData(f.words), f.span, unsafe.SliceData(key), len(key), f.keyed, f.k)
}

// blockSetKey64String is blockSetKey64 for a string key.
func (f *Filter) blockSetKey64String(key string) {
	blockSetKey64Asm(unsafe.SliceData(f.words), f.span, unsafe.StringData(key), len(key), f.keyed, f.k)
}

// hasKeyAsm reports that this build has rangeHasKeyAsm, which needs no
// more than the amd64 base instruction set.
const hasKeyAsm = true

// rangeHasKeyAsm is containsRange for the key of n bytes at key, MinLen ≤
// n ≤ MaxLen of internal/xxh3asm, hashed with t's seed, in the classic
// (step 0, r = m) or partitioned layout (step = r = the slice's bits)
// (blockprobe_amd64.s). TestRangeKeyAssembly cross-checks it with hashing
// the key and ContainsHash.
//
//go:noescape
func rangeHasKeyAsm(words *uint64, r uint64, key *byte, n int, t *xxh3asm.Keyed, k int, step uint64) bool

// rangeHasKey is rangeHasKeyAsm for f (keyPath keyRange), a key of MinLen
// to MaxLen bytes and f's rangeStep (an argument, which keeps this wrapper
// small enough to inline).
func (f *Filter) rangeHasKey(key []byte, step uint64) bool {
	return rangeHasKeyAsm(unsafe.SliceData(f.words), f.span, unsafe.SliceData(key), len(key), f.keyed, f.k, step)
}

// rangeHasKeyString is rangeHasKey for a string key.
func (f *Filter) rangeHasKeyString(key string, step uint64) bool {
	return rangeHasKeyAsm(unsafe.SliceData(f.words), f.span, unsafe.StringData(key), len(key), f.keyed, f.k, step)
}
