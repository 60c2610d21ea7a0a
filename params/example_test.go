package params_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/params"
)

// Size a filter for a million keys at a 1% false-positive rate in each
// layout. Blocking costs a few bits per key for one cache miss per query.
func ExampleSize() {
	for _, layout := range []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged} {
		s, err := params.Size(layout, 1_000_000, 0.01, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-11v m=%-8d k=%d  %.2f bits/key  rate %.4f\n", s.Layout, s.M, s.K, s.BitsPerKey(1_000_000), s.FalsePositive(1_000_000))
	}
	_, err := params.Size(params.Blocked, 1_000_000, 1.5, 0)
	fmt.Println(err)
	// Output:
	// classic     m=9592960  k=7  9.59 bits/key  rate 0.0100
	// partitioned m=9593024  k=7  9.59 bits/key  rate 0.0100
	// blocked     m=9918464  k=6  9.92 bits/key  rate 0.0100
	// paged       m=9601024  k=7  9.60 bits/key  rate 0.0100
	// params: p = 1.5 outside (0, 1): invalid parameters
}

// The same memory and k in every layout: 2^20 bits, 10 bits per key, k = 8.
func ExampleShape_FalsePositive() {
	const m, n = 1 << 20, 104_857
	for _, s := range []params.Shape{
		{Layout: params.Classic, M: m, K: 8},
		{Layout: params.Partitioned, M: m, K: 8},
		{Layout: params.Blocked, M: m, K: 8, BlockBits: params.BlockedBits},
		{Layout: params.Paged, M: m, K: 8, BlockBits: params.DefaultPageBits},
	} {
		fmt.Printf("%-11v %.4e\n", s.Layout, s.FalsePositive(n))
	}
	fmt.Printf("approx      %.4e\n", params.ApproxFalsePositive(m, n, 8))
	// Output:
	// classic     8.4552e-03
	// partitioned 8.4554e-03
	// blocked     1.0284e-02
	// paged       8.4833e-03
	// approx      8.4552e-03
}

// Read the number of keys back from the number of set bits.
func ExampleEstimateCount() {
	s := params.Shape{Layout: params.Classic, M: 1 << 20, K: 7}
	x := uint64(s.ExpectedFill(50_000) * float64(s.M))
	fmt.Printf("%d bits set: about %.0f keys, rate now %.2e\n", x, params.EstimateCount(s.M, x, s.K), params.FalsePositiveFromFill(float64(x)/float64(s.M), s.K))
	// Output:
	// 297578 bits set: about 50000 keys, rate now 1.48e-04
}

func ExampleParseLayout() {
	l, err := params.ParseLayout("Blocked")
	fmt.Println(l, err, params.Layout(9))
	// Output:
	// blocked <nil> layout(9)
}
