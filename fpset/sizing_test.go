package fpset_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/fpset"
)

func TestBitsForC(t *testing.T) {
	cases := []struct {
		n    uint64
		c    float64
		want int
	}{
		{1_000_000, 2, 40}, {1024, 2.5, 25}, {1024, 2, 20}, {1000, 3, 30},
		{1, 2, fpset.MinBits}, {1 << 40, 3, fpset.MaxBits},
	}
	for _, c := range cases {
		if got, err := fpset.BitsForC(c.n, c.c); err != nil || got != c.want {
			t.Errorf("BitsForC(%d, %g) = %d, %v; want %d", c.n, c.c, got, err, c.want)
		}
	}
	for _, c := range []struct {
		n uint64
		c float64
	}{{0, 2}, {10, 0}, {10, -1}, {10, math.NaN()}, {10, math.Inf(1)}} {
		if _, err := fpset.BitsForC(c.n, c.c); !errors.Is(err, fpset.ErrConfig) {
			t.Errorf("BitsForC(%d, %g): %v", c.n, c.c, err)
		}
	}
}

// TestFalsePositive checks the rate against the union bound
// n/(2^b − 1) and the seed's 1/n^(c−1) for b = c·log2 n.
func TestFalsePositive(t *testing.T) {
	for _, n := range []uint64{1, 10, 1000, 1 << 20, 1e9} {
		for b := fpset.MinBits; b <= fpset.MaxBits; b++ {
			f := fpset.FalsePositive(n, b)
			if bound := float64(n) / (math.Ldexp(1, b) - 1); f > bound*(1+1e-12) || f < 0 || f > 1 {
				t.Fatalf("n=%d b=%d: %g above n/U = %g", n, b, f, bound)
			}
			if b > 1 && f > fpset.FalsePositive(n, b-1) {
				t.Fatalf("n=%d b=%d: rate rises with b", n, b)
			}
		}
		for _, c := range []float64{2, 3} {
			b, _ := fpset.BitsForC(n, c)
			if f := fpset.FalsePositive(n, b); n > 1 && b < 64 && f > math.Pow(float64(n), 1-c)*(1+1e-9) {
				t.Errorf("n=%d c=%g: %g above 1/n^(c−1)", n, c, f)
			}
		}
	}
	if f := fpset.FalsePositive(0, 8); f != 0 {
		t.Errorf("n = 0: %g", f)
	}
	if f := fpset.FalsePositive(1000, 4); f != 1 {
		t.Errorf("n above 2^b: %g", f)
	}
	if f := fpset.FalsePositive(10, 65); !math.IsNaN(f) {
		t.Errorf("b = 65: %g", f)
	}
	// 1 − (1 − 1/U)^n, against the direct form where it is accurate.
	if f, want := fpset.FalsePositive(1000, 12), 1-math.Pow(1-1/4095.0, 1000); math.Abs(f-want) > 1e-12 {
		t.Errorf("n=1000 b=12: %g, want %g", f, want)
	}
}

func TestBitsFor(t *testing.T) {
	if b, err := fpset.BitsFor(1_000_000, 0.01); err != nil || b != 27 {
		t.Errorf("n=1e6 p=0.01: %d, %v; want 27", b, err)
	}
	for _, p := range []float64{0.3, 1e-3, 1e-9} {
		b, err := fpset.BitsFor(5000, p)
		if err != nil || fpset.FalsePositive(5000, b) > p || fpset.FalsePositive(5000, b-1) <= p {
			t.Errorf("p=%g: %d, %v is not the narrowest width", p, b, err)
		}
	}
	for _, c := range []struct {
		n uint64
		p float64
	}{{0, 0.1}, {10, 0}, {10, 1}, {1_000_000, 1e-20}} {
		if _, err := fpset.BitsFor(c.n, c.p); !errors.Is(err, fpset.ErrConfig) {
			t.Errorf("n=%d p=%g: %v", c.n, c.p, err)
		}
	}
}

// TestRiceBitsPerKey checks the closed form against the series
// Σ_g P(g)·(k + 1 + g>>k) for geometric gaps, the best k against the
// Gallager–van Voorhis optimum, and the length against the entropy of the
// fingerprint set: Rice coding of geometric gaps is within 0.03 to 0.13
// bits of it (depending on where log2(ln 2·2^b/n) falls between integers)
// when 1 ≪ n ≪ 2^b.
func TestRiceBitsPerKey(t *testing.T) {
	n, b := uint64(1000), 20
	q := float64(n) / (math.Ldexp(1, b) - 1)
	for k := 0; k < 14; k++ {
		sum := 0.0
		for g := 0; g < 200_000; g++ {
			sum += math.Pow(1-q, float64(g)) * q * float64(k+1+g>>k)
		}
		if got := fpset.RiceBitsPerKey(n, b, k); math.Abs(got-sum) > 1e-6*sum {
			t.Errorf("k=%d: %g, series %g", k, got, sum)
		}
	}
	for _, n := range []uint64{1000, 1 << 20} {
		for _, b := range []int{24, 32, 48, 64} {
			k, l := fpset.BestRiceParameter(n, b)
			gv := math.Log2(math.Ln2 * (math.Ldexp(1, b) - 1) / float64(n))
			h := fpset.Entropy(n, b)
			if math.Abs(float64(k)-gv) > 1 || l < h || l > h+0.14 {
				t.Errorf("n=%d b=%d: k=%d (GvV %.2f), %.4f bits/key, entropy %.4f", n, b, k, gv, l, h)
			}
		}
	}
	if l := fpset.RiceBitsPerKey(0, 20, 3); !math.IsNaN(l) {
		t.Errorf("n = 0: %g", l)
	}
	if l := fpset.RiceBitsPerKey(10, 20, 20); !math.IsNaN(l) {
		t.Errorf("k = b: %g", l)
	}
}

// TestEntropy checks both evaluation paths against the sum
// of logarithms, and that they meet at the switch.
func TestEntropy(t *testing.T) {
	exact := func(n uint64, b int) float64 {
		u, s := math.Ldexp(1, b)-1, 0.0
		for i := uint64(0); i < n; i++ {
			s += math.Log2((u - float64(i)) / float64(i+1))
		}
		return s / float64(n)
	}
	for _, c := range []struct {
		n uint64
		b int
	}{{1, 8}, {100, 8}, {255, 8}, {1000, 16}, {1000, 20}, {65, 16}, {66, 16}, {5000, 40}} {
		if got, want := fpset.Entropy(c.n, c.b), exact(c.n, c.b); math.Abs(got-want) > 1e-6*max(1, want) {
			t.Errorf("n=%d b=%d: %.9f, want %.9f", c.n, c.b, got, want)
		}
	}
	if h := fpset.Entropy(256, 8); !math.IsNaN(h) {
		t.Errorf("n above U: %g", h)
	}
}

func TestOfBits(t *testing.T) {
	s, err := fpset.OfBits(1_000_000, 30)
	if err != nil {
		t.Fatal(err)
	}
	f := s.FalsePositive
	if s.Bloom.FalsePositive(s.N) > f || s.BloomBitsPerKey < 1.44*math.Log2(1/f) || s.BloomBitsPerKey > 1.45*math.Log2(1/f)+0.1 {
		t.Errorf("Bloom filter %v at rate %g: %.3f bits/key", s.Bloom, f, s.BloomBitsPerKey)
	}
	if d := s.CompressedBitsPerKey - s.MinimumBitsPerKey; d < 1.4 || d > 1.6 {
		t.Errorf("Rice code %.3f bits/key, %.3f above log2(1/f)", s.CompressedBitsPerKey, d)
	}
	if s.TableBitsPerKey(0.8, 2) != 40 || s.SortedBitsPerKey != 30 {
		t.Errorf("table %g, sorted %g", s.TableBitsPerKey(0.8, 2), s.SortedBitsPerKey)
	}
	for _, c := range []struct {
		n uint64
		b int
	}{{0, 8}, {10, 1}, {10, 65}} {
		if _, err := fpset.OfBits(c.n, c.b); !errors.Is(err, fpset.ErrConfig) {
			t.Errorf("n=%d b=%d: %v", c.n, c.b, err)
		}
	}
}

func TestCrossover(t *testing.T) {
	for _, c := range []struct {
		n                uint64
		memory, transmit int
	}{{1000, 33, 13}, {1_000_000, 0, 23}} {
		got, err := fpset.CrossoverFor(c.n)
		if err != nil || got.MemoryBits != c.memory || got.TransmitBits != c.transmit {
			t.Errorf("n=%d: %+v, %v; want memory from %d bits, transmission from %d", c.n, got, err, c.memory, c.transmit)
		}
		if got.TransmitRate < 0.05 || got.TransmitRate > 0.15 {
			t.Errorf("n=%d: Rice code wins below p = %g, expected about 0.1", c.n, got.TransmitRate)
		}
	}
	if _, err := fpset.CrossoverFor(0); !errors.Is(err, fpset.ErrConfig) {
		t.Errorf("n = 0: %v", err)
	}
}

// A million keys at a 1% false-positive rate: fingerprints of 27 bits,
// sent Rice-coded in less than a Bloom filter takes.
func ExampleSize() {
	s, err := fpset.Size(1_000_000, 0.01)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d-bit fingerprints, rate %.4f\n", s.Bits, s.FalsePositive)
	fmt.Printf("sorted %.0f, Rice-coded (k = %d) %.2f, Bloom %.2f, minimum %.2f bits/key\n",
		s.SortedBitsPerKey, s.RiceK, s.CompressedBitsPerKey, s.BloomBitsPerKey, s.MinimumBitsPerKey)
	// Output:
	// 27-bit fingerprints, rate 0.0074
	// sorted 27, Rice-coded (k = 7) 8.62, Bloom 10.21, minimum 7.07 bits/key
}

// TestConfigSizingError: a Config whose rate no fingerprint reaches gets
// the sizing function's detail once, after ErrConfig's words.
func TestConfigSizingError(t *testing.T) {
	_, err := fpset.New(fpset.Config{N: 3, P: 1e-30})
	if !errors.Is(err, fpset.ErrConfig) || strings.Count(err.Error(), "fpset:") != 1 || !strings.Contains(err.Error(), "p = 1e-30 is below") {
		t.Fatalf("%v", err)
	}
}
