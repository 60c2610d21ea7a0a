package params

import "math"

// BlockedFalsePositive returns the rate of a filter of m bits cut into
// blocks of b bits, each key probing k bits of one random block (the
// Blocked and Paged layouts). Following Putze, Sanders and Singler (2007),
// the number j of keys in the queried block is Poisson with mean
// λ = n·b/m, and a block holding j keys is a classic filter of b bits:
//
//	f = Σ_j Pois(j; λ) · (1 − (1 − 1/b)^(k·j))^k.
//
// The sum runs outwards from the mode and stops when the omitted terms are
// provably below 1e−16 of the total on each side. It returns 0 for n = 0
// and NaN when b = 0, m = 0 or k < 1.
//
// Like the classic formula, the inner term raises a block's expected fill
// to the k-th power, while the true rate is the expected k-th power of its
// fill (Bose et al., "On the false-positive rate of Bloom filters", IPL
// 108(4), 2008). Over a whole classic filter the difference vanishes; over
// a small block it does not: the model is low by about k(k−1)/2 times the
// squared coefficient of variation of the block's set bits, O(k²/b). The
// tests measure it by exact computation and simulation: about 1% for
// 512-bit blocks at 8 bits per key (k = 6), 3% at 16 bits per key (k = 11)
// or for 64-bit blocks, 0.1% for 4096-bit pages.
func BlockedFalsePositive(m, n, b uint64, k int) float64 {
	if n == 0 {
		return 0
	}
	if m == 0 || b == 0 || k < 1 {
		return math.NaN()
	}
	lambda := float64(n) * float64(b) / float64(m)
	// c = ln q, where q = (1 − 1/b)^k is the chance that one key in the
	// block leaves a given bit 0.
	c := float64(k) * math.Log1p(-1/float64(b))
	if lambda > strideMinLambda {
		return mixtureStride(lambda, c, k)
	}
	return mixtureDirect(lambda, c, k)
}

// mixtureTol bounds each omitted tail relative to the running sum; the two
// tails together stay below the 1e−15 the package promises.
const mixtureTol = 1e-16

// strideMinLambda is about where summing every integer j (some 16σ = 16√λ
// terms) gets slower than the stride rule of mixtureStride (some 50 terms,
// each dearer).
const strideMinLambda = 1024

// resyncEvery is how many recurrence steps mixtureDirect takes before it
// recomputes a term from scratch, capping accumulated rounding.
const resyncEvery = 32

// tailDone reports whether the terms after t can be dropped. The terms are
// log-concave in j (the Poisson weights are, and so is (1 − q^j)^k, since
// k·ln(1 − q^j) is concave), so the ratio of successive terms only shrinks moving away from the peak:
// once ρ = t/prev < 1, the rest is at most t·ρ/(1 − ρ) = t²/(prev − t).
func tailDone(t, prev, total float64) bool {
	if t != t { // NaN: give up rather than loop
		return true
	}
	return t < prev && t*t <= mixtureTol*total*(prev-t)
}

// mixWalk steps through the mixture's terms one j at a time with a few
// multiplications instead of several transcendental functions per term.
type mixWalk struct {
	lambda, c, q, qInv, d float64
	k                     int
	j                     float64 // current j (integral)
	p                     float64 // Pois(j; λ)
	y                     float64 // q^j: a given bit is still 0
	x                     float64 // 1 − q^j, kept separately to avoid cancellation
}

// set recomputes the state at j from scratch.
func (w *mixWalk) set(j float64) {
	w.j = j
	w.p = poissonPMF(j, w.lambda)
	w.y = math.Exp(j * w.c)
	w.x = -math.Expm1(j * w.c)
}

// term returns Pois(j; λ)·(1 − q^j)^k.
func (w *mixWalk) term() float64 { return w.p * powi(w.x, w.k) }

// up moves to j+1: x grows by q^j·(1 − q), a sum of positives.
func (w *mixWalk) up() {
	w.j++
	w.p *= w.lambda / w.j
	w.x += w.y * w.d
	w.y *= w.q
}

// down moves to j−1. The subtraction loses at most a factor x_mode/x_j of
// accuracy, which the periodic resync keeps small.
func (w *mixWalk) down() {
	w.p *= w.j / w.lambda
	w.j--
	w.y *= w.qInv
	w.x -= w.y * w.d
}

// mixtureDirect sums every integer j, outwards from the Poisson mode.
func mixtureDirect(lambda, c float64, k int) float64 {
	w := mixWalk{lambda: lambda, c: c, k: k, q: math.Exp(c), qInv: math.Exp(-c), d: -math.Expm1(c)}
	mode := math.Floor(lambda)
	w.set(mode)
	peak := w.term()
	sum := peak
	for i, prev := 1, peak; ; i++ {
		w.up()
		if i%resyncEvery == 0 {
			w.set(w.j)
		}
		t := w.term()
		sum += t
		if tailDone(t, prev, sum) || w.p == 0 {
			break
		}
		prev = t
	}
	w.set(mode)
	for i, prev := 1, peak; w.j > 0; i++ {
		w.down()
		if i%resyncEvery == 0 {
			w.set(w.j)
		}
		t := w.term()
		sum += t
		// Below the mode both factors fall, so a zero term ends the tail.
		if tailDone(t, prev, sum) || t == 0 {
			break
		}
		prev = t
	}
	return sum
}

// mixtureStride evaluates the mixture for large λ as h·Σ_i F(λ + i·h),
// where F is the summand extended to real j through the Gamma function and
// h = √λ/3. F is analytic and close to a Gaussian of width σ = √λ, and the
// trapezoidal rule converges geometrically for such functions (Trefethen
// and Weideman, "The exponentially convergent trapezoidal rule", SIAM
// Review 56(3), 2014): by the Poisson summation formula, both the integer
// sum and the stride sum equal ∫F up to about exp(−2π²σ²/h²) = exp(−18π²)
// ≈ 1e−77 relative. (The Gamma extension of the Poisson weights integrates
// to 1 within about e^(−λ), nothing here.) That keeps the cost near 50
// terms for any λ, where summing every j would take about 16√λ.
func mixtureStride(lambda, c float64, k int) float64 {
	h := math.Sqrt(lambda) / 3
	f := func(j float64) float64 {
		return math.Exp(poissonLogPMF(j, lambda) + float64(k)*log1mExp(j*c))
	}
	peak := f(lambda)
	sum := peak
	for _, step := range [2]float64{h, -h} {
		prev := peak
		for j := lambda + step; j > 0; j += step {
			t := f(j)
			sum += t
			if tailDone(t, prev, sum) || t == 0 {
				break
			}
			prev = t
		}
	}
	return h * sum
}

// powi returns x^k by repeated squaring: about 2·log2(k) multiplications,
// accurate to a few ulps, much cheaper than math.Pow in the inner loop.
func powi(x float64, k int) float64 {
	r := 1.0
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// poissonPMF returns λ^j·e^(−λ)/Γ(j+1).
func poissonPMF(j, lambda float64) float64 {
	return math.Exp(poissonLogPMF(j, lambda))
}

// poissonLogPMF returns ln(λ^j·e^(−λ)/Γ(j+1)) for real j ≥ 0 in the
// saddle-point form of Loader ("Fast and accurate computation of binomial
// probabilities", 2000): −bd0(j, λ) − stirlerr(j) − ½·ln(2πj). The naive
// j·ln λ − λ − lgamma(j+1) subtracts numbers of size λ·ln λ and would lose
// about 1e−11 relative accuracy at λ = 10⁴.
func poissonLogPMF(j, lambda float64) float64 {
	if j == 0 {
		return -lambda
	}
	return -bd0(j, lambda) - stirlerr(j) - 0.5*math.Log(2*math.Pi*j)
}

// bd0 returns j·ln(j/λ) + λ − j ≥ 0, the deviance term. Near j = λ it uses
// the series (j−λ)·v + 2j·Σ_{i≥1} v^(2i+1)/(2i+1) with v = (j−λ)/(j+λ),
// which follows from ln(j/λ) = 2·artanh(v) and has no cancellation.
func bd0(j, lambda float64) float64 {
	if math.Abs(j-lambda) >= 0.1*(j+lambda) {
		return j*math.Log(j/lambda) + lambda - j
	}
	v := (j - lambda) / (j + lambda)
	s := (j - lambda) * v
	e := 2 * j * v
	v2 := v * v
	for i := 3.0; ; i += 2 {
		e *= v2
		next := s + e/i
		if next == s {
			return s
		}
		s = next
	}
}

// stirlerr returns ln Γ(j+1) − [(j+½)·ln j − j + ½·ln 2π], the error of
// Stirling's formula. Above 15 the asymptotic series is accurate to about
// 1e−16 after five terms; below, the direct difference is small enough
// that its cancellation costs under 1e−14 absolute.
func stirlerr(j float64) float64 {
	if j > 15 {
		r := 1 / (j * j)
		return (1.0/12 - r*(1.0/360-r*(1.0/1260-r*(1.0/1680-r*(1.0/1188))))) / j
	}
	lg, _ := math.Lgamma(j + 1)
	return lg - (j+0.5)*math.Log(j) + j - 0.5*math.Log(2*math.Pi)
}
