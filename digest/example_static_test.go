package digest_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// A set published as a ribbon filter, then changed: the second
// publication is a delta of the added and removed filters, a fraction of
// the first.
func ExampleStaticPublisher() {
	const seed = 42
	keys := func(lo, hi int) []hashing.Hash128 {
		var hs []hashing.Hash128
		for i := lo; i < hi; i++ {
			hs = append(hs, hashing.SumStringSeed(fmt.Sprintf("http://example.com/%d", i), seed))
		}
		return hs
	}
	p, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: seed})
	if err != nil {
		panic(err)
	}
	var v *digest.StaticView
	for seq, set := range [][]hashing.Hash128{keys(0, 10000), keys(100, 10100)} {
		frame, full, err := p.Publish(uint64(seq+1), set)
		if err != nil {
			panic(err)
		}
		if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
			panic(err)
		}
		fmt.Printf("publication %d: whole %v, %.1f bits per key\n", seq+1, full, 8*float64(len(frame))/float64(len(set)))
	}
	fmt.Println(v.ContainsString("http://example.com/50"), v.ContainsString("http://example.com/10050"))
	// Output:
	// publication 1: whole true, 8.6 bits per key
	// publication 2: whole false, 0.4 bits per key
	// false true
}

// What a static digest holds at each end: the receiver's view holds the
// ribbon and the two filters of one hash function decoded, each of
// n/−ln(1 − ε) bits for n the ribbon's keys; the publisher holds the
// ribbon's keys besides.
func ExampleStaticView_MemoryBytes() {
	const seed = 7
	var set []hashing.Hash128
	for i := range 10000 {
		set = append(set, hashing.SumStringSeed(fmt.Sprintf("http://example.com/%d", i), seed))
	}
	p, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: seed})
	if err != nil {
		panic(err)
	}
	frame, _, err := p.Publish(1, set)
	if err != nil {
		panic(err)
	}
	v, err := (*digest.StaticView)(nil).Apply(frame, envelope.Limits{})
	if err != nil {
		panic(err)
	}
	keys, bits := v.Sizes()
	fmt.Printf("%d keys sent in %d bytes; view %d bytes (filters of %d bits each); publisher %d bytes\n",
		keys, len(frame), v.MemoryBytes(), bits, p.MemoryBytes())
	// Output:
	// 10000 keys sent in 10772 bytes; view 649248 bytes (filters of 2554997 bits each); publisher 809328 bytes
}
