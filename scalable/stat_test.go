package scalable

import (
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// TestCompoundRate is the paper's claim measured: a filter that starts
// at capacity 1000 with P = 1% and takes 10^6 keys (1000× growth) has no
// false negatives, and its false-positive rate on 10^6 keys never added
// is at most P plus a binomial margin: four standard deviations of the
// measured rate of 10^6 trials at rate P, 4·sqrt(P(1−P)/10^6) = 0.0004,
// which a rate of P exceeds by chance with probability about 3·10^-5.
// Seeds and keys are fixed, so the figures are the same on every run.
// With -short the keys are 10^5 (100× growth); CI runs without it.
func TestCompoundRate(t *testing.T) {
	n := uint64(1_000_000)
	if testing.Short() {
		n = 100_000
	}
	const p = 0.01
	for _, c := range []Config{
		{Capacity: 1000, P: p, Seed: 0x5ca1ab1e},
		{Capacity: 1000, P: p, Expansion: 4, Tightening: 0.9, Seed: 0x5ca1ab1e},
	} {
		f := MustNew(c)
		hs := make([]hashing.Hash128, 4096)
		out := make([]bool, len(hs))
		var buf [9]byte
		hashes := func(tag byte, from uint64) []hashing.Hash128 {
			m := min(uint64(len(hs)), n-from)
			for i := range m {
				hs[i] = f.Hash(keyOf(&buf, tag, from+i))
			}
			return hs[:m]
		}
		for from := uint64(0); from < n; from += uint64(len(hs)) {
			if err := f.AddBatch(hashes(0, from)); err != nil {
				t.Fatal(err)
			}
		}
		for from := uint64(0); from < n; from += uint64(len(hs)) {
			batch := hashes(0, from)
			f.ContainsBatch(batch, out)
			for i := range batch {
				if !out[i] {
					t.Fatalf("s=%d r=%g: false negative, key %d", f.cfg.Expansion, f.cfg.Tightening, from+uint64(i))
				}
			}
		}
		fp := 0
		for from := uint64(0); from < n; from += uint64(len(hs)) {
			batch := hashes(1, from)
			f.ContainsBatch(batch, out)
			for i := range batch {
				if out[i] {
					fp++
				}
			}
		}
		rate := float64(fp) / float64(n)
		margin := 4 * math.Sqrt(p*(1-p)/float64(n))
		pre := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: n, P: p})
		t.Logf("s=%d r=%g: %d keys in %d layers (first %d keys): measured rate %.5f (%d of %d absent keys), predicted %.5f, from the bits %.5f; %.2f bytes per key, a blocked filter sized for %d keys at P = %g from the start %.2f (%.2f×)",
			f.cfg.Expansion, f.cfg.Tightening, f.Count(), f.Layers(), c.Capacity, rate, fp, n, f.PredictedRate(), f.FalsePositiveRate(),
			float64(f.SizeBytes())/float64(n), n, p, float64(pre.SizeBytes())/float64(n), float64(f.SizeBytes())/float64(pre.SizeBytes()))
		if rate > p+margin {
			t.Errorf("s=%d r=%g: measured rate %.5f exceeds P + margin = %.5f", f.cfg.Expansion, f.cfg.Tightening, rate, p+margin)
		}
	}
}
