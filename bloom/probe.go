package bloom

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Add inserts key.
func (f *Filter) Add(key []byte) { f.AddHash(f.Hash(key)) }

// AddString inserts key.
func (f *Filter) AddString(key string) { f.AddHash(f.HashString(key)) }

// Contains reports whether key may be in the set: false means certainly not.
func (f *Filter) Contains(key []byte) bool { return f.ContainsHash(f.Hash(key)) }

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool { return f.ContainsHash(f.HashString(key)) }

// TestAndAdd inserts key and reports whether it may have been present before.
func (f *Filter) TestAndAdd(key []byte) bool { return f.TestAndAddHash(f.Hash(key)) }

// TestAndAddString is TestAndAdd for a string key.
func (f *Filter) TestAndAddString(key string) bool { return f.TestAndAddHash(f.HashString(key)) }

// AddHash inserts the key whose hash is h.
func (f *Filter) AddHash(h hashing.Hash128) {
	f.mustWrite("Add")
	f.count++
	if !f.fast {
		f.addLocated(h)
		return
	}
	switch f.layout {
	case Blocked:
		f.addBlocked(h)
	case Classic:
		f.addClassic(h)
	case Partitioned:
		f.addPartitioned(h)
	default:
		f.addPaged(h)
	}
}

// ContainsHash reports whether the key whose hash is h may be in the set.
func (f *Filter) ContainsHash(h hashing.Hash128) bool {
	if !f.fast {
		return f.containsLocated(h)
	}
	switch f.layout {
	case Blocked:
		return f.containsBlocked(h)
	case Classic:
		return f.containsClassic(h)
	case Partitioned:
		return f.containsPartitioned(h)
	default:
		return f.containsPaged(h)
	}
}

// TestAndAddHash inserts h and reports whether it may have been present.
func (f *Filter) TestAndAddHash(h hashing.Hash128) bool {
	f.mustWrite("TestAndAdd")
	var buf [params.MaxK]uint64
	present := true
	for _, b := range f.Positions(h, &buf) {
		w, mask := &f.words[b>>6], uint64(1)<<(b&63)
		present = present && *w&mask != 0
		*w |= mask
	}
	f.count++
	return present
}

// block returns the 512-bit block of h in a Blocked filter. The array
// conversion lets the compiler drop bounds checks in the probe loops.
func (f *Filter) block(h hashing.Hash128) *[8]uint64 {
	i := hashing.Block(h, f.span) * 8
	return (*[8]uint64)(f.words[i : i+8])
}

func (f *Filter) addBlocked(h hashing.Hash128) { blockSet(f.block(h), h, f.k) }

// containsBlocked picks the probe loop by the array's size. Both were
// measured on members and non-members, by precomputed hash and by string
// key, from 10^5 to 2·10^7 keys at p = 1% (docs/BENCHMARKS.md):
//
//   - In cache, blockAllSet: an early exit costs a misprediction on almost
//     every non-member (they leave after one to k probes at random), and
//     testing all k bits without a branch is up to twice as fast on them
//     and as fast on members.
//   - Out of cache, blockHas: while the block's line is on its way, the
//     predicted exit lets the CPU run ahead into the following queries and
//     start their loads, which the branch-free loop's longer dependency
//     chain does not (by hash at 2·10^7 keys: 56 against 80 ns per
//     non-member).
//
// The two were even at 4·10^6 keys (5 MB), hence branchFreeBits.
func (f *Filter) containsBlocked(h hashing.Hash128) bool {
	if f.m <= branchFreeBits {
		return blockAllSet(f.block(h), h, f.k)
	}
	return blockHas(f.block(h), h, f.k)
}

// branchFreeBits is the largest Blocked filter (4 MiB) that containsBlocked
// queries with blockAllSet.
const branchFreeBits = 1 << 25

// blockSet sets h's k probes in its block w.
func blockSet(w *[8]uint64, h hashing.Hash128, k int) {
	p := hashing.NewProbes(h)
	var v uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		b := v >> 55 // Reduce(x, 512): the top 9 bits
		w[b>>6&7] |= 1 << (b & 63)
	}
}

// blockHas tests h's k probes in its block w one by one and stops at the
// first zero.
func blockHas(w *[8]uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var v uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		b := v >> 55
		if w[b>>6&7]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

// blockAllSet is blockHas without a branch per probe: it gathers the
// complements of the k probed bits into one word's low bit. It is the
// in-cache form of the query, and the batch's, whose lines were
// prefetched.
func blockAllSet(w *[8]uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var v, missing uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		b := v >> 55
		missing |= ^w[b>>6&7] >> (b & 63)
	}
	return missing&1 == 0
}

// The loops below copy the filter's fields into locals: Go does not hoist
// loop-invariant loads, and a pointer field reread on every probe costs.

func (f *Filter) addClassic(h hashing.Hash128) {
	words, m := f.words, f.m
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := hashing.Reduce(v, m)
		words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) containsClassic(h hashing.Hash128) bool {
	words, m := f.words, f.m
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := hashing.Reduce(v, m)
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

func (f *Filter) addPartitioned(h hashing.Hash128) {
	words, m, s := f.words, f.m, f.span
	p := hashing.NewProbes(h)
	var v uint64
	for base := uint64(0); base < m; base += s {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, s)
		words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) containsPartitioned(h hashing.Hash128) bool {
	words, m, s := f.words, f.m, f.span
	p := hashing.NewProbes(h)
	var v uint64
	for base := uint64(0); base < m; base += s {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, s)
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

func (f *Filter) addPaged(h hashing.Hash128) {
	words, bb := f.words, f.blockBits
	base := hashing.Block(h, f.span) * bb
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, bb)
		words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) containsPaged(h hashing.Hash128) bool {
	words, bb := f.words, f.blockBits
	base := hashing.Block(h, f.span) * bb
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, bb)
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

func (f *Filter) addLocated(h hashing.Hash128) {
	var buf [params.MaxK]uint64
	for _, b := range f.locate(h, &buf) {
		f.words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) containsLocated(h hashing.Hash128) bool {
	var buf [params.MaxK]uint64
	for _, b := range f.locate(h, &buf) {
		if f.words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
