package anyfile

import "errors"

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
	if f.Kind() != g.Kind() {
		return &Error{ErrKinds}
	}
	return f.kind().combine(f, g, intersect)
}

// Foldable says why f cannot be folded without changing kind, or nil
// for a Bloom filter (which may still not halve: bloom.Filter.Folds) or
// a Guava or bits-and-blooms filter (which halve when their size is
// even: Stats.Folds).
func (f *File) Foldable() error { return f.kind().foldable(f) }

// Fold halves f's Bloom filter once (bloom.Filter.Fold), or with toBits
// above 0 until it has at most toBits bits (bloom.Filter.FoldTo); a Guava
// or bits-and-blooms filter likewise, into exactly the filter of half the
// bits that program builds from the same keys (guava.Filter.Fold,
// bitsandblooms.Filter.Fold). A target out of reach changes nothing.
func (f *File) Fold(toBits uint64) error {
	k := f.kind()
	if err := k.foldable(f); err != nil {
		return err
	}
	return k.fold(f, toBits)
}
