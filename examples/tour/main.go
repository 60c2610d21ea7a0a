// Command tour is the library tour of the README, as a program:
// go run ./examples/tour
package main

import (
	"fmt"
	"log"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

func main() {
	// A blocked filter for a million keys at a 0.1% false-positive rate.
	f, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: 1_000_000, P: 0.001})
	if err != nil {
		log.Fatal(err)
	}
	f.AddString("http://example.com/a")
	fmt.Println(f.ContainsString("http://example.com/a")) // true
	fmt.Println(f.ContainsString("http://example.com/b")) // false, or true with p ≈ 0.001

	// Hash once, probe many filters that share the seed, allocating nothing;
	// batches overlap memory misses on filters larger than the caches.
	keys := []string{"http://example.com/a", "http://example.com/c"}
	hashes := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hashes[i] = f.HashString(k)
	}
	found := make([]bool, len(hashes))
	f.ContainsBatch(hashes, found)
	fmt.Println(found) // [true false]

	// Send it: one frame (magic, version, parameters, CRC-32C); decoding
	// treats the bytes as hostile and bounds what it allocates.
	b, err := f.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	g, err := bloom.Decode(b, envelope.Limits{MaxPayload: 64 << 20})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(b) == f.EncodedSize(), g.Equal(f)) // true true

	// Combine and shrink: no key is lost.
	if err := g.Union(f); err != nil {
		log.Fatal(err)
	}
	small := bloom.MustNew(bloom.Config{M: 1 << 24, K: 7})
	small.AddString("http://example.com/a")
	if err := small.FoldTo(1 << 20); err != nil {
		log.Fatal(err)
	}
	fmt.Println(small.M(), small.ContainsString("http://example.com/a")) // 1048576 true

	// The mathematics: the shape each layout needs, and its predicted rate.
	s, err := params.Size(params.Blocked, 1_000_000, 0.001, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("m=%d k=%d p=%.6f\n", s.M, s.K, s.FalsePositive(1_000_000))
}
