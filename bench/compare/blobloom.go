package compare

import (
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/greatroar/blobloom"
	"github.com/zeebo/xxh3"
)

// --- greatroar/blobloom ---
//
// blobloom is a blocked Bloom filter (512-bit blocks of 32-bit words)
// that takes a 64-bit hash, as its documentation asks: a caller hashes
// the key. Here that is xxh3-64 of the key's bytes, the fastest
// well-mixed 64-bit string hash at hand. Debian packages it
// (golang-github-greatroar-blobloom-dev); bench/go.mod points a replace at
// the packaged source.

type blobloomSet struct {
	f *blobloom.Filter
	k int
}

func newBlobloomSet(c blobloom.Config) *blobloomSet {
	bits, k := blobloom.Optimize(c)
	return &blobloomSet{blobloom.New(bits, k), k}
}

// newBlobloom sizes the filter with blobloom's own optimiser for n keys
// at rate p.
func newBlobloom(n int, p float64) (Set, error) {
	return newBlobloomSet(blobloom.Config{Capacity: uint64(n), FPRate: p}), nil
}

// newBlobloomEqualBits sizes the filter with blobloom's optimiser capped
// at the bits bloomcast's blocked layout takes for n and p, so that the
// two spend the same memory.
func newBlobloomEqualBits(n int, p float64) (Set, error) {
	f, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: uint64(n), P: p})
	if err != nil {
		return nil, err
	}
	return newBlobloomSet(blobloom.Config{Capacity: uint64(n), FPRate: p, MaxBits: f.M()}), nil
}

func (s *blobloomSet) AddAll(keys []string) error {
	f := s.f
	for _, k := range keys {
		f.Add(xxh3.HashString(k))
	}
	return nil
}

func (s *blobloomSet) CountHits(keys []string) int {
	f, n := s.f, 0
	for _, k := range keys {
		if f.Has(xxh3.HashString(k)) {
			n++
		}
	}
	return n
}

func (s *blobloomSet) Bits() uint64 { return s.f.NumBits() }

// K is blobloom's number of hash functions, the block choice included: it
// sets K − 1 bits a key.
func (s *blobloomSet) K() int { return s.k }
