package bitsandblooms_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
)

// A filter as github.com/bits-and-blooms/bloom/v3 writes it: build,
// encode, decode and query.
func Example() {
	f, err := bitsandblooms.New(1000, 7) // bloom.New(1000, 7)
	if err != nil {
		panic(err)
	}
	f.Add([]byte("alice"))
	f.Add([]byte("bob"))

	data, _ := f.MarshalBinary() // what bloom/v3's WriteTo writes
	g, err := bitsandblooms.Decode(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(data), bitsandblooms.Sniff(data), g.M(), g.K(), g.Ones())
	fmt.Println(g.Test([]byte("alice")), g.Test([]byte("bob")), g.Test([]byte("carol")))
	// Output:
	// 152 binary 1000 7 14
	// true true false
}

// Contains is Test under the name every filter of the module answers to.
func ExampleFilter_Contains() {
	f, err := bitsandblooms.New(1000, 7)
	if err != nil {
		panic(err)
	}
	f.Add([]byte("alice"))
	fmt.Println(f.Contains([]byte("alice")), f.Test([]byte("alice")))
	// Output: true true
}
