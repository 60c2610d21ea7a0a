package entropy_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/entropy"
)

// A sparse array: 1% of 2^16 bits set, every 100th bit. The fast coder
// and the arithmetic coder both come close to m·H(p); a constant array
// costs two bytes.
func ExampleEncodeBits() {
	const m = 1 << 16
	words := make([]uint64, m/64)
	for b := 0; b < m; b += 100 {
		words[b/64] |= 1 << (b % 64)
	}
	fmt.Printf("m·H(p) = %.0f bytes\n", m*entropy.Entropy(656.0/m)/8)
	for _, c := range []entropy.Codec{entropy.Fast, entropy.Arith} {
		enc, err := entropy.EncodeBits(nil, words, m, c)
		if err != nil {
			panic(err)
		}
		back := make([]uint64, m/64)
		if err := entropy.DecodeBits(back, enc, m, c); err != nil {
			panic(err)
		}
		fmt.Printf("%v: %v stream, %d bytes\n", c, entropy.Codec(enc[0]), len(enc))
	}
	empty, _ := entropy.EncodeBits(nil, make([]uint64, m/64), m, entropy.Fast)
	fmt.Printf("empty: %v stream, %d bytes\n", entropy.Codec(empty[0]), len(empty))
	// Output:
	// m·H(p) = 662 bytes
	// fast: rans stream, 693 bytes
	// arith: arith stream, 668 bytes
	// empty: const stream, 2 bytes
}

// Counters of a counting Bloom filter, packed sixteen 4-bit counters to a
// word: mostly 0 and 1.
func ExampleEncodeCounters() {
	const n = 4096
	words := make([]uint64, n/16)
	for i := 0; i < n; i++ {
		v := uint64(0)
		switch {
		case i%3 == 0:
			v = 1
		case i%50 == 1:
			v = 2
		}
		words[i/16] |= v << (i % 16 * 4)
	}
	enc, err := entropy.EncodeCounters(nil, words, n, 4)
	if err != nil {
		panic(err)
	}
	back := make([]uint64, n/16)
	if err := entropy.DecodeCounters(back, enc, n, 4); err != nil {
		panic(err)
	}
	fmt.Printf("%d counters: %d bytes packed, %v stream of %d bytes\n", n, n/2, entropy.Codec(enc[0]), len(enc))
	// Output:
	// 4096 counters: 2048 bytes packed, order0 stream of 557 bytes
}

func ExampleEntropy() {
	for _, p := range []float64{0.5, 0.1, 0.01} {
		fmt.Printf("H(%v) = %.4f\n", p, entropy.Entropy(p))
	}
	// Output:
	// H(0.5) = 1.0000
	// H(0.1) = 0.4690
	// H(0.01) = 0.0808
}

// A delta between two versions of a filter changes a few bits of many:
// AppendGaps codes their positions, and XORGaps applies them to the old
// version's words in place, in time proportional to the bits changed.
func ExampleAppendGaps() {
	const m = 1 << 20
	old := make([]uint64, m/64)
	old[7] = 0xFF
	changed := []uint64{3, 4500, 4501, 700000} // positions of the bits that differ
	delta, _ := entropy.AppendGaps(nil, changed, m)
	n, err := entropy.XORGaps(old, delta, m)
	fmt.Println(len(delta), "bytes for", m, "bits;", n, "flipped", err)
	fmt.Printf("%#x %#x\n", old[0], old[4500/64])
	// Output:
	// 13 bytes for 1048576 bits; 4 flipped <nil>
	// 0x8 0x300000
}

// A BitsTable is built once for a density and decodes every stream of
// it; Bit reads one bit, decoding only the bytes up to it.
func ExampleBitsTable() {
	words := make([]uint64, 16) // 1024 bits, a few set
	for _, b := range []int{3, 100, 517, 900} {
		words[b/64] |= 1 << (b % 64)
	}
	src, _ := entropy.EncodeBits(nil, words, 1024, entropy.Fast)
	density, ok := entropy.StreamDensity(src)
	fmt.Println(entropy.Codec(src[0]), ok)
	t := entropy.NewBitsTable(density)
	set, _ := t.Bit(src, 1024, 517, nil)
	clear, _ := t.Bit(src, 1024, 518, nil)
	fmt.Println(set, clear)
	// Output:
	// rans true
	// true false
}
