//go:build !amd64 || purego

package bloom

import "github.com/bloomcast/bloomcast/hashing"

// hasAVX512 is false: this build has no assembly.
const hasAVX512 = false

// blockAllSetAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool {
	return blockAllSet(w, hashing.Hash128{Lo: lo, Hi: hi}, k)
}

// blockSetAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func blockSetAVX512(w *[8]uint64, lo, hi uint64, k int) {
	blockSet(w, hashing.Hash128{Lo: lo, Hi: hi}, k)
}

// blockAllSetKey stands in for the assembly of amd64 builds: the key
// hashed, then blockAllSet on its block. With hasAVX512 false it is never
// called.
func (f *Filter) blockAllSetKey(key []byte) bool {
	h := hashing.SumSeed(key, f.seed)
	return blockAllSet(f.block(h), h, f.k)
}

// blockAllSetKeyString is blockAllSetKey for a string key.
func (f *Filter) blockAllSetKeyString(key string) bool {
	h := hashing.SumStringSeed(key, f.seed)
	return blockAllSet(f.block(h), h, f.k)
}

// blockSetKey stands in for the assembly of amd64 builds: the key hashed,
// then blockSet on its block. With hasAVX512 false it is never called.
func (f *Filter) blockSetKey(key []byte) {
	h := hashing.SumSeed(key, f.seed)
	blockSet(f.block(h), h, f.k)
}

// blockSetKeyString is blockSetKey for a string key.
func (f *Filter) blockSetKeyString(key string) {
	h := hashing.SumStringSeed(key, f.seed)
	blockSet(f.block(h), h, f.k)
}

// blockAllSetKey64 stands in for the assembly of amd64 builds: the key
// hashed with hashing.Sum64Seed (scheme XXH3x64), then blockAllSet on its
// block. With hasAVX512 false it is never called.
func (f *Filter) blockAllSetKey64(key []byte) bool {
	h := hashing.Sum64Seed(key, f.seed)
	return blockAllSet(f.block(h), h, f.k)
}

// blockAllSetKey64String is blockAllSetKey64 for a string key.
func (f *Filter) blockAllSetKey64String(key string) bool {
	h := hashing.SumString64Seed(key, f.seed)
	return blockAllSet(f.block(h), h, f.k)
}

// blockSetKey64 stands in for the assembly of amd64 builds: the key hashed
// as in blockAllSetKey64, then blockSet on its block. With hasAVX512
// false it is never called.
func (f *Filter) blockSetKey64(key []byte) {
	h := hashing.Sum64Seed(key, f.seed)
	blockSet(f.block(h), h, f.k)
}

// blockSetKey64String is blockSetKey64 for a string key.
func (f *Filter) blockSetKey64String(key string) {
	h := hashing.SumString64Seed(key, f.seed)
	blockSet(f.block(h), h, f.k)
}

// hasKeyAsm is false: this build has no assembly.
const hasKeyAsm = false

// rangeHasKey stands in for the assembly of amd64 builds: the key hashed,
// then containsRange. With hasKeyAsm false it is never called.
func (f *Filter) rangeHasKey(key []byte, _ uint64) bool {
	return f.containsRange(hashing.SumSeed(key, f.seed))
}

// rangeHasKeyString is rangeHasKey for a string key.
func (f *Filter) rangeHasKeyString(key string, _ uint64) bool {
	return f.containsRange(hashing.SumStringSeed(key, f.seed))
}
