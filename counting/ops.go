package counting

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"github.com/bloomcast/bloomcast/params"
)

// Add inserts one occurrence of key.
func (f *Filter) Add(key []byte) { f.AddHash(f.Hash(key)) }

// AddString inserts one occurrence of key.
func (f *Filter) AddString(key string) { f.AddHash(f.HashString(key)) }

// Remove deletes one occurrence of key. See RemoveHash.
func (f *Filter) Remove(key []byte) error { return f.RemoveHash(f.Hash(key)) }

// RemoveString deletes one occurrence of key. See RemoveHash.
func (f *Filter) RemoveString(key string) error { return f.RemoveHash(f.HashString(key)) }

// Contains reports whether key may be in the set: false means certainly
// not.
//
// It goes from the key to the probe loop in as few calls as it can (the
// bit view's own key path, or the counters' under the default scheme), as
// bloom's key methods do and for their reason: out of cache, after a
// query that ends early the next key's load leaves only once the CPU has
// run through everything before it again. With 4-bit counters in the
// classic layout it runs classicPair4, not the AVX-512 gather that
// ContainsHash uses: after hashing a key the gather was the slower in
// cache. By key (45 bytes) in BoomFilters' shape, medians of 31
// interleaved rounds, against the gather, two runs: at 10^5 keys members
// 11–19% and non-members 23–26% faster; at 10^7 (48 MB) within ±5%. (Out
// of cache, forms of the same loop that differed only in their calls
// ranged from 1.0 to 1.3 times the gather's speed on non-members, which
// says more about this machine than about the loops.)
//
// With 4-bit counters in the blocked layout, no bit view and AVX-512, a
// key of 17 to 128 bytes goes to one assembly routine that hashes it and
// queries its block (blockCountersKey; internal/xxh3asm says why). Against
// hashing.SumSeed and then blockCountersAVX512, by 45-byte key in
// BoomFilters' memory, medians of interleaved rounds: at 10^7 keys
// (48 MB) 129 against 228 ns per non-member, at 10^5 31 against 33.
// Under hashing scheme XXH3x64 the same filter runs the routine's twin,
// blockCountersKey64, which hashes with XXH3-64 (hashing.Sum64Seed); its
// case comes after the default scheme's, whose path it leaves as it was.
func (f *Filter) Contains(key []byte) bool {
	switch {
	case f.blockKeys != nil && xxh3asm.Fits(len(key)):
		return f.blockCountersKey(key)
	case f.pairKeys:
		return classicPair4(f.counters, f.m, hashing.SumSeed(key, f.geo.Seed()), f.geo.K())
	case f.view != nil:
		return f.view.Contains(key)
	case f.geo.Inline():
		return f.containsCounters(hashing.SumSeed(key, f.geo.Seed()))
	case f.blockKeys64 != nil && xxh3asm.Fits(len(key)):
		return f.blockCountersKey64(key)
	case f.inline: // hashing.XXH3x64
		return f.containsCounters(f.Hash(key))
	}
	return f.containsAt(f.Hash(key))
}

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool {
	switch {
	case f.blockKeys != nil && xxh3asm.Fits(len(key)):
		return f.blockCountersKeyString(key)
	case f.pairKeys:
		return classicPair4(f.counters, f.m, hashing.SumStringSeed(key, f.geo.Seed()), f.geo.K())
	case f.view != nil:
		return f.view.ContainsString(key)
	case f.geo.Inline():
		return f.containsCounters(hashing.SumStringSeed(key, f.geo.Seed()))
	case f.blockKeys64 != nil && xxh3asm.Fits(len(key)):
		return f.blockCountersKey64String(key)
	case f.inline: // hashing.XXH3x64
		return f.containsCounters(f.HashString(key))
	}
	return f.containsAt(f.HashString(key))
}

// Count estimates how many times key was added (and not removed). See
// CountHash.
func (f *Filter) Count(key []byte) uint64 { return f.CountHash(f.Hash(key)) }

// CountString is Count for a string key.
func (f *Filter) CountString(key string) uint64 { return f.CountHash(f.HashString(key)) }

// AddHash inserts one occurrence of the key whose hash is h: it increments
// the key's k counters (a counter probed twice by the key is incremented
// twice), or with MinimalIncrease only those equal to their minimum. A
// counter at Max stays there. It allocates nothing.
func (f *Filter) AddHash(h hashing.Hash128) {
	if f.bits == nil && !f.minInc && f.inline {
		f.count++
		f.addCounters(h)
		return
	}
	var buf [params.MaxK]uint64
	f.addAt(f.geo.Positions(h, &buf))
}

// addAt counts a key and raises its counters at pos: AddHash's work once
// the positions are known (AddBatch calls it too).
func (f *Filter) addAt(pos []uint64) {
	f.count++
	switch {
	case f.minInc:
		f.raiseMinimum(pos)
	case f.bits == nil:
		f.incrementCounters(pos)
	default:
		f.incrementAll(pos)
	}
}

// incrementAll increments the counters at pos (twice for a position listed
// twice), saturating, and sets their bits. It is increment unrolled for
// speed: the only branches are the rare saturation and the change
// tracker's state, which is the same for every key, so the CPU predicts
// them all and overlaps the k memory misses instead of stalling on a
// mispredicted "was it zero?" after each. Setting a bit that is already
// set is harmless, so the bit is set unconditionally.
func (f *Filter) incrementAll(pos []uint64) {
	for _, b := range pos {
		i, sh := f.locate(b)
		w := &f.counters[i]
		c := *w >> sh & f.max
		if c >= f.max-1 {
			if c == f.max {
				continue
			}
			f.sat++
		}
		*w += 1 << sh
		if f.track.state == trackList && c == 0 {
			f.track.note(b>>6, f.bits)
		}
		f.bits[b>>6] |= 1 << (b & 63)
	}
}

// raiseMinimum is Cohen and Matias's minimal increase: only the counters
// equal to the key's minimum go up. The minimum is the key's Count, and
// raising the others could only add error to the keys that share them. A
// counter probed twice is raised once, since after the first increment it
// no longer equals the minimum.
func (f *Filter) raiseMinimum(pos []uint64) {
	low := f.minimum(pos)
	if low == f.max {
		return // every counter saturated
	}
	for _, b := range pos {
		if f.get(b) == low {
			f.increment(b)
		}
	}
}

// RemoveHash deletes one occurrence of the key whose hash is h by
// decrementing its k counters. Saturated counters are left alone (their
// true value is unknown, and lowering them could create false negatives).
//
// Removal is safe: if any counter the key needs is zero (counting a
// counter probed twice as needing two), the key cannot have been added;
// RemoveHash then changes nothing and returns an error wrapping
// ErrNotPresent. No removal drives a counter below zero. Removing a key that
// was never added but whose counters are all non-zero (a false positive)
// does succeed and corrupts the filter for the keys sharing those counters,
// as in every counting filter: callers remove only what they added. A
// minimal-increase filter returns ErrNoRemoval.
func (f *Filter) RemoveHash(h hashing.Hash128) error {
	if f.minInc {
		return ErrNoRemoval
	}
	if f.bits == nil && f.inline {
		return f.removeCounters(h)
	}
	var buf [params.MaxK]uint64
	return f.removeAt(f.geo.Positions(h, &buf))
}

// errAbsent is the error of a refused removal.
func errAbsent() error {
	return fmt.Errorf("%w: a counter of the key is zero, nothing removed", ErrNotPresent)
}

// removeAt removes the key whose positions are pos.
func (f *Filter) removeAt(pos []uint64) error {
	// Lower the counters first and settle the bits after, so that a
	// refusal halfway is undone before anyone (the view, the change
	// tracker) has seen it.
	for i, b := range pos {
		w, sh := f.locate(b)
		switch f.counters[w] >> sh & f.max {
		case f.max:
			continue
		case 0:
			f.undoDecrements(pos[:i])
			return errAbsent()
		}
		f.counters[w] -= 1 << sh
	}
	f.clearZeroBits(pos)
	if f.count > 0 {
		f.count--
	}
	return nil
}

// clearZeroBits turns off the bits of the counters at pos that are zero.
// As in incrementAll, the bit is updated without a branch on the counter,
// except when the change tracker must see the change. Without a view it
// does nothing.
func (f *Filter) clearZeroBits(pos []uint64) {
	if f.bits == nil {
		return
	}
	for _, b := range pos {
		zero := uint64(0)
		if f.get(b) == 0 {
			zero = 1
		}
		if f.track.state == trackList && zero == 1 {
			f.clearBit(b) // once, even for a position listed twice
			continue
		}
		f.bits[b>>6] &^= zero << (b & 63)
	}
}

// undoDecrements restores the counters a refused removal lowered: every
// one not at max (a counter at max was skipped, and no decrement reaches
// max).
func (f *Filter) undoDecrements(pos []uint64) {
	for _, b := range pos {
		if w, sh := f.locate(b); f.counters[w]>>sh&f.max != f.max {
			f.counters[w] += 1 << sh
		}
	}
}

// ContainsHash reports whether the key whose hash is h may be in the set.
// It reads the bit view only: one cache line for the Blocked layout.
// Without a bit view (Config.NoBitView) it reads the key's counters, with
// the same answer: a key is present when all its counters are non-zero.
func (f *Filter) ContainsHash(h hashing.Hash128) bool {
	if f.view != nil {
		return f.view.ContainsHash(h)
	}
	return f.containsCounters(h)
}

// allNonZero reports whether every counter at pos is non-zero.
func (f *Filter) allNonZero(pos []uint64) bool {
	for _, b := range pos {
		if f.get(b) == 0 {
			return false
		}
	}
	return true
}

// CountHash estimates the multiplicity of the key whose hash is h by
// minimum selection (Cohen and Matias 2003): the smallest of its k
// counters. The estimate is 0 exactly when Contains is false, is never
// below the true multiplicity while the key's smallest counter is below
// Max, and equals it unless every counter of the key is shared with other
// keys (a Bloom error, as rare as a false positive). A result of Max means
// "Max or more".
func (f *Filter) CountHash(h hashing.Hash128) uint64 {
	var buf [params.MaxK]uint64
	return f.minimum(f.geo.Positions(h, &buf))
}

// minimum returns the smallest counter at pos.
func (f *Filter) minimum(pos []uint64) uint64 {
	low := f.max
	for _, b := range pos {
		low = min(low, f.get(b))
	}
	return low
}
