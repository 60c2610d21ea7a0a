package anyfile

import (
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
	"github.com/bloomcast/bloomcast/params"
)

// Building a filter from keys, sized as "bloomcast build" sizes it.

// DefaultRate is the false-positive rate a BuildConfig without P or M
// sizes for.
const DefaultRate = 0.01

// DefaultMaxExactDistinct bounds the distinct keys a Builder counts
// exactly (keyfile.Distinct): 2^24, held as 64-bit hashes (at most 256
// MiB while deduplicating). Beyond it a Bloom filter records the count
// estimated from its bits, marked as such (bloom.Filter.SetCountFromBits).
const DefaultMaxExactDistinct = 1 << 24

// A BuildConfig says what a Builder makes. The zero value builds a
// blocked Bloom filter sized for the distinct keys added at DefaultRate,
// with seed 0 and no folding headroom.
type BuildConfig struct {
	// Kind is Bloom (also the zero value), Counting or Deletion.
	Kind Kind
	// Query sizes the filter as params.Solve solves it, for one layout
	// (0: params.Blocked). Without N, and unless both M and K are given,
	// the keys are all hashed first (16 bytes a key) and the filter is
	// sized for the distinct ones. Without P and M, P is DefaultRate.
	Query params.Query
	// Seed is the hashing seed.
	Seed uint64
	// Scheme hashes the keys and places their probes; nil means
	// hashing.Default. hashing.Fast64 (scheme XXH3x64) is the faster
	// one for blocked filters, which readers before it do not know.
	Scheme hashing.Scheme
	// Folds rounds m up so that the filter can be halved Folds times
	// (bloom.Config.Folds); counting filters ignore it.
	Folds int
	// Width and MinimalIncrease describe a counting filter's counters
	// (counting.Config).
	Width           int
	MinimalIncrease bool
	// MaxExactDistinct bounds the distinct keys counted exactly when the
	// filter is sized before the keys are read; 0 means
	// DefaultMaxExactDistinct.
	MaxExactDistinct int
}

// A BuildResult says what a Builder read and made.
// The zero value is an empty result: no keys read, no shape.
type BuildResult struct {
	// Read is the keys added; Distinct the distinct ones among them
	// (by their 64-bit hash halves), or when Exact is false an estimate:
	// for a Bloom filter the count from its bits, for a counting filter
	// the keys added.
	Read, Distinct uint64
	Exact          bool
	// Solved is params.Solve's answer for the filter's layout; Meets is
	// false when the shape misses the query's P for its N.
	Solved params.Solved
	// Shape is the filter's shape, m rounded up for the folds.
	Shape params.Shape
	// Fill is the fraction of bits set (counting: of non-zero counters).
	Fill float64
	// PredictedRate is Shape.FalsePositive(Distinct), the rate the model
	// predicts for the distinct keys read.
	PredictedRate float64
}

// A Builder adds keys to a new filter and records their distinct count,
// as "bloomcast build" does. Make one with NewBuilder; the zero value
// is not usable (Add panics and Finish returns an error).
type Builder struct {
	cfg BuildConfig
	// The filter: counters, or bits (a Bloom filter, or a deletion
	// filter's added keys, with deletion set).
	counters *counting.Filter
	bits     *bloom.Filter
	deletion *counting.DeletionFilter
	solved   params.Solved
	deferred bool              // sized at Finish from the hashes held
	hs       []hashing.Hash128 // deferred: every key's hash; else a batch
	distinct *keyfile.Distinct
}

// NewBuilder returns a Builder for c. An invalid configuration (a shape
// that params.Solve or the filter's constructor refuses, a Kind that is
// not built from keys) is an error.
func NewBuilder(c BuildConfig) (*Builder, error) {
	switch c.Kind {
	case 0:
		c.Kind = Bloom
	case Bloom, Counting, Deletion:
	default:
		return nil, errorf("NewBuilder builds Bloom, counting and deletion filters, not %s", article(c.Kind))
	}
	if c.Query.Layout == 0 {
		c.Query.Layout = params.Blocked
	}
	if c.Query.P == 0 && c.Query.M == 0 {
		c.Query.P = DefaultRate
	}
	if c.MaxExactDistinct == 0 {
		c.MaxExactDistinct = DefaultMaxExactDistinct
	}
	if c.Scheme == nil {
		c.Scheme = hashing.Default
	}
	b := &Builder{cfg: c, deferred: c.Query.N == 0 && (c.Query.M == 0 || c.Query.K == 0)}
	if b.deferred {
		return b, nil
	}
	if err := b.size(c.Query); err != nil {
		return nil, err
	}
	b.distinct = keyfile.NewDistinct(c.MaxExactDistinct)
	b.hs = make([]hashing.Hash128, 0, 1024)
	return b, nil
}

// size makes the empty filter of the shape params.Solve gives for q.
func (b *Builder) size(q params.Query) error {
	sol, err := params.Solve(q)
	if err != nil {
		return err
	}
	c, s := b.cfg, sol.Layouts[0]
	b.solved = s
	if c.Kind == Counting {
		cf, err := counting.New(counting.Config{Layout: s.Shape.Layout, M: s.Shape.M, K: s.Shape.K, BlockBits: s.Shape.BlockBits,
			Width: c.Width, MinimalIncrease: c.MinimalIncrease, Seed: c.Seed, Scheme: c.Scheme})
		b.counters = cf
		return err
	}
	bf, err := bloom.New(bloom.Config{Layout: s.Shape.Layout, M: s.Shape.M, K: s.Shape.K, BlockBits: s.Shape.BlockBits,
		Seed: c.Seed, Scheme: c.Scheme, Folds: c.Folds})
	if err != nil {
		return err
	}
	if c.Kind == Deletion {
		d, err := counting.NewDeletion(bloom.Config{Layout: bf.Layout(), M: bf.M(), K: bf.K(), BlockBits: bf.BlockBits(),
			Seed: c.Seed, Scheme: c.Scheme})
		if err != nil {
			return err
		}
		b.deletion, b.bits = d, d.Added()
		return nil
	}
	b.bits = bf
	return nil
}

// Add adds key (for a deletion filter, to its added keys).
func (b *Builder) Add(key []byte) {
	h := b.cfg.Scheme.Sum(key, b.cfg.Seed)
	b.hs = append(b.hs, h)
	if b.deferred {
		return
	}
	b.distinct.Add(h)
	if len(b.hs) == cap(b.hs) {
		b.addBatch(b.hs)
		b.hs = b.hs[:0]
	}
}

func (b *Builder) addBatch(hs []hashing.Hash128) {
	if b.counters != nil {
		b.counters.AddBatch(hs)
		return
	}
	b.bits.AddBatch(hs)
}

// Finish sizes the filter if it waited for the keys, adds what is held,
// records the count (a Bloom filter's the distinct keys, or beyond
// MaxExactDistinct the estimate from its bits; a counting filter counts
// every add) and returns the filter with what was read. The Builder is
// not used again.
func (b *Builder) Finish() (*File, BuildResult, error) {
	if b == nil || (b.counters == nil && b.bits == nil && !b.deferred) {
		return nil, BuildResult{}, errorf("a Builder not made by NewBuilder")
	}
	var r BuildResult
	if b.deferred {
		r.Read, r.Distinct, r.Exact = uint64(len(b.hs)), keyfile.CountDistinct(b.hs), true
		q := b.cfg.Query
		q.N = max(1, r.Distinct)
		if err := b.size(q); err != nil {
			return nil, r, err
		}
	} else {
		r.Read = b.distinct.Seen()
		r.Distinct, r.Exact = b.distinct.Count()
	}
	b.addBatch(b.hs)
	b.hs = nil
	bf := b.bits
	switch {
	case bf != nil && r.Exact:
		bf.SetCount(r.Distinct)
	case bf != nil:
		bf.SetCountFromBits()
		r.Distinct = bf.Count()
	case !r.Exact:
		r.Distinct = r.Read
	}
	f := &File{k: &bloomKind{bits: bf}}
	switch {
	case b.counters != nil:
		r.Shape, r.Fill = b.counters.Shape(), b.counters.FillRatio()
		f.k = newCountingKind(b.counters, 0)
	case b.deletion != nil:
		r.Shape, r.Fill = bf.Shape(), bf.FillRatio()
		f.k = &deletionKind{d: b.deletion}
	default:
		r.Shape, r.Fill = bf.Shape(), bf.FillRatio()
	}
	r.Solved = b.solved
	r.PredictedRate = r.Shape.FalsePositive(r.Distinct)
	return f, r, nil
}
