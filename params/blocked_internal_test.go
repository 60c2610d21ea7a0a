package params

import (
	"fmt"
	"math"
	"testing"
)

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }

// Loader's form must agree with the naive log-pmf where the latter is still
// accurate (small λ), and the weights must sum to 1 for any λ.
func TestPoissonLogPMF(t *testing.T) {
	for _, lambda := range []float64{0.01, 0.7, 3, 14.5, 15.5, 40} {
		for j := 0.0; j <= 3*lambda+20; j++ {
			lg, _ := math.Lgamma(j + 1)
			naive := j*math.Log(lambda) - lambda - lg
			if d := math.Abs(poissonLogPMF(j, lambda) - naive); d > 1e-12 {
				t.Errorf("λ=%g j=%g: log pmf %g, naive %g", lambda, j, poissonLogPMF(j, lambda), naive)
			}
		}
	}
	for _, lambda := range []float64{0.5, 10, 1000, 1e5, 1e7} {
		sd := math.Sqrt(lambda)
		sum := 0.0
		for j := math.Max(0, math.Floor(lambda-40*sd)); j <= lambda+40*sd+40; j++ {
			sum += poissonPMF(j, lambda)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("λ=%g: pmf sums to 1%+g", lambda, sum-1)
		}
	}
}

func TestStirlerrSeriesMeetsDirect(t *testing.T) {
	lg, _ := math.Lgamma(16 + 1)
	direct := lg - 16.5*math.Log(16) + 16 - 0.5*math.Log(2*math.Pi)
	if d := math.Abs(stirlerr(16) - direct); d > 1e-14 {
		t.Errorf("stirlerr(16): series %g, direct %g", stirlerr(16), direct)
	}
}

// bruteMixture sums every term from j = 0 far into the upper tail, each
// computed on its own in log space: slow, but with no recurrences, no
// stopping rule and no stride.
func bruteMixture(lambda float64, b uint64, k int) float64 {
	c := float64(k) * math.Log1p(-1/float64(b))
	sum := 0.0
	for j := 1.0; j <= lambda+60*math.Sqrt(lambda)+100; j++ {
		sum += math.Exp(poissonLogPMF(j, lambda) + float64(k)*log1mExp(j*c))
	}
	return sum
}

func TestMixtureAgainstBruteForce(t *testing.T) {
	for _, b := range []uint64{512, 4096, 32768} {
		for _, k := range []int{1, 3, 8, 20, 64} {
			for _, lambda := range []float64{0.01, 0.9, 7, 51.2, 300, 1023, 1025, 5000, 30000} {
				m := uint64(1 << 40)
				n := uint64(math.Round(lambda * float64(m) / float64(b)))
				lambda = float64(n) * float64(b) / float64(m)
				got, want := BlockedFalsePositive(m, n, b, k), bruteMixture(lambda, b, k)
				if want == 0 && got == 0 {
					continue
				}
				if d := relDiff(got, want); d > 2e-13 {
					t.Errorf("B=%d k=%d λ=%g: %g, brute force %g, relative gap %.2g", b, k, lambda, got, want, d)
				}
			}
		}
	}
}

// The two summation methods must agree where either could be used.
func TestMixtureStrideMatchesDirect(t *testing.T) {
	for _, b := range []float64{512, 4096, 32768, 1 << 20} {
		for _, k := range []int{1, 4, 7, 16, 40} {
			c := float64(k) * math.Log1p(-1/b)
			for _, lambda := range []float64{100, 1000, 1024.5, 5000, 3e4, 2e5} {
				d, s := mixtureDirect(lambda, c, k), mixtureStride(lambda, c, k)
				if d == 0 && s == 0 {
					continue
				}
				if r := relDiff(s, d); r > 1e-12 {
					t.Errorf("B=%g k=%d λ=%g: stride %g direct %g (gap %.2g)", b, k, lambda, s, d, r)
				}
			}
		}
	}
}

func BenchmarkBlockedFalsePositive(b *testing.B) {
	for _, tc := range []struct {
		block uint64
		bpk   float64
		k     int
	}{{512, 10, 7}, {512, 20, 13}, {32768, 10, 7}, {32768, 3.3, 2}, {1 << 20, 10, 7}} {
		m := uint64(1 << 40)
		n := uint64(float64(m) / tc.bpk)
		lambda := float64(n) * float64(tc.block) / float64(m)
		b.Run(fmt.Sprintf("B=%d/λ=%.0f", tc.block, lambda), func(b *testing.B) {
			for b.Loop() {
				BlockedFalsePositive(m, n, tc.block, tc.k)
			}
		})
	}
}

// Size's walk over k relies on the block rate falling, then rising, in k.
func TestBlockedRateQuasiConvexInK(t *testing.T) {
	for _, b := range []uint64{64, 512, 4096, 32768} {
		for _, bpk := range []float64{0.5, 1, 2, 3, 5, 8, 12, 16, 24, 32, 48, 64, 100, 200} {
			m := uint64(1 << 36)
			n := uint64(float64(m) / bpk)
			rising := false
			prev := math.Inf(1)
			for k := 1; k <= MaxK; k++ {
				f := BlockedFalsePositive(m, n, b, k)
				if f > prev {
					rising = true
				} else if rising && f < prev {
					t.Errorf("B=%d m/n=%g: rate falls again at k=%d (%g after %g)", b, bpk, k, f, prev)
				}
				prev = f
			}
		}
	}
}
