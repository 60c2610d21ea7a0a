package digest_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// exampleKeys hashes the URLs http://example.com/lo to …/hi-1 with seed.
func exampleKeys(seed uint64, lo, hi int) []hashing.Hash128 {
	var hs []hashing.Hash128
	for i := lo; i < hi; i++ {
		hs = append(hs, hashing.SumStringSeed(fmt.Sprintf("http://example.com/%d", i), seed))
	}
	return hs
}

// A set published as a ribbon filter, then changed: the second
// publication is a delta of the added and removed filters, a fraction of
// the first.
func ExampleStaticPublisher() {
	const seed = 42
	keys := func(lo, hi int) []hashing.Hash128 { return exampleKeys(seed, lo, hi) }
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
	// publication 1: whole true, 8.5 bits per key
	// publication 2: whole false, 0.4 bits per key
	// false true
}

// What a static digest holds at each end: the receiver's view holds the
// ribbon and, of the two filters of one hash function (each of
// n/−ln(1 − ε) bits for n the ribbon's keys), only the positions of their
// ones: the keys changed since the ribbon. The publisher holds the
// ribbon's keys besides.
func ExampleStaticView_MemoryBytes() {
	const seed = 7
	keys := func(lo, hi int) []hashing.Hash128 { return exampleKeys(seed, lo, hi) }
	p, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: seed})
	if err != nil {
		panic(err)
	}
	var v *digest.StaticView
	for seq, set := range [][]hashing.Hash128{keys(0, 10000), keys(100, 10100)} {
		frame, _, err := p.Publish(uint64(seq+1), set)
		if err != nil {
			panic(err)
		}
		if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
			panic(err)
		}
		n, bits := v.Sizes()
		fmt.Printf("publication %d: %d keys in the ribbon, filters of %d bits; view %d bytes, publisher %d bytes\n",
			seq+1, n, bits, v.MemoryBytes(), p.MemoryBytes())
	}
	// Output:
	// publication 1: 10000 keys in the ribbon, filters of 2554997 bits; view 10496 bytes, publisher 170576 bytes
	// publication 2: 10000 keys in the ribbon, filters of 2554997 bits; view 10936 bytes, publisher 171016 bytes
}

// A publisher held to a compressed Bloom digest's bytes: each
// publication passes the length of what the Bloom digest (here k = 2,
// m/n 31, about the same rate) sends for the same change, and the
// publisher builds a new ribbon only when the bytes its frames saved pay
// for it.
func ExampleStaticPublisher_PublishWithin() {
	const seed, n = 42, 10000
	p, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: seed, Codec: digest.Fast})
	if err != nil {
		panic(err)
	}
	var prev *digest.Digest
	for seq := uint64(1); seq <= 4; seq++ {
		set := exampleKeys(seed, 500*int(seq), 500*int(seq)+n) // 500 keys replaced each time
		bf, err := bloom.New(bloom.Config{Layout: bloom.Classic, M: 31 * n, K: 2, Seed: seed})
		if err != nil {
			panic(err)
		}
		bf.AddBatch(set)
		cur := &digest.Digest{Sequence: seq, Bloom: bf}
		var ref []byte
		if prev == nil {
			ref, err = digest.Encode(cur, digest.Fast)
		} else {
			ref, err = digest.AppendDiff(nil, prev, cur, digest.Fast)
		}
		if err != nil {
			panic(err)
		}
		prev = cur
		frame, full, err := p.PublishWithin(seq, set, len(ref))
		if err != nil {
			panic(err)
		}
		fmt.Printf("publication %d: whole %v, %d bytes against %d, saved %d\n", seq, full, len(frame), len(ref), p.Saved())
	}
	// Output:
	// publication 1: whole true, 10652 bytes against 13181, saved 2529
	// publication 2: whole false, 1826 bytes against 2159, saved 2862
	// publication 3: whole false, 1824 bytes against 2171, saved 3209
	// publication 4: whole false, 1826 bytes against 2149, saved 3532
}

// The two forms of static digest, on the same change: 200 of 10 000
// keys removed and 200 added. StaticXOR sends one filter of the keys the
// ribbon answers wrongly where StaticAddedRemoved sends two, so its
// delta does not say which filter each change is in, and both its rates
// are the ribbon's plus that one filter's.
func ExampleStaticForm() {
	const seed = 11
	keys := func(lo, hi int) []hashing.Hash128 { return exampleKeys(seed, lo, hi) }
	for _, form := range []digest.StaticForm{digest.StaticAddedRemoved, digest.StaticXOR} {
		p, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: seed, Form: form})
		if err != nil {
			panic(err)
		}
		var v *digest.StaticView
		var sizes []int
		for seq, set := range [][]hashing.Hash128{keys(0, 10000), keys(200, 10200)} {
			frame, _, err := p.Publish(uint64(seq+1), set)
			if err != nil {
				panic(err)
			}
			if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
				panic(err)
			}
			sizes = append(sizes, len(frame))
		}
		fmt.Printf("%s: whole %d bytes, delta %d; removed %v, added %v\n", form, sizes[0], sizes[1],
			v.ContainsString("http://example.com/100"), v.ContainsString("http://example.com/10100"))
	}
	// Output:
	// added-removed: whole 10652 bytes, delta 855; removed false, added true
	// xor: whole 10646 bytes, delta 788; removed false, added true
}
