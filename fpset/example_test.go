package fpset_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/hashing"
)

// A set of 2·log2 n-bit fingerprints: its false-positive rate is at most
// 1/n.
func ExampleSet() {
	s, err := fpset.New(fpset.Config{N: 1000, C: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 1000 {
		s.AddString(fmt.Sprint("url-", i))
	}
	fmt.Println(s.Bits(), "bits per fingerprint")
	fmt.Println(s.ContainsString("url-7"), s.ContainsString("url-7000"))
	fmt.Println(s.RemoveString("url-7"), s.ContainsString("url-7"), s.Len())
	fmt.Printf("rate %.2e ≤ 1/n\n", s.FalsePositiveRate())
	// Output:
	// 20 bits per fingerprint
	// true false
	// true false 999
	// rate 9.53e-04 ≤ 1/n
}

// A set of the keys read, sized for the distinct ones among them at a
// false-positive rate of at most 1 in 10,000.
func ExampleFromHashes() {
	var hs []hashing.Hash128
	for i := range 5000 {
		hs = append(hs, hashing.SumStringSeed(fmt.Sprint("url-", i%4000), 0))
	}
	s, err := fpset.FromHashes(fpset.Config{P: 1e-4}, hs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Bits(), "bits per fingerprint,", s.Len(), "fingerprints")
	fmt.Println(s.ContainsString("url-3999"), s.FalsePositiveRate() <= 1e-4)
	// Output:
	// 26 bits per fingerprint, 4000 fingerprints
	// true true
}

// A multiset counts each fingerprint, up to 2^CountBits − 1.
func ExampleSet_Count() {
	s := fpset.MustNew(fpset.Config{N: 10, Bits: 32, CountBits: 4})
	for _, k := range []string{"a", "b", "a", "a"} {
		s.AddString(k)
	}
	s.RemoveString("a")
	fmt.Println(s.CountString("a"), s.CountString("b"), s.CountString("c"), s.Total())
	// Output: 2 1 0 3
}

// Compress a set for transmission and query it on the other side.
func ExampleCompressed() {
	s := fpset.MustNew(fpset.Config{N: 100_000, Bits: 24, Seed: 42})
	for i := range 100_000 {
		s.AddString(fmt.Sprint("object-", i))
	}
	c := s.Compress()
	msg, _ := c.MarshalBinary()
	fmt.Printf("rate %.4f, Rice k = %d, %.2f bits per key, %d bytes sent\n",
		c.FalsePositiveRate(), c.RiceParameter(), c.BitsPerKey(), len(msg))

	got, err := fpset.DecodeCompressed(msg, envelope.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.ContainsString("object-99"), got.Sorted().ContainsString("object-99"))
	// Output:
	// rate 0.0059, Rice k = 7, 8.87 bits per key, 110672 bytes sent
	// true true
}
