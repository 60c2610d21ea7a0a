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

// blockCountersKey64 stands in for the assembly of amd64 builds: the key
// hashed with hashing.Sum64Seed (scheme XXH3x64), then blockCounters4 on
// its block. With hasAVX512 false it is never called.
func (f *Filter) blockCountersKey64(key []byte) bool {
	h := hashing.Sum64Seed(key, f.geo.Seed())
	return blockCounters4(f.counterBlock(h), h, f.geo.K())
}

// blockCountersKey64String is blockCountersKey64 for a string key.
func (f *Filter) blockCountersKey64String(key string) bool {
	h := hashing.SumString64Seed(key, f.geo.Seed())
	return blockCounters4(f.counterBlock(h), h, f.geo.K())
}
