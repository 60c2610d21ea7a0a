package bloom

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// NewView returns a read-only Filter over words, which the caller keeps
// owning and may go on changing (a counting filter keeps its bit
// projection this way, with no copy). words must hold ceil(s.M/64) words
// with the bits past s.M zero. Queries, estimates, encoding and Clone work
// as on any filter; the methods that modify a filter panic on a view,
// since they would change the caller's array behind its back. Clone
// returns an ordinary, writable copy.
func NewView(s params.Shape, seed uint64, scheme hashing.Scheme, words []uint64) (*Filter, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := checkMax(s); err != nil {
		return nil, err
	}
	if want := (s.M + 63) / 64; uint64(len(words)) != want {
		return nil, fmt.Errorf("%w: view of %d bits needs %d words, got %d", ErrConfig, s.M, want, len(words))
	}
	f := newFilterOver(s, seed, scheme, words)
	f.readOnly = true
	return f, nil
}

// ReadOnly reports whether f is a view made by NewView.
func (f *Filter) ReadOnly() bool { return f.readOnly }

func (f *Filter) mustWrite(op string) {
	if f.readOnly {
		panic("bloom: " + op + " on a read-only view")
	}
}
