//go:build amd64 && !purego

package counting

import (
	"unsafe"

	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"golang.org/x/sys/cpu"
)

// hasAVX512 reports whether this CPU and OS run blockCountersAVX512, which
// needs AVX-512 F (512-bit registers, VPERMI2Q, VPSRLVQ) and DQ (VPMULLQ,
// KORTESTB). It is a fact about the machine, read once, not a setting.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// blockCountersAVX512 is blockCounters4 in AVX-512 assembly
// (blockcounters_amd64.s), eight probes per step. k must be at least 1.
// TestBlockCountersAssembly cross-checks the two on every k, and CI runs
// the package again with -tags purego, where only the Go form exists.
//
//go:noescape
func blockCountersAVX512(w *[32]uint64, lo, hi uint64, k int) bool

// classicCountersAVX512 is classicCounters4 in AVX-512 assembly
// (blockcounters_amd64.s): the r counters of c, 2^4 ≤ r < 2^32 and
// len(c) = ⌈r/16⌉, eight probes per step, gathered four at a time. k must
// be at least 1. TestClassicCountersAssembly cross-checks the two.
//
//go:noescape
func classicCountersAVX512(c []uint64, r, lo, hi uint64, k int) bool

// blockCountersKeyAVX512 is blockCountersAVX512 for the key of n bytes at
// key, MinLen ≤ n ≤ MaxLen of internal/xxh3asm, which it hashes itself
// with t's seed (blockcounters_amd64.s): the nblocks blocks of 32 words
// from words are the filter's counters. TestBlockCountersKey cross-checks it
// with hashing the key and blockCounters4.
//
//go:noescape
func blockCountersKeyAVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool

// blockCountersKey is blockCountersKeyAVX512 for f (blockKeys not nil)
// and a key of MinLen to MaxLen bytes. A block is 512 counters, so there
// are f.m/512 blocks.
func (f *Filter) blockCountersKey(key []byte) bool {
	return blockCountersKeyAVX512(unsafe.SliceData(f.counters), f.m>>9, unsafe.SliceData(key), len(key), f.blockKeys, f.geo.K())
}

// blockCountersKeyString is blockCountersKey for a string key.
func (f *Filter) blockCountersKeyString(key string) bool {
	return blockCountersKeyAVX512(unsafe.SliceData(f.counters), f.m>>9, unsafe.StringData(key), len(key), f.blockKeys, f.geo.K())
}

// blockCountersKey64AVX512 is blockCountersKeyAVX512 with the key hashed
// as hashing scheme XXH3x64 hashes it (hashing.Sum64Seed: XXH3-64 and a
// word derived from it), in blockcounters_amd64.s. TestBlockCountersKey64
// cross-checks it with hashing the key and blockCounters4.
//
//go:noescape
func blockCountersKey64AVX512(words *uint64, nblocks uint64, key *byte, n int, t *xxh3asm.Keyed, k int) bool

// blockCountersKey64 is blockCountersKey64AVX512 for f (blockKeys64 not
// nil) and a key of MinLen to MaxLen bytes.
func (f *Filter) blockCountersKey64(key []byte) bool {
	return blockCountersKey64AVX512(unsafe.SliceData(f.counters), f.m>>9, unsafe.SliceData(key), len(key), f.blockKeys64, f.geo.K())
}

// blockCountersKey64String is blockCountersKey64 for a string key.
func (f *Filter) blockCountersKey64String(key string) bool {
	return blockCountersKey64AVX512(unsafe.SliceData(f.counters), f.m>>9, unsafe.StringData(key), len(key), f.blockKeys64, f.geo.K())
}
