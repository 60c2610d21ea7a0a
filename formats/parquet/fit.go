package parquet

import (
	"fmt"

	"github.com/bloomcast/bloomcast/params"
)

// FalsePositive returns the false-positive rate of a filter of the given
// blocks holding n distinct values, by params.SplitBlockFalsePositive (the
// block-load mixture of Putze, Sanders and Singler, exact per lane).
func FalsePositive(blocks int, n uint64) float64 {
	if blocks < 1 {
		return 1
	}
	return params.SplitBlockFalsePositive(uint64(blocks), n)
}

// FitBlocks returns the fewest blocks, among blocks, blocks/2, blocks/4 …
// (as long as the count stays even before halving), whose filter of n
// distinct values has a false-positive rate of at most p: the size that
// folding a filter of blocks blocks can reach. When even blocks blocks
// miss p it returns blocks.
func FitBlocks(blocks int, n uint64, p float64) int {
	z := blocks
	for z%2 == 0 && z >= 2 && FalsePositive(z/2, n) <= p {
		z /= 2
	}
	return z
}

// Fit builds a filter before its distinct count is known: it starts large
// and, when asked for the filter, folds it to the smallest size that keeps
// the false-positive rate at most p for the values actually added. Folding
// is exact (Fold), so the result is bit for bit the filter of that size
// built from the same values.
//
// The distinct count is the number of insertions that set a bit that was
// still clear. It misses a distinct value only when all eight of its bits
// were already set, a false positive of the large filter, at a rate
// FalsePositive(Blocks(), n) that is tiny while the filter is far from
// full (1e-9 for 10^6 values in 16 MiB).
//
// The zero Fit is not usable: Insert panics and Filter returns nil. Make
// one with NewFit. A Fit is not safe for concurrent use.
type Fit struct {
	f        *Filter
	p        float64
	distinct uint64
}

// NewFit returns a builder whose filter starts with the blocks NDVBytes
// gives maxNDV distinct values at rate p (a power of two: it folds down to
// any smaller power of two) and folds to fit p. maxNDV bounds the distinct
// values the result can hold at rate p; with more, Filter returns the
// unfolded filter, whose rate FalsePositive reports.
func NewFit(maxNDV uint64, p float64) (*Fit, error) {
	f, err := NewNDV(maxNDV, p)
	if err != nil {
		return nil, err
	}
	return &Fit{f: f, p: p}, nil
}

// InsertHash adds a value by its xxHash64 (Hash, HashString, HashInt32 …).
func (b *Fit) InsertHash(h uint64) {
	if b.f == nil {
		panic("parquet: Insert on a zero Fit: make one with parquet.NewFit")
	}
	w := b.f.words[8*block(h, len(b.f.words)/8):][:8]
	x := uint32(h)
	var changed uint32
	for i := range w {
		m := uint32(1) << ((x * salt[i]) >> 27)
		changed |= m &^ w[i]
		w[i] |= m
	}
	if changed != 0 {
		b.distinct++
	}
}

// Insert adds a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value.
func (b *Fit) Insert(v []byte) { b.InsertHash(Hash(v)) }

// Add is Insert under the name every filter of this module answers to
// (Filter.Add).
func (b *Fit) Add(v []byte) { b.Insert(v) }

// InsertString adds a BYTE_ARRAY (STRING) value.
func (b *Fit) InsertString(s string) { b.InsertHash(HashString(s)) }

// Distinct returns the number of distinct values added (see Fit).
func (b *Fit) Distinct() uint64 { return b.distinct }

// Blocks returns the blocks of the unfolded filter.
func (b *Fit) Blocks() int {
	if b.f == nil {
		return 0
	}
	return b.f.Blocks()
}

// Filter returns a copy of the filter folded to FitBlocks(Blocks(),
// Distinct(), p); nil for the zero Fit.
func (b *Fit) Filter() *Filter {
	if b.f == nil {
		return nil
	}
	g := b.f.Clone()
	if err := g.FoldTo(FitBlocks(g.Blocks(), b.distinct, b.p)); err != nil {
		panic(fmt.Sprintf("parquet: folding a fit: %v", err)) // FitBlocks gives a reachable size
	}
	return g
}
