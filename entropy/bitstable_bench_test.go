package entropy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkBitsTableBit measures BitsTable.Bit reading a bit of a 1 KiB
// array at density 0.06 (a node's peer view at m/n 48, k 3) from the mark
// the given number of bytes before it: ns/op over bytes is the cost of a
// decoded byte.
//
//	go test ./entropy -run '^$' -bench BitsTableBit
func BenchmarkBitsTableBit(b *testing.B) {
	const m = 8 << 10
	r := rand.New(rand.NewPCG(38, 3))
	words := masked(randomBits(r, m, 0.06), m)
	src, err := EncodeBits(nil, words, m, RANS)
	if err != nil {
		b.Fatal(err)
	}
	d, _ := StreamDensity(src)
	tab := NewBitsTable(d)
	marks := make([]BitsMark, 7)
	if err := tab.DecodeMarks(make([]uint64, m/64), src, m, 128, marks); err != nil {
		b.Fatal(err)
	}
	for _, bytes := range []uint64{1, 32, 64, 128} {
		b.Run(fmt.Sprintf("bytes=%d", bytes), func(b *testing.B) {
			i := 8 * (128 + bytes - 1) // bytes decoded from the first mark
			for range b.N {
				if _, err := tab.Bit(src, m, i, marks[:1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
