package scalable_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/scalable"
)

// A filter that starts small and grows: 1000 keys per first layer, a
// compound rate of at most 1% however many keys come.
func Example() {
	f, err := scalable.New(scalable.Config{Capacity: 1000, P: 0.01, Seed: 42})
	if err != nil {
		panic(err)
	}
	for i := range 10_000 {
		if err := f.AddString(fmt.Sprintf("https://example.com/%d", i)); err != nil {
			panic(err)
		}
	}
	fmt.Println("layers:", f.Layers())
	fmt.Println("has /123:", f.ContainsString("https://example.com/123"))
	fmt.Printf("predicted rate ≤ 1%%: %v\n", f.PredictedRate() <= 0.01)
	// Output:
	// layers: 4
	// has /123: true
	// predicted rate ≤ 1%: true
}

// An Adder takes a stream of keys and adds them a batch at a time; a
// non-scaling filter's error says how many keys it took.
func ExampleAdder() {
	f := scalable.MustNew(scalable.Config{Capacity: 1000, P: 0.01, NonScaling: true})
	a := scalable.NewAdder(f)
	for i := range 5000 {
		_ = a.AddString(fmt.Sprint("key-", i))
	}
	fmt.Println(a.Flush())
	fmt.Println(f.ContainsString("key-999"), f.Count())
	// Output:
	// scalable: filter is full: non-scaling, holding its capacity of 1000 keys (after 1000 keys)
	// true 1000
}

// A non-scaling filter refuses keys once it holds its capacity.
func ExampleConfig_nonScaling() {
	f := scalable.MustNew(scalable.Config{Capacity: 2, P: 0.01, NonScaling: true})
	fmt.Println(f.AddString("a"), f.AddString("b"))
	fmt.Println(f.AddString("c"))
	// Output:
	// <nil> <nil>
	// scalable: filter is full: non-scaling, holding its capacity of 2 keys
}

// Two filters built with one configuration combine layer by layer.
func ExampleFilter_Union() {
	c := scalable.Config{Capacity: 100, P: 0.01}
	a, b := scalable.MustNew(c), scalable.MustNew(c)
	for i := range 50 {
		_ = a.AddString(fmt.Sprint("a", i))
	}
	for i := range 500 {
		_ = b.AddString(fmt.Sprint("b", i))
	}
	if err := a.Union(b); err != nil {
		panic(err)
	}
	fmt.Println(a.Layers(), a.ContainsString("a7"), a.ContainsString("b321"))
	// Output:
	// 3 true true
}

// The encoding round-trips through the bloomcast frame (type 11).
func ExampleDecode() {
	f := scalable.MustNew(scalable.Config{Capacity: 10, P: 0.01})
	for i := range 25 {
		_ = f.AddString(fmt.Sprint(i))
	}
	b, _ := f.MarshalBinary()
	g, err := scalable.Decode(b, envelope.Limits{})
	fmt.Println(err, g.Layers(), g.Count() == f.Count(), g.Equal(f))
	// Output:
	// <nil> 2 true true
}
