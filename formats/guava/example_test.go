package guava_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/formats/guava"
)

// A filter sized as Guava's BloomFilter.create(Funnels.stringFunnel(UTF_8),
// 1000, 0.01) sizes it, filled, written as BloomFilter.writeTo writes it,
// and read back.
func Example() {
	f, err := guava.New(1000, 0.01)
	if err != nil {
		panic(err)
	}
	f.AddString("customer-4711")
	f.AddString("customer-4712")
	data, _ := f.MarshalBinary()

	g, err := guava.Decode(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Strategy(), g.K(), g.Bits(), len(data))
	fmt.Println(g.TestString("customer-4711"), g.TestString("customer-9999"))
	// Output:
	// MURMUR128_MITZ_64 7 9600 1206
	// true false
}

// Contains is Test under the name every filter of the module answers to.
func ExampleFilter_Contains() {
	f, err := guava.New(1000, 0.01)
	if err != nil {
		panic(err)
	}
	f.Add([]byte("customer-4711"))
	fmt.Println(f.Contains([]byte("customer-4711")), f.Test([]byte("customer-4711")))
	// Output: true true
}
