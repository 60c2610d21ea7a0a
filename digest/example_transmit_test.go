package digest_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/params"
)

// A filter sized for memory (the optimal k for a rate) is about half
// full, so its digest barely compresses. A filter shaped for transmission
// by params.OptimizeTarget (a larger, sparser array with fewer hash
// functions) reaches the same rate with a smaller compressed digest; the
// more memory the receivers give it, the smaller the digest.
func Example_transmissionShape() {
	const n = 100_000
	shapes := []bloom.Config{{N: n, P: 0.01, Seed: 1}} // sized for memory
	for _, maxBitsPerKey := range []float64{32, 0} {   // 0: no memory cap
		q := params.TargetQuery{N: n, P: 0.01}
		q.MaxBitsPerElement = maxBitsPerKey // memory each receiver spends
		q.MaxK = 7                          // no more probes than the memory-sized filter
		q.Overhead = 0.005                  // the arithmetic coder's excess over the entropy
		res, err := params.OptimizeTarget(q)
		if err != nil {
			fmt.Println(err)
			return
		}
		shapes = append(shapes, bloom.Config{M: res.Best.M, K: res.Best.K, Seed: 1})
	}

	for _, c := range shapes {
		f, err := bloom.New(c)
		if err != nil {
			fmt.Println(err)
			return
		}
		for i := range n {
			f.AddString(fmt.Sprint("http://example.com/", i))
		}
		full, err := digest.Encode(&digest.Digest{Sequence: 1, Bloom: f}, digest.Auto)
		if err != nil {
			fmt.Println(err)
			return
		}
		fp := 0
		for i := n; i < 2*n; i++ { // keys never added
			if f.ContainsString(fmt.Sprint("http://example.com/", i)) {
				fp++
			}
		}
		fmt.Printf("m/n %5.1f k %d: raw %7d B, digest %6d B, false positives %.2f%%\n",
			float64(f.M())/n, f.K(), f.EncodedSize(), len(full), 100*float64(fp)/n)
	}
	// Output:
	// m/n   9.6 k 7: raw  119976 B, digest 119873 B, false positives 0.98%
	// m/n  19.0 k 2: raw  237352 B, digest 111329 B, false positives 1.05%
	// m/n  99.5 k 1: raw 1243808 B, digest 100542 B, false positives 1.05%
}
