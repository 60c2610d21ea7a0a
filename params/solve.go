package params

import (
	"fmt"
	"math"
)

// Query is a sizing question for [Solve]: any two or more of N, P, M and K,
// zero meaning "unknown".
// The zero Query gives nothing, so Solve reports ErrInvalid.
type Query struct {
	// N is the number of distinct keys the filter holds.
	N uint64
	// P is the target false-positive rate, in (0, 1).
	P float64
	// M is the number of bits. Like bloom.Config, Solve rounds it up to
	// each layout's granularity: a multiple of K for Partitioned, of the
	// block size for Blocked and Paged; Classic takes it as it is.
	M uint64
	// K is the number of probes per key, 1..MaxK.
	K int
	// Layout restricts the answer to one layout; 0 means all four.
	Layout Layout
	// BlockBits is the page size of the Paged layout, a positive multiple
	// of 64; 0 means DefaultPageBits. The other layouts have a fixed block
	// size (or none) and ignore it.
	BlockBits uint64
}

// Solved is the answer of [Solve] for one layout.
// The zero value is no answer; Solve fills one per layout.
type Solved struct {
	// Shape is the filter's geometry: given, derived or both.
	Shape Shape
	// N is the given number of keys, or the number Solve derived.
	N uint64
	// FalsePositive is the predicted rate, Shape.FalsePositive(N).
	FalsePositive float64
	// BitsPerKey is Shape.M/N.
	BitsPerKey float64
	// Meets reports whether FalsePositive is at most the query's P; it is
	// true when the query gave no P.
	Meets bool
}

// Solution is the answer of [Solve].
// The zero value is no answer; Solve returns it only with an error.
type Solution struct {
	// Given names the quantities the query gave, in the order n, p, m, k.
	Given []string
	// Derived names the quantities Solve derived, in the order n, m, k.
	// The predicted rate is always computed and is not listed.
	Derived []string
	// Layouts holds one answer per layout, in Layout order.
	Layouts []Solved
}

// Solve completes a sizing question. Given any two or more of n, p, m and
// k, it derives the rest for each layout (or for q.Layout alone) and
// predicts the false-positive rate with [Shape.FalsePositive]:
//
//   - n, p: the smallest shape, m and k together ([Size]; for Blocked, the
//     fewest probes within [BlockedProbeSlack] of it);
//   - n, p, k: the smallest m for that k;
//   - n, m: the k with the lowest rate;
//   - m, p: the largest n that some k keeps at or below p, and that k;
//   - m, k, p: the largest n that stays at or below p;
//   - n, m, k: the rate alone;
//   - n, k: the m at which k is the classic optimum, m = k·n/ln 2
//     (Fan et al. 2000);
//   - m, k: likewise the n at which k is optimal, n = m·ln 2/k.
//
// When the query over-determines the shape (n, m and p, say), p is a check:
// [Solved.Meets] says whether the shape reaches it. k and p alone fix only
// the bits per key, not a size, and are an error, as is any single
// quantity. Where Solve chooses k for a given m it tries every k in
// [1, MaxK], rounding m up for each as bloom.Config would (so Partitioned is
// not limited to the divisors of m, unlike [BestK]); ties go to the smaller
// k. Errors wrap [ErrInvalid].
func Solve(q Query) (Solution, error) {
	given := q.given()
	if len(given) < 2 {
		return Solution{}, fmt.Errorf("params: give at least two of n, p, m and k: %w", ErrInvalid)
	}
	if err := q.validate(); err != nil {
		return Solution{}, err
	}
	layouts := []Layout{Classic, Partitioned, Blocked, Paged}
	if q.Layout != 0 {
		layouts = []Layout{q.Layout}
	}
	sol := Solution{Given: given}
	for _, l := range layouts {
		var b uint64 // Classic, Partitioned
		switch l {
		case Blocked:
			b = BlockedBits
		case Paged:
			b = q.BlockBits
			if b == 0 {
				b = DefaultPageBits
			}
		}
		s, derived, err := solveLayout(q, l, b)
		if err != nil {
			return Solution{}, err
		}
		sol.Layouts = append(sol.Layouts, s)
		sol.Derived = derived
	}
	return sol, nil
}

// given lists the quantities q gives.
func (q Query) given() []string {
	var g []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"n", q.N != 0}, {"p", q.P != 0}, {"m", q.M != 0}, {"k", q.K != 0}} {
		if x.set {
			g = append(g, x.name)
		}
	}
	return g
}

func (q Query) validate() error {
	switch {
	case q.P != 0 && !(q.P > 0 && q.P < 1):
		return fmt.Errorf("params: p = %g outside (0, 1): %w", q.P, ErrInvalid)
	case q.K < 0 || q.K > MaxK:
		return fmt.Errorf("params: k = %d outside [1, %d]: %w", q.K, MaxK, ErrInvalid)
	case q.M > maxSizeBits:
		return fmt.Errorf("params: m = %d bits exceeds 2^62: %w", q.M, ErrInvalid)
	case q.Layout != 0 && !q.Layout.Valid():
		return fmt.Errorf("params: undefined %v: %w", q.Layout, ErrInvalid)
	case q.BlockBits%64 != 0 || q.BlockBits > maxSizeBits:
		return fmt.Errorf("params: paged block of %d bits is not a positive multiple of 64 below 2^62: %w", q.BlockBits, ErrInvalid)
	case q.K != 0 && q.P != 0 && q.N == 0 && q.M == 0:
		return fmt.Errorf("params: k and p fix only the bits per key (%.3g for classic), not a size: give n or m as well: %w",
			classicBitsPerKey(q.P, q.K), ErrInvalid)
	}
	return nil
}

// classicBitsPerKey returns the m/n at which k probes reach rate p under
// the approximation (1 − e^(−k·n/m))^k: m/n = −k / ln(1 − p^(1/k)).
func classicBitsPerKey(p float64, k int) float64 {
	return -float64(k) / math.Log1p(-math.Pow(p, 1/float64(k)))
}

// solveLayout answers q for one layout whose block size is b (0 for
// Classic and Partitioned). q has been validated and gives at least two
// quantities, not k and p alone.
func solveLayout(q Query, l Layout, b uint64) (Solved, []string, error) {
	n := q.N
	var s Shape
	var derived []string
	switch {
	case q.M != 0 && q.K != 0:
		s = fitShape(l, q.M, q.K, b)
		switch {
		case n != 0:
		case q.P != 0:
			var err error
			if n, err = maxKeys(s.M, q.P, s.FalsePositive); err != nil {
				return Solved{}, nil, fmt.Errorf("params: %v: %w", s, err)
			}
			derived = []string{"n"}
		default:
			n = max(1, uint64(float64(s.M)*math.Ln2/float64(s.K)))
			derived = []string{"n"}
		}
	case q.M != 0:
		derived = []string{"k"}
		if n == 0 {
			var err error
			n, err = maxKeys(q.M, q.P, func(n uint64) float64 { return bestFit(l, q.M, b, n).FalsePositive(n) })
			if err != nil {
				return Solved{}, nil, fmt.Errorf("params: %v m=%d: %w", l, q.M, err)
			}
			derived = []string{"n", "k"}
		}
		s = bestFit(l, q.M, b, n)
	case q.K != 0:
		derived = []string{"m"}
		if q.P != 0 {
			var found bool
			if s, found = sizeForK(l, n, q.P, b, q.K); !found {
				return Solved{}, nil, fmt.Errorf("params: no %v filter of at most 2^62 bits with k = %d reaches p = %g for n = %d: want p of at least %s: %w",
					l, q.K, q.P, n, rateUp(lowestRate(l, n, b, q.K)), ErrInvalid)
			}
			break
		}
		m := math.Ceil(float64(q.K) * float64(n) / math.Ln2)
		if m > maxSizeBits/2 {
			return Solved{}, nil, fmt.Errorf("params: %d keys with k = %d need more than 2^61 bits: %w", n, q.K, ErrInvalid)
		}
		s = fitShape(l, uint64(m), q.K, b)
	default:
		var err error
		if s, err = Size(l, n, q.P, b); err != nil {
			return Solved{}, nil, err
		}
		derived = []string{"m", "k"}
	}
	fp := s.FalsePositive(n)
	return Solved{
		Shape:         s,
		N:             n,
		FalsePositive: fp,
		BitsPerKey:    s.BitsPerKey(n),
		Meets:         q.P == 0 || fp <= q.P,
	}, derived, nil
}

// fitShape returns the shape of layout l with k probes and block size b
// whose M is m rounded up the way bloom.Config rounds it.
func fitShape(l Layout, m uint64, k int, b uint64) Shape {
	unit := uint64(1)
	switch l {
	case Partitioned:
		unit = uint64(k)
	case Blocked, Paged:
		unit = b
	}
	if r := m % unit; r != 0 {
		m += unit - r
	}
	return Shape{Layout: l, M: m, K: k, BlockBits: b}
}

// bestFit returns the fitted shape of about m bits with the lowest rate
// for n keys, trying every k; ties go to the smaller k.
func bestFit(l Layout, m, b, n uint64) Shape {
	best, bestRate := fitShape(l, m, 1, b), math.Inf(1)
	for k := 1; k <= MaxK; k++ {
		s := fitShape(l, m, k, b)
		if r := s.FalsePositive(n); r < bestRate {
			best, bestRate = s, r
		}
	}
	return best
}

// maxKeys returns the largest n with rate(n) ≤ p, for a rate that grows
// with n, starting the search at the classic estimate for m bits. It fails
// if even one key exceeds p.
func maxKeys(m uint64, p float64, rate func(uint64) float64) (uint64, error) {
	guess := uint64(math.Max(1, float64(m)*math.Ln2*math.Ln2/-math.Log(p)))
	first, found := minUnits(func(n uint64) bool { return rate(n) > p }, guess, maxSizeBits)
	switch {
	case !found:
		return maxSizeBits, nil
	case first == 1:
		return 0, fmt.Errorf("even one key exceeds p = %g: %w", p, ErrInvalid)
	}
	return first - 1, nil
}
