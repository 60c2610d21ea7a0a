package fuse_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/internal/fuse"
	"github.com/bloomcast/bloomcast/ribbon"
)

// A binary fuse filter of 10^5 keys at 1/256 beside a ribbon filter.
func ExampleSize() {
	for _, arity := range []int{3, 4} {
		s, err := fuse.Size(100000, arity, 1.0/256)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %.3f bits per key, %.3f × the bound\n", s, s.BitsPerKey(), s.TimesBound())
	}
	r, _ := ribbon.Size(100000, 1.0/256)
	fmt.Printf("ribbon: %.3f bits per key, %.3f × the bound\n", r.BitsPerKey(), r.TimesBound())
	// Output:
	// 3-wise, 58 segments of 2048 slots, r = 8: 9.503 bits per key, 1.188 × the bound
	// 4-wise, 110 segments of 1024 slots, r = 8: 9.011 bits per key, 1.126 × the bound
	// ribbon: 8.335 bits per key, 1.042 × the bound
}
