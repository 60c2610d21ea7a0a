package params

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSplitBlockFalsePositive checks the model against a simulation of the
// split block layout with random block choices and lane bits (10^5 keys,
// 2·10^5 queries per shape), and BloomFilter.md's sizing, which the block
// loads' spread makes optimistic: 1.46% at its 9.68 bits per key for 1%.
func TestSplitBlockFalsePositive(t *testing.T) {
	if SplitBlockFalsePositive(10, 0) != 0 || !math.IsNaN(SplitBlockFalsePositive(0, 5)) {
		t.Error("edge cases")
	}
	z := uint64(math.Ceil(100000 * 9.68 / 256))
	if f := SplitBlockFalsePositive(z, 100000); math.Abs(f-0.0146) > 0.0002 {
		t.Errorf("9.68 bits per key: %v, want about 1.46%%", f)
	}
	if f := SplitBlockFalsePositive(uint64(math.Ceil(100000*10.53/256)), 100000); math.Abs(f-0.01) > 0.0003 {
		t.Errorf("10.53 bits per key: %v, want about 1%%", f)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ z, n uint64 }{{3782, 100000}, {3907, 100000}, {1000, 100000}, {40000, 100000}} {
		blocks := make([][8]uint32, c.z)
		for i := uint64(0); i < c.n; i++ {
			b := &blocks[rng.Uint64N(c.z)]
			for l := range b {
				b[l] |= 1 << rng.UintN(32)
			}
		}
		const q = 200000
		hits := 0
		for i := 0; i < q; i++ {
			b := &blocks[rng.Uint64N(c.z)]
			ok := true
			for l := range b {
				ok = ok && b[l]&(1<<rng.UintN(32)) != 0
			}
			if ok {
				hits++
			}
		}
		got, want := float64(hits)/q, SplitBlockFalsePositive(c.z, c.n)
		se := math.Sqrt(want * (1 - want) / q)
		if math.Abs(got-want) > 4*se+1e-6 {
			t.Errorf("z=%d n=%d: simulated %.5f, model %.5f (se %.5f)", c.z, c.n, got, want, se)
		}
	}
}
