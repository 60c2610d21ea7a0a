//go:build !amd64 || purego

package counting

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
)

// hasAVX512 is false: this build has no assembly.
const hasAVX512 = false

// blockCountersAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func blockCountersAVX512(w *[32]uint64, lo, hi uint64, k int) bool {
	return blockCounters4(w, hashing.Hash128{Lo: lo, Hi: hi}, k)
}

// classicCountersAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func classicCountersAVX512(c []uint64, r, lo, hi uint64, k int) bool {
	return classicCounters4(c, r, hashing.Hash128{Lo: lo, Hi: hi}, k)
}

// blockCountersKey stands in for the assembly of amd64 builds: the key
// hashed with t's seed, then blockCounters4 on its block. With hasAVX512
// false it is never called.
func blockCountersKey(c []uint64, nblocks uint64, key []byte, t *xxh3asm.Keyed, k int) bool {
	h := hashing.SumSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 32
	return blockCounters4((*[32]uint64)(c[i:i+32]), h, k)
}

// blockCountersKeyString is blockCountersKey for a string key.
func blockCountersKeyString(c []uint64, nblocks uint64, key string, t *xxh3asm.Keyed, k int) bool {
	h := hashing.SumStringSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 32
	return blockCounters4((*[32]uint64)(c[i:i+32]), h, k)
}
