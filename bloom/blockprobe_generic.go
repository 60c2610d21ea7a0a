//go:build !amd64 || purego

package bloom

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
)

// hasAVX512 is false: this build has no assembly.
const hasAVX512 = false

// blockAllSetAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool {
	return blockAllSet(w, hashing.Hash128{Lo: lo, Hi: hi}, k)
}

// blockAllSetKey stands in for the assembly of amd64 builds: the key
// hashed with t's seed, then blockAllSet on its block. With hasAVX512
// false it is never called.
func blockAllSetKey(words []uint64, nblocks uint64, key []byte, t *xxh3asm.Keyed, k int) bool {
	h := hashing.SumSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 8
	return blockAllSet((*[8]uint64)(words[i:i+8]), h, k)
}

// blockAllSetKeyString is blockAllSetKey for a string key.
func blockAllSetKeyString(words []uint64, nblocks uint64, key string, t *xxh3asm.Keyed, k int) bool {
	h := hashing.SumStringSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 8
	return blockAllSet((*[8]uint64)(words[i:i+8]), h, k)
}

// blockSetKey stands in for the assembly of amd64 builds: the key hashed
// with t's seed, then blockSet on its block. With hasAVX512 false it is
// never called.
func blockSetKey(words []uint64, nblocks uint64, key []byte, t *xxh3asm.Keyed, k int) {
	h := hashing.SumSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 8
	blockSet((*[8]uint64)(words[i:i+8]), h, k)
}

// blockSetKeyString is blockSetKey for a string key.
func blockSetKeyString(words []uint64, nblocks uint64, key string, t *xxh3asm.Keyed, k int) {
	h := hashing.SumStringSeed(key, t.Seed())
	i := hashing.Block(h, nblocks) * 8
	blockSet((*[8]uint64)(words[i:i+8]), h, k)
}

// hasKeyAsm is false: this build has no assembly.
const hasKeyAsm = false

// rangeHasKey stands in for the assembly of amd64 builds: the key hashed
// with t's seed, then its k probes, probe i at bit i·step +
// Reduce(v_i, r). With hasKeyAsm false it is never called.
func rangeHasKey(words []uint64, r, step uint64, key []byte, t *xxh3asm.Keyed, k int) bool {
	return rangeHas(words, r, step, hashing.SumSeed(key, t.Seed()), k)
}

// rangeHasKeyString is rangeHasKey for a string key.
func rangeHasKeyString(words []uint64, r, step uint64, key string, t *xxh3asm.Keyed, k int) bool {
	return rangeHas(words, r, step, hashing.SumStringSeed(key, t.Seed()), k)
}

func rangeHas(words []uint64, r, step uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var base, v uint64
	for ; k > 0; k-- {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
