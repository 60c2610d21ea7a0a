package counting

import (
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// The hot paths of a filter without a bit view (Config.NoBitView), where
// every probe reads or writes a counter. Out of cache their cost is memory
// misses, and how many of them overlap depends on how many instructions
// separate one key's loads from the next key's: the CPU's reorder buffer
// holds a few hundred. So these loops are lean:
//
//   - the probe sequence runs inline through hashing.Probes.Advance,
//     whose state the compiler keeps in registers;
//   - no positions buffer is filled and read back;
//   - the filter's fields are copied into locals (Go does not hoist
//     loop-invariant loads), and every shift count is masked with 63,
//     which changes nothing (counts are below 64 by construction) but
//     lets the compiler emit a bare shift;
//   - 4-bit counters, the default, have their own loops with constant
//     shifts and masks.
//
// They serve the default scheme, starting from bloom.Geometry.ProbeRange
// (the ranges bloom.Geometry.Positions uses too); other schemes go
// through Positions. The tests that run both modes side by side check
// these loops against the filter with a view.

// containsCounters is ContainsHash from the counters: true when every
// counter of the key is non-zero. It stops at the first zero counter; the
// loads do not depend on one another, so for a member the CPU has all k in
// flight.
//
// With 4-bit counters in the blocked layout and AVX-512, it reads the
// key's block, 512 counters in four cache lines, with one load per line
// and picks the k counters out of registers (blockCountersAVX512). A load
// per probe costs more than a load per line even when the lines are the
// same. By precomputed hash at 10^7 keys (48 MB), one run: 4 loads, one
// per line of the block, 57–66 ns a key; 7 loads at random words of the
// same lines 98–117; the early-exit loop below 155–175 per member and
// 108–120 per non-member. Another run, on a busier machine (4 loads:
// 89 ns): the assembly 117–153 and 115–164, the Go twin blockCounters4
// 176–198 and 161–192. In cache (10^5 keys, by string key) the assembly
// took 44 and 47 ns (medians) against 60–65 for the Go forms.
//
// With 4-bit counters in the classic layout and AVX-512 (fewer than 2^32
// counters), it computes eight probes per vector and gathers their words
// (classicCountersAVX512): the loads of a member's k probes leave at once,
// and the query takes about forty instructions instead of some two
// hundred. By precomputed hash, BoomFilters' shape (k = 7, 9.585 counters
// a key), 7 interleaved rounds, medians, with one gather of all eight
// lanes: at 10^5 keys 23.5 ns against 38.3 for the loop below, members and
// non-members alike; at 10^7 (48 MB) 132 against 211 ns per member and
// 123 against 141 per non-member. Gathering four lanes, testing them, then
// the other four made non-members 9% (10^5) and 17% (10^7) faster again,
// members the same: with half the counters zero, a non-member is refused
// after four loads 15 times in 16. Without AVX-512, in cache,
// classicCounters4 is the loop below without the other layouts' block
// offsets (3–12% faster).
func (f *Filter) containsCounters(h hashing.Hash128) bool {
	if !f.inline {
		return f.containsAt(h)
	}
	if f.width == 4 {
		layout := f.geo.Layout()
		classic := layout == bloom.Classic
		switch {
		case hasAVX512 && layout == bloom.Blocked:
			return blockCountersAVX512(f.counterBlock(h), h.Lo, h.Hi, f.geo.K())
		case hasAVX512 && classic && f.geo.M() < 1<<32:
			return classicCountersAVX512(f.counters, f.geo.M(), h.Lo, h.Hi, f.geo.K())
		case classic && f.inCache():
			return classicCounters4(f.counters, f.geo.M(), h, f.geo.K())
		case f.inCache():
			return f.containsCounters4InCache(h)
		}
	}
	base, step, r := f.geo.ProbeRange(h)
	p := hashing.NewProbes(h)
	counters := f.counters
	if f.width == 4 {
		for i := f.geo.K(); i > 0; i-- {
			var v uint64
			v, p = p.Advance()
			b := base + hashing.Reduce(v, r)
			base += step
			if counter4(counters, b) == 0 {
				return false
			}
		}
		return true
	}
	max, perShift, perMask, wShift := f.max, f.perShift&63, f.perMask, f.wShift&63
	for i := f.geo.K(); i > 0; i-- {
		var v uint64
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		if counters[b>>perShift]>>((b&perMask)<<wShift&63)&max == 0 {
			return false
		}
	}
	return true
}

// classicPair4 reports whether the k counters of h among the r 4-bit
// counters of c, in the classic layout, are all non-zero. It reads the
// first two counters before testing either, then the others one by one
// with an early exit, as bloom's classic query does and for its reason:
// about half the counters are non-zero, so a non-member is refused after
// the pair three times in four, after one memory latency and without a
// misprediction between the two loads. Contains and ContainsString use it
// (see Contains).
func classicPair4(c []uint64, r uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var v, w uint64
	if k >= 2 {
		v, p = p.Advance()
		w, p = p.Advance()
		b0, b1 := hashing.Reduce(v, r), hashing.Reduce(w, r)
		// c−1 wraps to 2^64−1 exactly when the counter c is zero.
		c0, c1 := counter4(c, b0), counter4(c, b1)
		if ((c0-1)|(c1-1))>>63 != 0 {
			return false
		}
		k -= 2
	}
	for ; k > 0; k-- {
		v, p = p.Advance()
		b := hashing.Reduce(v, r)
		if counter4(c, b) == 0 {
			return false
		}
	}
	return true
}

// counter4 returns counter b of c, an array of 4-bit counters: sixteen to
// a word, counter b at bits (b mod 16)·4 of word b/16.
func counter4(c []uint64, b uint64) uint64 { return c[b>>4] >> (b & 15 << 2) & 15 }

// inCacheWords is the largest counter array (1 MiB) treated as staying in
// cache: containsCounters reads it without an early exit, and the batches
// go key by key instead of prefetching.
const inCacheWords = 1 << 17

// inCache reports whether the counters fit in inCacheWords.
func (f *Filter) inCache() bool { return uint64(len(f.counters)) <= inCacheWords }

// containsCounters4InCache is containsCounters for 4-bit counters in a
// filter small enough to stay in cache: it reads all k counters and
// gathers "this one is zero" into one word, with no branch. A non-member
// leaves the early-exit loop after a random number of probes, which the
// CPU mispredicts almost every time; in cache that misprediction is most
// of the query's cost, while out of cache the early exit saves memory
// traffic (as in bloom's blocked layout, which chooses the same way).
func (f *Filter) containsCounters4InCache(h hashing.Hash128) bool {
	base, step, r := f.geo.ProbeRange(h)
	p := hashing.NewProbes(h)
	counters := f.counters
	var missing uint64
	for i := f.geo.K(); i > 0; i-- {
		var v uint64
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		// c−1 wraps to 2^64−1 exactly when the counter c is zero.
		missing |= (counter4(counters, b) - 1) >> 63
	}
	return missing == 0
}

// classicCounters4 reports whether the k counters of h among the r 4-bit
// counters of c, in the classic layout, are all non-zero, reading all k
// without a branch: the Go twin of classicCountersAVX512
// (blockcounters_amd64.s), and containsCounters4InCache without the other
// layouts' block offsets.
func classicCounters4(c []uint64, r uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var missing uint64
	for i := k; i > 0; i-- {
		var v uint64
		v, p = p.Advance()
		b := hashing.Reduce(v, r)
		// c−1 wraps to 2^64−1 exactly when the counter c is zero.
		missing |= (counter4(c, b) - 1) >> 63
	}
	return missing == 0
}

// counterBlock returns the 32 words that hold the 512 4-bit counters of
// h's block in the blocked layout.
func (f *Filter) counterBlock(h hashing.Hash128) *[32]uint64 {
	base, _, _ := f.geo.ProbeRange(h)
	i := base >> 4
	return (*[32]uint64)(f.counters[i : i+32])
}

// blockCounters4 reports whether the k counters of h in w, a block of 512
// 4-bit counters, are all non-zero, reading all k without a branch: the Go
// twin of blockCountersAVX512 (blockcounters_amd64.s). Counter b = v>>55
// of the block is in word b>>4 = v>>59, at bit (b&15)·4 = v>>53&60.
func blockCounters4(w *[32]uint64, h hashing.Hash128, k int) bool {
	p := hashing.NewProbes(h)
	var v, missing uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		// c−1 wraps to 2^64−1 exactly when the counter c is zero.
		missing |= (w[v>>59]>>(v>>53&60)&15 - 1) >> 63
	}
	return missing == 0
}

// containsAt is containsCounters through geometry.positions, for schemes
// other than the default. (A function of its own keeps the positions
// buffer out of containsCounters's frame.)
func (f *Filter) containsAt(h hashing.Hash128) bool {
	var buf [params.MaxK]uint64
	return f.allNonZero(f.geo.Positions(h, &buf))
}

// addCounters is AddHash for a filter without a bit view, the default
// scheme and no minimal increase: it increments the key's k counters (a
// counter probed twice twice), saturating. The only branch on what it
// loads is the rare saturation, so the k misses overlap. It does not
// count the key (AddHash does).
func (f *Filter) addCounters(h hashing.Hash128) {
	base, step, r := f.geo.ProbeRange(h)
	p := hashing.NewProbes(h)
	counters, sat := f.counters, f.sat
	if f.width == 4 {
		for i := f.geo.K(); i > 0; i-- {
			var v uint64
			v, p = p.Advance()
			b := base + hashing.Reduce(v, r)
			base += step
			sat += saturatingIncrement(&counters[b>>4], b&15<<2, 15)
		}
		f.sat = sat
		return
	}
	max, perShift, perMask, wShift := f.max, f.perShift&63, f.perMask, f.wShift&63
	for i := f.geo.K(); i > 0; i-- {
		var v uint64
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		sat += saturatingIncrement(&counters[b>>perShift], (b&perMask)<<wShift&63, max)
	}
	f.sat = sat
}

// removeCounters is RemoveHash for a filter without a bit view and the
// default scheme: removeAt with the probe sequence inline. A counter at
// Max is left alone; at the first zero counter the decrements made so far
// are undone (from the positions, computed again: refusals are rare) and
// the key is refused.
func (f *Filter) removeCounters(h hashing.Hash128) error {
	base, step, r := f.geo.ProbeRange(h)
	p := hashing.NewProbes(h)
	counters := f.counters
	max, perShift, perMask, wShift := f.max, f.perShift&63, f.perMask, f.wShift&63
	for i := range f.geo.K() {
		var v uint64
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		sh := (b & perMask) << wShift & 63
		w := &counters[b>>perShift]
		switch *w >> sh & max {
		case max:
			continue
		case 0:
			f.undoFirst(h, i)
			return errAbsent()
		}
		*w -= 1 << sh
	}
	if f.count > 0 {
		f.count--
	}
	return nil
}

// undoFirst undoes the decrements of the first i probes of h (a refused
// removeCounters).
func (f *Filter) undoFirst(h hashing.Hash128, i int) {
	var buf [params.MaxK]uint64
	f.undoDecrements(f.geo.Positions(h, &buf)[:i])
}

// incrementCounters is incrementAll for a filter without a bit view, for
// positions already computed (AddBatch, other schemes): it increments the
// counters at pos, saturating.
func (f *Filter) incrementCounters(pos []uint64) {
	counters, max, sat := f.counters, f.max, f.sat
	perShift, perMask, wShift := f.perShift&63, f.perMask, f.wShift&63
	for _, b := range pos {
		sat += saturatingIncrement(&counters[b>>perShift], (b&perMask)<<wShift&63, max)
	}
	f.sat = sat
}

// saturatingIncrement adds one to the counter at shift sh of *w, whose
// largest value is max, unless it is already there (a saturated counter is
// sticky). It returns 1 when the counter has just reached max, for the
// caller's count of saturated counters, and 0 otherwise. Small enough to
// inline, so the loops above keep their constants.
func saturatingIncrement(w *uint64, sh, max uint64) uint64 {
	c := *w >> sh & max
	if c == max {
		return 0
	}
	*w += 1 << sh
	if c == max-1 {
		return 1
	}
	return 0
}
