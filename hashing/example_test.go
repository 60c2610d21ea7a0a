package hashing_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
)

// A key is hashed once; its probe positions over any array size follow from
// the hash without hashing again.
func Example() {
	h := hashing.SumString("http://www.example.com/")
	p := hashing.NewProbes(h)
	for i := 0; i < 4; i++ {
		fmt.Println(hashing.Reduce(p.Next(), 1000))
	}
	// Output:
	// 717
	// 907
	// 98
	// 601
}

// Four keys read, one of them twice: three distinct keys to size a
// structure for.
func ExampleCountDistinct() {
	var hs []hashing.Hash128
	for _, k := range []string{"a", "b", "a", "c"} {
		hs = append(hs, hashing.SumStringSeed(k, 7))
	}
	fmt.Println(hashing.CountDistinct(hs), "of", len(hs))
	// Output: 3 of 4
}
