package scalable

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
)

// adderBatch is how many hashes an Adder holds before it adds them.
const adderBatch = 4 * batch

// An Adder adds a stream of keys to a Filter in batches: it hashes each
// key once and, every few hundred keys and at Flush, adds the hashes with
// AddBatch, which asks each layer about a group of keys at once so that
// their memory misses overlap. Keys go in in the order given, as Add
// would put them, so the filter ends up the same.
//
// The first error (ErrFull: the filter could not take a key) stops the
// Adder: it adds nothing more and returns that error from Add and Flush,
// saying how many keys the filter had taken (Filter.Count). A caller may
// check Flush's error only. An Adder is not safe for concurrent use.
//
// The zero Adder is not usable: make one with NewAdder. Its Add panics as
// a zero Filter's does, and its Flush returns nil.
type Adder struct {
	f   *Filter
	hs  []hashing.Hash128
	err error
}

// NewAdder returns an Adder that adds keys to f.
func NewAdder(f *Filter) *Adder {
	return &Adder{f: f, hs: make([]hashing.Hash128, 0, adderBatch)}
}

// Add adds key, or keeps its hash until the batch is full. It returns
// the Adder's error, nil while every batch went in.
func (a *Adder) Add(key []byte) error { return a.AddHash(a.hash().Hash(key)) }

// AddString is Add for a string key.
func (a *Adder) AddString(key string) error { return a.AddHash(a.hash().HashString(key)) }

// hash returns the filter whose Hash and HashString hash keys, panicking
// for a zero Adder as a zero Filter does.
func (a *Adder) hash() *Filter {
	if a.f == nil {
		panic(errZeroFilter)
	}
	return a.f
}

// AddHash is Add for a key hashed with the filter's Hash.
func (a *Adder) AddHash(h hashing.Hash128) error {
	if a.err != nil {
		return a.err
	}
	if a.hs = append(a.hs, h); len(a.hs) >= adderBatch {
		return a.Flush()
	}
	return nil
}

// Flush adds the keys kept, and returns the Adder's error.
func (a *Adder) Flush() error {
	if a.err == nil && len(a.hs) > 0 {
		if err := a.f.AddBatch(a.hs); err != nil {
			a.err = fmt.Errorf("%w (after %d keys)", err, a.f.Count())
		}
	}
	a.hs = a.hs[:0]
	return a.err
}
