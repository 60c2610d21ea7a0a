package cli

import (
	"fmt"

	"github.com/bloomcast/bloomcast/formats/squid"
)

// squidBuild is build --squid: a Squid Cache Digest (version 5) of URLs
// requested with GET, as a Squid peer would fetch it from
// /squid-internal-periodic/store_digest. The capacity is -n, or else the
// number of keys (nGiven: -n was given, so a capacity of 0 came from -n
// 0); bitsPerEntry is Squid's digest_bits_per_entry.
func squidBuild(e *env, inputs []string, capacity uint64, nGiven bool, bitsPerEntry uint8, out string) error {
	var urls []string
	err := e.keys(inputs).eachChecked(func(key []byte) error {
		if _, err := squid.CanonicalURL(string(key)); err != nil {
			return fmt.Errorf("key %q: %w (build --squid reads URLs)", key, err)
		}
		urls = append(urls, string(key))
		return nil
	})
	if err != nil {
		return err
	}
	var w warnings
	if nGiven && capacity == 0 {
		w.add("%s: -n 0 is no capacity: taken as no -n, so the digest holds %d entries", outputName(out), max(1, len(urls)))
	}
	if len(urls) == 0 {
		w.add("%s: no keys read: the digest is empty", outputName(out))
	}
	if capacity > squid.MaxCapacity || capacity == 0 && len(urls) > squid.MaxCapacity {
		return usagef("a Squid digest holds at most %d entries", squid.MaxCapacity)
	}
	d, err := squid.FromURLs(urls, capacity, bitsPerEntry)
	if err != nil {
		return fileErr(outputName(out), err)
	}
	if fill := d.Filter.FillRatio(); fill > 0.9 {
		w.add("%s: %.1f%% of the bits are set: the digest is nearly full (give a larger -n)", outputName(out), 100*fill)
	}
	return e.writeWarned(out, d, w)
}
