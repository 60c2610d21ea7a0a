package bloom

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/prefetch"
)

// The batch operations overlap the memory misses of many keys by group
// prefetching (Chen, Ailamaki, Gibbons and Mowry, "Improving hash join
// performance through prefetching", ICDE 2004): they compute where the
// keys of the next group probe, ask the CPU to fetch those lines
// (internal/prefetch), and meanwhile answer the current group, whose lines
// were requested one group earlier. A single query cannot do this: its
// first load is needed at once.

// blockedGroup is how many keys of a Blocked filter are in flight at once:
// one line each, enough to cover a memory latency with the work of the
// group before, few enough that the lines stay in L1 until they are used.
const blockedGroup = 16

// ContainsBatch sets out[i] to ContainsHash(hs[i]) for every i, overlapping
// the memory misses of many keys (see above). out must be at least as long
// as hs; nothing is allocated.
func (f *Filter) ContainsBatch(hs []hashing.Hash128, out []bool) {
	out = out[:len(hs)]
	switch {
	case !f.fast:
		for i, h := range hs {
			out[i] = f.containsLocated(h)
		}
	case f.layout == Blocked:
		f.batchBlocked(hs, out)
	default:
		f.batchProbes(hs, out)
	}
}

// AddBatch adds every hash in hs, overlapping the memory misses as
// ContainsBatch does.
func (f *Filter) AddBatch(hs []hashing.Hash128) {
	f.mustWrite("AddBatch")
	switch {
	case !f.fast:
		for _, h := range hs {
			f.addLocated(h)
		}
	case f.layout == Blocked:
		f.batchBlocked(hs, nil)
	default:
		f.batchProbes(hs, nil)
	}
	f.count += uint64(len(hs))
}

// blockStarts writes the first bit of the block of each of the first
// blockedGroup hashes of hs into pos and returns how many it wrote.
func (f *Filter) blockStarts(hs []hashing.Hash128, pos *[blockedGroup]uint64) int {
	n := min(len(hs), blockedGroup)
	for j, h := range hs[:n] {
		pos[j] = hashing.Block(h, f.span) * 512
	}
	return n
}

// batchBlocked sets out[i] to whether hs[i] may be present or, with out
// nil, adds every hash: one loop for both, so that the pipelining is
// written once (the branch on out is the same for every key).
func (f *Filter) batchBlocked(hs []hashing.Hash128, out []bool) {
	var cur, next [blockedGroup]uint64
	n := f.blockStarts(hs, &cur)
	prefetch.Words(f.words, cur[:n], 6)
	for done := 0; n > 0; {
		m := f.blockStarts(hs[done+n:], &next)
		prefetch.Words(f.words, next[:m], 6)
		for j, h := range hs[done : done+n] {
			w := (*[8]uint64)(f.words[cur[j]>>6:])
			if out == nil {
				setBlock(w, h, f.k)
			} else {
				out[done+j] = blockAllSet(w, h, f.k)
			}
		}
		done += n
		cur, n = next, m
	}
}

// probeGroup is a group of keys' probe positions in the layouts whose
// probes fall on several lines: Classic, Partitioned, Paged.
type probeGroup struct {
	pos [prefetch.MaxPositions]uint64
	n   int // keys in the group
}

// fill computes the positions of the first keys of hs, as many as fit,
// and returns how many keys it took. k ≤ params.MaxK = MaxPositions, so a
// group holds at least one key.
func (g *probeGroup) fill(f *Filter, hs []hashing.Hash128) int {
	k := f.k
	g.n = min(len(hs), prefetch.MaxPositions/k)
	for j, h := range hs[:g.n] {
		f.inlinePositions(h, g.pos[j*k:(j+1)*k])
	}
	return g.n
}

// batchProbes is batchBlocked for the layouts whose probes fall on
// several lines: Classic, Partitioned, Paged.
func (f *Filter) batchProbes(hs []hashing.Hash128, out []bool) {
	var cur, next probeGroup
	words, k := f.words, f.k
	n := cur.fill(f, hs)
	prefetch.Words(words, cur.pos[:n*k], 6)
	for done := 0; n > 0; {
		m := next.fill(f, hs[done+n:])
		prefetch.Words(words, next.pos[:m*k], 6)
		for j := range n {
			pos := cur.pos[j*k : (j+1)*k]
			if out == nil {
				setAll(words, pos)
			} else {
				out[done+j] = allSet(words, pos)
			}
		}
		done += n
		cur, n = next, m
	}
}

// setAll sets every bit at pos.
func setAll(words []uint64, pos []uint64) {
	for _, b := range pos {
		words[b>>6] |= 1 << (b & 63)
	}
}

// allSet reports whether every bit at pos is set.
func allSet(words []uint64, pos []uint64) bool {
	for _, b := range pos {
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
