//go:build !amd64 || purego

package counting

import "github.com/bloomcast/bloomcast/hashing"

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
// hashed, then blockCounters4 on its block. With hasAVX512 false it is
// never called.
func (f *Filter) blockCountersKey(key []byte) bool {
	h := hashing.SumSeed(key, f.geo.Seed())
	return blockCounters4(f.counterBlock(h), h, f.geo.K())
}

// blockCountersKeyString is blockCountersKey for a string key.
func (f *Filter) blockCountersKeyString(key string) bool {
	h := hashing.SumStringSeed(key, f.geo.Seed())
	return blockCounters4(f.counterBlock(h), h, f.geo.K())
}
