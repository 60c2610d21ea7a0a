package fpset

import (
	"math/bits"

	"github.com/bloomcast/bloomcast/hashing"
)

// Sorted is the static sorted form of a fingerprint set: the distinct
// fingerprints in increasing order, packed Bits bits each (and, for a
// multiset, their counts packed CountBits bits each), searched by
// interpolation. It takes Len·(Bits + CountBits) bits. Make one with
// [Set.Sorted], [Compressed.Sorted] or [Decode]. A Sorted is safe for
// concurrent queries.
//
// The zero value holds nothing: every query answers absent (count 0), its
// encoders return an error wrapping ErrConfig and its Set panics with a
// message naming the fix.
type Sorted struct {
	shape
	n      uint64
	total  uint64
	fps    packed
	counts packed
}

func newSorted(sh shape, n uint64) *Sorted {
	return &Sorted{shape: sh, n: n, fps: newPacked(n, sh.bits), counts: newPacked(n, sh.countBits)}
}

// put stores fingerprint f with count c at index i.
func (t *Sorted) put(i, f, c uint64) {
	t.fps.Set(i, f)
	if t.countBits > 0 {
		t.counts.Set(i, c)
	}
}

// countAt returns the count at index i (1 for a set).
func (t *Sorted) countAt(i uint64) uint64 {
	if t.countBits == 0 {
		return 1
	}
	return t.counts.Get(i)
}

// search returns the index of f and whether it is there: interpolation
// search over [lo, hi), each probe guessing f's position from the values
// at the ends of the range (Perl, Itai and Avni 1978). On uniform
// fingerprints it needs O(log log n) probes on average; after
// interpolationBudget(n) probes it falls back to bisection, so no input
// costs more than O(log n) (a hybrid in the spirit of Santoro and Sidney
// 1985).
func (t *Sorted) search(f uint64) (uint64, bool) {
	return interpolationSearch(t.n, f, t.fps.Get)
}

// interpolationBudget returns the number of interpolation probes allowed
// before bisection: about twice the expected log2 log2 n, plus slack.
func interpolationBudget(n uint64) int { return 2*bits.Len(uint(bits.Len64(n))) + 4 }

// interpolationSearch finds f among the n increasing values at(0) …
// at(n−1) (see Sorted.search). If f is absent it returns the index of the
// first larger value (n if there is none).
func interpolationSearch(n, f uint64, at func(uint64) uint64) (uint64, bool) {
	if n == 0 {
		return 0, false
	}
	lo, hi := uint64(0), n
	a, b := at(lo), at(hi-1)
	for budget := interpolationBudget(n); lo < hi; budget-- {
		if f < a {
			return lo, false
		}
		if f > b {
			return hi, false
		}
		mid := lo + (hi-lo)/2
		if budget > 0 && b > a {
			// (f−a)·(hi−1−lo)/(b−a) ≤ hi−1−lo: the quotient fits.
			ph, pl := bits.Mul64(f-a, hi-1-lo)
			q, _ := bits.Div64(ph, pl, b-a)
			mid = lo + q
		}
		switch v := at(mid); {
		case v == f:
			return mid, true
		case v < f:
			lo = mid + 1
			if lo < hi {
				a = at(lo)
			}
		default:
			hi = mid
			if lo < hi {
				b = at(hi - 1)
			}
		}
	}
	return lo, false
}

// Contains reports whether key's fingerprint is in the set.
func (t *Sorted) Contains(key []byte) bool { return t.ContainsHash(t.Hash(key)) }

// ContainsString is Contains for a string key.
func (t *Sorted) ContainsString(key string) bool { return t.ContainsHash(t.HashString(key)) }

// ContainsHash is Contains for a hashed key. It allocates nothing.
func (t *Sorted) ContainsHash(h hashing.Hash128) bool {
	_, found := t.search(t.Fingerprint(h))
	return found
}

// Count returns key's count (see [Set.Count]).
func (t *Sorted) Count(key []byte) uint64 { return t.CountHash(t.Hash(key)) }

// CountString is Count for a string key.
func (t *Sorted) CountString(key string) uint64 { return t.CountHash(t.HashString(key)) }

// CountHash is Count for a hashed key. It allocates nothing.
func (t *Sorted) CountHash(h hashing.Hash128) uint64 {
	i, found := t.search(t.Fingerprint(h))
	if !found {
		return 0
	}
	return t.countAt(i)
}

// Len returns the number of distinct fingerprints.
func (t *Sorted) Len() uint64 { return t.n }

// Total returns the sum of the counts (Len for a set).
func (t *Sorted) Total() uint64 { return t.total }

// SizeBits returns Len·(Bits + CountBits), the packed size.
func (t *Sorted) SizeBits() uint64 { return t.n * uint64(t.bits+t.countBits) }

// FalsePositiveRate returns the probability that an absent key is reported
// present: Len/(2^Bits − 1).
func (t *Sorted) FalsePositiveRate() float64 { return t.falsePositive(t.n) }

// Fingerprints calls fn with every fingerprint and its count (1 for a
// set), in increasing order, until fn returns false.
func (t *Sorted) Fingerprints(fn func(f, count uint64) bool) {
	for i := uint64(0); i < t.n; i++ {
		if !fn(t.fps.Get(i), t.countAt(i)) {
			return
		}
	}
}

// each is Fingerprints without early exit.
func (t *Sorted) each(fn func(f, c uint64)) {
	t.Fingerprints(func(f, c uint64) bool { fn(f, c); return true })
}

// Set returns a dynamic set holding the same fingerprints, sized so that
// it can take a quarter more before it grows. It panics on a zero Sorted.
func (t *Sorted) Set() *Set {
	if t.bits == 0 {
		panic(zeroPanic)
	}
	for home := max(minHome, t.n+t.n/4+1); ; home *= 2 {
		if s := newSet(t.shape, home); s.fill(t.each) {
			return s
		}
	}
}
