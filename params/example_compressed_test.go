package params_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/params"
)

// Mitzenmacher's Table 1: a budget of 8 transmitted bits per element. The
// standard filter sends its 8 bits per element raw; letting the receivers
// hold a larger array with fewer hash functions, compressed to the same
// budget, lowers the false-positive rate.
func ExampleOptimizeTransmit() {
	fmt.Println("array m/n  k  sent z/n  rate")
	for _, maxArray := range []float64{14, 92} {
		q := params.TransmitQuery{N: 10_000, BitsPerElement: 8}
		q.MaxBitsPerElement = maxArray // memory of the receivers
		q.WholeBitsPerElement = true   // m/n an integer, as in the paper
		q.MaxK = 6                     // no more probes than the standard filter
		res, err := params.OptimizeTransmit(q)
		if err != nil {
			fmt.Println(err)
			return
		}
		if maxArray == 14 {
			u := res.Uncompressed
			fmt.Printf("%9g %2d %9.3f  %.3g  (standard, raw)\n", u.BitsPerElement, u.K, u.TransmitPerElement, u.FalsePositive)
		}
		b := res.Best
		fmt.Printf("%9g %2d %9.3f  %.3g  (compressed %v)\n", b.BitsPerElement, b.K, b.TransmitPerElement, b.FalsePositive, b.Compressed)
	}
	// Output:
	// array m/n  k  sent z/n  rate
	//         8  6     8.000  0.0216  (standard, raw)
	//        14  2     7.923  0.0177  (compressed true)
	//        92  1     7.923  0.0108  (compressed true)
}

// The rows of Mitzenmacher's Tables 1 and 2, evaluated one by one.
func ExampleTransmitFor() {
	for _, r := range []struct {
		m float64
		k int
	}{{14, 2}, {92, 1}, {28, 4}, {48, 3}} {
		z, f := params.TransmitFor(r.m, r.k)
		fmt.Printf("m/n %2g  k %d  z/n %.3f  f %.3g\n", r.m, r.k, z, f)
	}
	// Output:
	// m/n 14  k 2  z/n 7.923  f 0.0177
	// m/n 92  k 1  z/n 7.923  f 0.0108
	// m/n 28  k 4  z/n 15.846  f 0.000314
	// m/n 48  k 3  z/n 15.829  f 0.000222
}

// The dual problem: keep the standard 8-bit filter's rate and send fewer
// bits, here with an arithmetic coder 0.5% above the entropy.
func ExampleOptimizeTarget() {
	q := params.TargetQuery{N: 10_000, P: 0.0216}
	q.MaxBitsPerElement, q.WholeBitsPerElement, q.MaxK = 16, true, 6
	q.Overhead = 0.005
	res, err := params.OptimizeTarget(q)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range []params.CompressedShape{res.Uncompressed, res.Best} {
		fmt.Printf("m/n %2g  k %d  z/n %.3f  f %.4f\n", s.BitsPerElement, s.K, s.TransmitPerElement, s.FalsePositive)
	}
	// Output:
	// m/n  8  k 6  z/n 8.000  f 0.0216
	// m/n 13  k 2  z/n 7.721  f 0.0203
}

// Deltas: after 1% of a million elements are replaced, the XOR of the old
// and the new standard 8-bit filter compresses to under half a bit per
// element, and a delta budget of one bit per element covers 2.4% churn.
func ExampleDeltaBits() {
	const n = 1_000_000
	fmt.Printf("delta %.3f bits per element\n", params.DeltaBits(8*n, n, 6, 0.01)/n)
	fmt.Printf("publish every %.1f%% churn\n", 100*params.MaxChurn(8*n, n, 6, 1*n))
	// Output:
	// delta 0.485 bits per element
	// publish every 2.4% churn
}

// The continuous optimum: at p0 = 1/2 the standard filter, 0.6185^(z/n);
// sparser arrays approach 2^(−z/n).
func ExampleIdealCompressed() {
	for _, p0 := range []float64{0.5, 0.9, 0.99, 0.9999} {
		m, k, f := params.IdealCompressed(8, p0)
		fmt.Printf("p0 %-6g m/n %7.1f  k %.2f  f %.4f\n", p0, m, k, f)
	}
	// Output:
	// p0 0.5    m/n     8.0  k 5.55  f 0.0214
	// p0 0.9    m/n    17.1  k 1.80  f 0.0160
	// p0 0.99   m/n    99.0  k 1.00  f 0.0102
	// p0 0.9999 m/n  5431.0  k 0.54  f 0.0067
}
