package anyfile

import (
	"cmp"

	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
)

// FitMaxNDV is the distinct count a fitted ForeignBuilder starts from
// when its Spec has no N: 16 MiB of split block filter at P = 0.01.
const FitMaxNDV = 10_000_000

// A ForeignBuilder adds keys to a new filter of another program's format,
// as "bloomcast build --format" does, in one of three ways: sized by its
// Spec (N and P, or M and K) and filled as keys come; with neither N nor
// M, sized at Finish for the distinct keys read, which it holds until
// then; or fitted (a Parquet split block filter only): the keys go into a
// parquet.Fit sized for N (default FitMaxNDV) distinct keys, whose filter
// Finish folds to the smallest size that meets P for the distinct keys
// added (bit for bit the filter of that size), with no keys held. Make one with NewForeignBuilder; the zero
// value is not usable (Add and Finish return errors).
type ForeignBuilder struct {
	spec Spec
	f    *File        // sized by the Spec
	fit  *parquet.Fit // fitted
	keys [][]byte     // held for sizing at Finish
	hs   []hashing.Hash128
	read uint64
}

// NewForeignBuilder returns a ForeignBuilder for s, fitted when fit is
// true. A Spec that New refuses, or fit for another format than
// FormatParquetSBBF or with M, is an error.
func NewForeignBuilder(s Spec, fit bool) (*ForeignBuilder, error) {
	b := &ForeignBuilder{spec: s}
	var err error
	switch {
	case fit && s.Format != FormatParquetSBBF:
		return nil, errorf("a fitted filter is a parquet-sbbf filter, not %v", s.Format)
	case fit && s.M != 0:
		return nil, errorf("a fitted filter chooses its size: give N, the most distinct keys expected, not M")
	case fit:
		if b.fit, err = parquet.NewFit(cmp.Or(s.N, FitMaxNDV), s.P); err != nil {
			return nil, &Error{err}
		}
	case s.M == 0 && s.N == 0:
		// Sized at Finish, for the distinct keys.
	default:
		if b.f, err = New(s); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Add adds key, or refuses it (an error, the builder unchanged) when it
// is not a key of the Spec's KeyType.
func (b *ForeignBuilder) Add(key []byte) error {
	switch {
	case b == nil:
		return errorf("a ForeignBuilder not made by NewForeignBuilder")
	case b.fit != nil:
		v, err := b.spec.Keys.Plain(key)
		if err != nil {
			return err
		}
		b.fit.Insert(v)
	case b.f != nil:
		if err := b.f.Add(key); err != nil {
			return err
		}
	default:
		if err := b.spec.Keys.Check(key); err != nil {
			return err
		}
		b.keys = append(b.keys, append([]byte(nil), key...))
		b.hs = append(b.hs, hashing.Default.Sum(key, 0))
	}
	b.read++
	return nil
}

// A ForeignResult says what a ForeignBuilder read.
// The zero value is no keys read.
type ForeignResult struct {
	// Read is the keys added. Distinct is the distinct ones among them
	// when the builder counted them (sized at Finish: by their hashes;
	// fitted: parquet.Fit's count), and 0 when sized by the Spec.
	Read, Distinct uint64
}

// Finish returns the filter with what was read: sized for the distinct
// keys held and filled with them, or the fitted filter folded to its
// size. The builder is not used again.
func (b *ForeignBuilder) Finish() (*File, ForeignResult, error) {
	if b == nil {
		return nil, ForeignResult{}, errorf("a ForeignBuilder not made by NewForeignBuilder")
	}
	r := ForeignResult{Read: b.read}
	switch {
	case b.fit != nil:
		r.Distinct = b.fit.Distinct()
		return &File{k: &sbbfKind{p: b.fit.Filter()}, Keys: b.spec.Keys, format: FormatParquetSBBF}, r, nil
	case b.f != nil:
		return b.f, r, nil
	}
	s := b.spec
	s.N = keyfile.CountDistinct(b.hs)
	r.Distinct = s.N
	f, err := New(s)
	if err != nil {
		return nil, r, err
	}
	for _, key := range b.keys {
		if err := f.Add(key); err != nil {
			return nil, r, err
		}
	}
	b.keys, b.hs = nil, nil
	return f, r, nil
}
