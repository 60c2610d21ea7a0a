package anyfile

import (
	"errors"
	"math"
)

// Union makes f the union of f and g, two files of one kind: a key in
// either is in f. Bloom filters and Squid digests of one shape OR their
// bits; a Squid digest's header keeps f's capacity and sizes, sums the
// deletions and takes the count estimated from the bits. Counting
// filters are merged: their counters summed. f keeps its codec and
// sequence. Filters of another program's format (Guava, bits-and-blooms)
// of one size and number of probes OR their bits, as that program's own
// union does, and keep f's format. Scalable filters of one configuration
// are combined layer by layer (scalable.Filter.Union).
func (f *File) Union(g *File) error { return f.combine(g, false) }

// Intersect makes f the intersection of f and g, two Bloom filters or
// Squid digests of one shape, or filters of another program's format of
// one size: a key in both is in f. Counting filters have no
// intersection.
func (f *File) Intersect(g *File) error { return f.combine(g, true) }

// ErrKinds is the error of combining files of two kinds.
var ErrKinds = errors.New("only filters of one kind combine")

func (f *File) combine(g *File, intersect bool) error {
	k := f.Kind()
	switch {
	case k != g.Kind():
		return &Error{ErrKinds}
	case k == Counting && intersect:
		return errorf("counting filters have no intersection here (the smaller of two counters is not a count of the keys in both)")
	case k == Counting:
		return f.Counting.Merge(g.Counting)
	case f.Foreign():
		return f.combineForeign(g, intersect)
	case k == Scalable && intersect:
		return errorf("scalable filters have no intersection here (a key may sit in different layers of the two)")
	case k == Scalable:
		return f.Scalable.Union(g.Scalable)
	case k != Bloom && k != Squid:
		return errorf("%s does not combine", article(k))
	}
	if err := f.decodeView(); err != nil {
		return err
	}
	if err := g.decodeView(); err != nil {
		return err
	}
	if err := f.Bloom.Compatible(g.Bloom); err != nil {
		return err
	}
	op := f.Bloom.Union
	if intersect {
		op = f.Bloom.Intersect
	}
	if err := op(g.Bloom); err != nil {
		return err
	}
	if d := f.Squid; d != nil {
		d.Header.DelCount = uint32(min(uint64(d.Header.DelCount)+uint64(g.Squid.Header.DelCount), math.MaxInt32))
		d.Header.Count = uint32(min(math.Round(f.Bloom.EstimateCount()), math.MaxInt32))
	}
	return nil
}

// Foldable says why f cannot be folded without changing kind, or nil
// for a Bloom filter (which may still not halve: bloom.Filter.Folds) or
// a Guava or bits-and-blooms filter (which halve when their size is
// even: Stats.Folds).
func (f *File) Foldable() error {
	switch f.Kind() {
	case Bloom, Guava, BitsAndBlooms, SBBF:
		return nil
	case ParquetFile:
		return errParquetFile("is not folded: bloomcast does not rewrite Parquet files")
	case Squid:
		return errorf("a Squid cache digest cannot be folded: Squid takes its bit positions modulo the mask size, so halving the mask moves them")
	case Counting:
		return errorf("a counting filter cannot be folded (its counters would have to be summed in pairs, and a key's count would mix with others')")
	case Scalable:
		return errorf("a scalable Bloom filter is not folded: its layers are sized for their rates, and halving one raises the compound rate above its target")
	}
	return errorf("%s cannot be folded", article(f.Kind()))
}

// Fold halves f's Bloom filter once (bloom.Filter.Fold), or with toBits
// above 0 until it has at most toBits bits (bloom.Filter.FoldTo); a Guava
// or bits-and-blooms filter likewise, into exactly the filter of half the
// bits that program builds from the same keys (guava.Filter.Fold,
// bitsandblooms.Filter.Fold). A target out of reach changes nothing.
func (f *File) Fold(toBits uint64) error {
	if err := f.Foldable(); err != nil {
		return err
	}
	if f.Foreign() {
		return f.foldForeign(toBits)
	}
	if err := f.decodeView(); err != nil {
		return err
	}
	if toBits == 0 {
		return f.Bloom.Fold()
	}
	return f.Bloom.FoldTo(toBits)
}
