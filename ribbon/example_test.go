package ribbon_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/ribbon"
)

// A static filter of four keys at a rate of at most 1%: every key of the
// set is reported present; an absent key with probability about 0.0078
// (7-bit fingerprints: a few keys make too few blocks for two widths).
func ExampleBuildStrings() {
	keys := []string{"a", "b", "c", "http://www.example.com/"}
	f, err := ribbon.BuildStrings(ribbon.Config{Rate: 0.01}, keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.ContainsString("http://www.example.com/"), f.ContainsString("d"))
	fmt.Println(f.Shape(), f.FalsePositiveRate())
	// Output:
	// true false
	// m = 192 slots (3 blocks), r = 7 0.0078125
}

// At scale the filter comes within a few percent of the information
// bound n·log2(1/ε) bits.
func ExampleFilter_Shape() {
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = fmt.Sprintf("http://www.example.com/%d", i)
	}
	f, err := ribbon.BuildStrings(ribbon.Config{Rate: 0.01}, keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := f.Shape()
	fmt.Println(s)
	fmt.Printf("%.4f rate, %.2f bits per key, %.3f × the bound\n", s.FalsePositiveRate(), s.BitsPerKey(), s.TimesBound())
	// Output:
	// m = 104192 slots (1628 blocks), r = 6 (+1 in 1171 blocks)
	// 0.0100 rate, 7.00 bits per key, 1.054 × the bound
}
