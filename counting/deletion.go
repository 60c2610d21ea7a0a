package counting

import (
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// DeletionFilter supports removal with two plain Bloom filters instead of
// counters, the alternative Tony Finch's notes on Bloom filters describe
// for "when false negatives are acceptable": one filter of the keys added,
// one of the keys removed, and a key is reported present when it is in the
// first and not in the second.
//
// It costs two bits per position where a 4-bit counting filter costs five,
// and its answers are weaker, as its callers must accept:
//
//   - false negatives: a key that is present is reported absent if the
//     removed filter has a false positive on it (at the removed filter's
//     false-positive rate), or if it was removed once and added again;
//     removal is forever;
//   - removal does not free space: the added filter keeps every key it saw,
//     so its false-positive rate only rises.
//
// Use a [Filter] when a present key must never be reported absent.
//
// The zero DeletionFilter is not usable (make one with NewDeletion): its
// methods panic with "counting: zero DeletionFilter; use NewDeletion".
type DeletionFilter struct {
	added, removed *bloom.Filter
}

// NewDeletion returns an empty deletion filter whose two halves are Bloom
// filters of configuration c. A configuration bloom.New refuses is an
// error wrapping both ErrConfig and bloom.ErrConfig.
func NewDeletion(c bloom.Config) (*DeletionFilter, error) {
	added, err := bloom.New(c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &DeletionFilter{added: added, removed: bloom.MustNew(c)}, nil
}

// Add inserts key.
func (d *DeletionFilter) Add(key []byte) { d.AddHash(d.hasher().Hash(key)) }

// AddString inserts key.
func (d *DeletionFilter) AddString(key string) { d.AddHash(d.hasher().HashString(key)) }

// Remove deletes key, for good: it is reported absent from now on, even
// if it is added again.
func (d *DeletionFilter) Remove(key []byte) { d.RemoveHash(d.hasher().Hash(key)) }

// RemoveString deletes key for good.
func (d *DeletionFilter) RemoveString(key string) { d.RemoveHash(d.hasher().HashString(key)) }

// Contains reports whether key is probably present: added and not removed.
// Unlike a Bloom filter's, both answers can be wrong (see the type).
func (d *DeletionFilter) Contains(key []byte) bool { return d.ContainsHash(d.hasher().Hash(key)) }

// ContainsString is Contains for a string key.
func (d *DeletionFilter) ContainsString(key string) bool {
	return d.ContainsHash(d.hasher().HashString(key))
}

// AddHash inserts the key whose hash is h.
func (d *DeletionFilter) AddHash(h hashing.Hash128) { d.hasher().AddHash(h) }

// RemoveHash deletes the key whose hash is h for good.
func (d *DeletionFilter) RemoveHash(h hashing.Hash128) {
	d.hasher()
	d.removed.AddHash(h)
}

// ContainsHash reports whether the key whose hash is h is probably present.
func (d *DeletionFilter) ContainsHash(h hashing.Hash128) bool {
	return d.hasher().ContainsHash(h) && !d.removed.ContainsHash(h)
}

// Added returns the filter of added keys. It aliases d.
func (d *DeletionFilter) Added() *bloom.Filter { return d.added }

// Removed returns the filter of removed keys. It aliases d.
func (d *DeletionFilter) Removed() *bloom.Filter { return d.removed }

// hasher returns the added filter, whose geometry hashes keys, or panics
// naming the fix on a zero DeletionFilter.
func (d *DeletionFilter) hasher() *bloom.Filter {
	if d.added == nil {
		panic("counting: zero DeletionFilter; use NewDeletion")
	}
	return d.added
}
