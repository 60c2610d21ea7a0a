package main

import (
	"fmt"

	"github.com/bloomcast/bloomcast/squid"
)

// squidBuild is build --squid: a Squid Cache Digest (version 5) of URLs
// requested with GET, as a Squid peer would fetch it from
// /squid-internal-periodic/store_digest. The capacity is -n, or else the
// number of keys; bitsPerEntry is Squid's digest_bits_per_entry.
func squidBuild(e *env, inputs []string, capacity uint64, bitsPerEntry uint8, out string) error {
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
	if capacity == 0 {
		capacity = uint64(max(1, len(urls)))
	}
	if capacity > 1<<31-1 {
		return usagef("a Squid digest holds at most %d entries", 1<<31-1)
	}
	d, err := squid.New(uint32(capacity), bitsPerEntry)
	if err != nil {
		return fileErr(outputName(out), err)
	}
	for _, u := range urls {
		if err := d.Add(squid.GET, u); err != nil {
			return fileErr(outputName(out), fmt.Errorf("key %q: %w", u, err))
		}
	}
	return e.writeFilter(out, d)
}
