package squid

import (
	"fmt"
	"slices"
)

// MaxCapacity is the most entries a digest's header can hold.
const MaxCapacity = 1<<31 - 1

// DefaultBitsPerEntry is Squid's default digest_bits_per_entry.
const DefaultBitsPerEntry = 5

// FromURLs returns a digest of the URLs requested with GET, as a Squid
// peer would fetch it from /squid-internal-periodic/store_digest:
// capacity entries (0: one per URL, at least 1) at bitsPerEntry bits
// each (Squid's digest_bits_per_entry; DefaultBitsPerEntry is its
// default). The header counts the distinct URLs, as bloomcast filters
// count distinct keys. A URL that is not absolute is an error naming it.
func FromURLs(urls []string, capacity uint64, bitsPerEntry uint8) (*Digest, error) {
	if capacity == 0 {
		capacity = uint64(max(1, len(urls)))
	}
	if capacity > MaxCapacity {
		return nil, fmt.Errorf("%w: a digest holds at most %d entries", ErrConfig, MaxCapacity)
	}
	d, err := New(uint32(capacity), bitsPerEntry)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		if err := d.Add(GET, u); err != nil {
			return nil, fmt.Errorf("key %q: %w", u, err)
		}
	}
	d.Header.Count = uint32(len(slices.Compact(slices.Sorted(slices.Values(urls)))))
	return d, nil
}
