package bloom

import (
	"fmt"
	"github.com/bloomcast/bloomcast/internal/hugepage"
	"math/bits"
)

// Union makes f the union of f and g (bitwise OR). A key added to either
// is then reported present by f. The filters must be Compatible. The
// count becomes the estimate from the bits of the union (CountEstimated):
// the keys in both are not known, so no tally is. The union of a filter
// with itself leaves it, and its count, unchanged.
func (f *Filter) Union(g *Filter) error {
	f.mustWrite("Union")
	if err := f.Compatible(g); err != nil {
		return err
	}
	if g == f {
		return nil // f ∪ f = f: adding the count to itself would double it
	}
	for i, w := range g.words {
		f.words[i] |= w
	}
	f.SetCountFromBits()
	return nil
}

// Intersect makes f the intersection of f and g (bitwise AND). Every key
// added to both is reported present; the false-positive rate of the result
// is at most that of either input (Broder and Mitzenmacher, "Network
// applications of Bloom filters: a survey", 2004, §2.2). The count becomes
// the estimate from the bits of the result (CountEstimated); it errs high,
// as the AND keeps bits that keys outside the intersection set in both.
func (f *Filter) Intersect(g *Filter) error {
	f.mustWrite("Intersect")
	if err := f.Compatible(g); err != nil {
		return err
	}
	for i, w := range g.words {
		f.words[i] &= w
	}
	f.SetCountFromBits()
	return nil
}

// CanFold reports whether Fold would succeed, and why not.
func (f *Filter) CanFold() error {
	switch f.layout {
	case Classic, Partitioned:
		if f.span < 2 || f.span%2 != 0 {
			return fmt.Errorf("%w: %s filter with %d bits per range (must be even and ≥ 2)", ErrFold, f.layout, f.span)
		}
	default:
		if f.span < 2 || f.span%2 != 0 {
			return fmt.Errorf("%w: %s filter with %d blocks (must be even and ≥ 2)", ErrFold, f.layout, f.span)
		}
	}
	return nil
}

// Fold halves the filter in place, the survey's "shrink": the result
// answers exactly as if every key had been added to a filter of half the
// size, so there are no false negatives, and the false-positive rate rises
// to that of the smaller filter.
//
// With multiply-shift range reduction, Reduce(x, n/2) = Reduce(x, n)/2, so
// halving maps bit b to bit b/2: Fold ORs neighbouring bit pairs (Classic,
// and within each slice for Partitioned) or neighbouring blocks (Blocked,
// Paged). This is the survey's "OR the two halves and drop the top index
// bit", written for this reduction.
func (f *Filter) Fold() error {
	f.mustWrite("Fold")
	if err := f.CanFold(); err != nil {
		return err
	}
	switch f.layout {
	case Classic:
		f.words = foldBits(f.words, f.m)
	case Partitioned:
		f.foldSlices()
	default:
		f.foldBlocks()
	}
	f.m /= 2
	if f.layout != Blocked && f.layout != Paged {
		f.span /= 2
	}
	return nil
}

// Folds returns how many times in a row Fold succeeds: the number of
// times the layout's range (bits, bits per slice, or blocks) halves to a
// whole number. Config.Folds sets a lower bound at construction.
func (f *Filter) Folds() int {
	if f.span == 0 {
		return 0
	}
	return bits.TrailingZeros64(f.span)
}

// FoldTo folds repeatedly until the filter has at most maxBits bits. It
// checks first and changes nothing if the target cannot be reached: a
// filter reaches 1/2^Folds() of its size, no further.
func (f *Filter) FoldTo(maxBits uint64) error {
	folds := 0
	for m, span := f.m, f.span; m > maxBits; folds++ {
		if span < 2 || span%2 != 0 {
			unit := "blocks"
			if f.layout == Classic || f.layout == Partitioned {
				unit = "bits per range"
			}
			return fmt.Errorf("%w: %d bits is out of reach from %d: the filter halves %d times, to %d bits at least (%d %s)",
				ErrFold, maxBits, f.m, f.Folds(), m, span, unit)
		}
		m, span = m/2, span/2
	}
	for ; folds > 0; folds-- {
		if err := f.Fold(); err != nil {
			return err
		}
	}
	return nil
}

// foldPairs ORs each pair of neighbouring bits of w into one bit and packs
// the 32 results into the low half.
func foldPairs(w uint64) uint64 {
	x := (w | w>>1) & 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	return (x | x>>16) & 0x00000000FFFFFFFF
}

// foldBits folds an m-bit array (bits past m zero) to m/2 bits.
func foldBits(words []uint64, m uint64) []uint64 {
	out := newWords(m / 2)
	for j := range out {
		lo := foldPairs(words[2*j])
		var hi uint64
		if 2*j+1 < len(words) {
			hi = foldPairs(words[2*j+1])
		}
		out[j] = lo | hi<<32
	}
	return out
}

func (f *Filter) foldSlices() {
	s, half := f.span, f.span/2
	out := newWords(f.m / 2)
	for i := uint64(0); i < uint64(f.k); i++ {
		for j := uint64(0); j < half; j++ {
			if getBit(f.words, i*s+2*j) || getBit(f.words, i*s+2*j+1) {
				setBit(out, i*half+j)
			}
		}
	}
	f.words = out
}

func (f *Filter) foldBlocks() {
	per := f.blockBits / 64
	out := hugepage.Words(uint64(len(f.words) / 2))
	for b := uint64(0); b < f.span/2; b++ {
		dst := out[b*per : (b+1)*per]
		for w := range dst {
			dst[w] = f.words[2*b*per+uint64(w)] | f.words[(2*b+1)*per+uint64(w)]
		}
	}
	f.words = out
	f.span /= 2
}

func getBit(words []uint64, b uint64) bool { return words[b>>6]&(1<<(b&63)) != 0 }
func setBit(words []uint64, b uint64)      { words[b>>6] |= 1 << (b & 63) }

// onesInRange counts the set bits in [from, to).
func onesInRange(words []uint64, from, to uint64) uint64 {
	if from >= to {
		return 0
	}
	fw, tw := from>>6, (to-1)>>6
	lead := ^uint64(0) << (from & 63)
	tail := ^uint64(0) >> (63 - (to-1)&63)
	if fw == tw {
		return uint64(bits.OnesCount64(words[fw] & lead & tail))
	}
	n := bits.OnesCount64(words[fw]&lead) + bits.OnesCount64(words[tw]&tail)
	for _, w := range words[fw+1 : tw] {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}
