package params

import (
	"math"
	"strconv"
)

// maxSizeBits caps the filters Size considers (2^62 bits = 512 PiB), far
// beyond any real filter but safe from uint64 overflow in the search.
const maxSizeBits = 1 << 62

// Size returns the smallest shape of the layout whose FalsePositive(n) is at
// most p, choosing the integer k in [1, MaxK] jointly with M; for Blocked,
// the shape with the fewest probes among those at most [BlockedProbeSlack]
// larger than the smallest. M is rounded
// to the layout's granularity: a multiple of 64 bits for Classic; K slices
// of a multiple of 64 bits each for Partitioned; a multiple of BlockedBits
// for Blocked; a multiple of blockBits for Paged, where blockBits = 0 means
// DefaultPageBits and must otherwise be a positive multiple of 64. For
// Blocked, blockBits must be 0 or BlockedBits; for Classic and Partitioned
// it must be 0. Among shapes with equal M the smaller k wins (fewer probes
// per operation). n must be at least 1 and p in (0, 1); errors wrap
// [ErrInvalid], for example "params: p = 1.5 outside (0, 1): invalid
// parameters".
//
// For each k the rate falls monotonically as M grows, so the smallest M is
// found by binary search. Classic and Partitioned rates have closed forms,
// so every k is tried; that is also necessary for Partitioned, whose grid
// of M depends on k. A Blocked or Paged rate costs a Poisson sum, so k is
// walked outwards from log2(1/p), the classic optimum (Fan et al. 2000),
// until three k in a row on each side need more bits. This is exact when
// the rate is quasi-convex (falls, then rises) in k at every M, for then so
// is the smallest M per k; the classic rate is, the Poisson mixture is in
// every case the tests try, and the tests check the walk against an
// exhaustive search.
func Size(layout Layout, n uint64, p float64, blockBits uint64) (Shape, error) {
	b, err := sizeArgs(layout, n, p, blockBits)
	if err != nil {
		return Shape{}, err
	}
	var best Shape
	var sized [MaxK + 1]Shape      // the smallest shape per k tried; M = 0 if none fits
	consider := func(k int) bool { // reports whether k is the best so far
		s, found := sizeForK(layout, n, p, b, k)
		if found {
			sized[k] = s
		}
		if found && (best.M == 0 || s.M < best.M || s.M == best.M && s.K < best.K) {
			best = s
			return true
		}
		return false
	}
	if layout == Classic || layout == Partitioned {
		for k := 1; k <= MaxK; k++ {
			consider(k)
		}
	} else {
		walkK(consider, clampK(math.Round(-math.Log2(p))))
	}
	if best.M == 0 {
		return Shape{}, invalidf("no %v filter of at most 2^62 bits reaches p = %g for n = %d: want p of at least %s",
			layout, p, n, rateUp(lowestRate(layout, n, b, 0)))
	}
	if layout == Blocked {
		best = fewerProbes(best, &sized, n, p)
	}
	return best, nil
}

// BlockedProbeSlack is how much more memory than the smallest Blocked shape
// (as a fraction of it) Size accepts in exchange for fewer probes. Near its
// optimum the blocked layout's rate hardly depends on k: at p = 10⁻³ k = 9
// needs 15.55 bits a key and k = 8 15.66 (0.7% more). Its query reads one
// cache line whatever k is, so the probes are the rest of the work of every
// operation, and a probe that saves under 1% of the memory costs more than
// it is worth: by string key at 10⁵ keys (in cache), with the same
// members, k = 8 answered 13–20% faster than k = 9 (bloom's AVX-512 query
// computes eight probes per vector; a ninth costs a second) and added 4%
// faster. Classic and partitioned shapes stay at the smallest M, where the
// seeds' tables and other libraries put them.
const BlockedProbeSlack = 0.01

// fewerProbes returns the Blocked shape with the fewest probes whose M is
// at most BlockedProbeSlack above best.M, best being the smallest. The
// smallest M for k grows as k falls below best.K (the rate is
// quasi-convex in k, as Size assumes), so the walk down stops at the first
// k that needs more. sized holds the shapes Size's walk already found; a
// k it did not try is sized here.
func fewerProbes(best Shape, sized *[MaxK + 1]Shape, n uint64, p float64) Shape {
	bound := best.M + uint64(float64(best.M)*BlockedProbeSlack)
	choice := best
	for k := best.K - 1; k >= 1; k-- {
		s, found := sized[k], sized[k].M != 0
		if !found {
			s, found = sizeForK(Blocked, n, p, best.BlockBits, k)
		}
		if !found || s.M > bound {
			break
		}
		choice = s
	}
	return choice
}

// walkK calls consider for k = start, start−1, … and start+1, start+2, …,
// stopping in each direction after three calls in a row that report no
// improvement, or at the ends of [1, MaxK].
func walkK(consider func(k int) bool, start int) {
	for _, dir := range [2]int{-1, 1} {
		k := start
		if dir > 0 {
			k++
		}
		for worse := 0; k >= 1 && k <= MaxK && worse < 3; k += dir {
			if consider(k) {
				worse = 0
			} else {
				worse++
			}
		}
	}
}

// sizeArgs checks Size's arguments and returns the block size to use.
func sizeArgs(layout Layout, n uint64, p float64, blockBits uint64) (uint64, error) {
	if !layout.Valid() {
		return 0, invalidf("undefined %v", layout)
	}
	if n < 1 {
		return 0, invalidf("n = 0 keys")
	}
	if !(p > 0 && p < 1) {
		return 0, invalidf("p = %g outside (0, 1)", p)
	}
	switch layout {
	case Blocked:
		if blockBits != 0 && blockBits != BlockedBits {
			return 0, invalidf("blocked layout with blockBits = %d, want 0 or %d", blockBits, BlockedBits)
		}
		return BlockedBits, nil
	case Paged:
		if blockBits == 0 {
			return DefaultPageBits, nil
		}
		if blockBits%64 != 0 || blockBits > maxSizeBits {
			return 0, invalidf("paged blockBits = %d not a positive multiple of 64 below 2^62", blockBits)
		}
		return blockBits, nil
	default:
		if blockBits != 0 {
			return 0, invalidf("%v layout with blockBits = %d, want 0", layout, blockBits)
		}
		return 0, nil
	}
}

// sizeForK returns the smallest shape with k probes that reaches p, or
// false if none fits in maxSizeBits.
func sizeForK(layout Layout, n uint64, p float64, b uint64, k int) (Shape, bool) {
	unit := granule(layout, b, k)
	shape := func(units uint64) Shape { return Shape{Layout: layout, M: units * unit, K: k, BlockBits: b} }
	ok := func(units uint64) bool { return shape(units).FalsePositive(n) <= p }
	limit := maxSizeBits / unit
	// Clamp as a float: converting a float above 2^64 to uint64 is undefined.
	guess := uint64(math.Max(1, math.Min(float64(limit), math.Ceil(ClassicBits(n, p)/float64(unit)))))
	units, found := minUnits(ok, guess, limit)
	return shape(units), found
}

// lowestRate returns the lowest rate n keys reach in a filter of the
// layout of at most maxSizeBits, with k probes, or with the best k in
// [1, MaxK] when k is 0: the bound past which Size finds nothing. The rate
// falls as M grows, so each k's lowest is at the largest M.
func lowestRate(layout Layout, n, b uint64, k int) float64 {
	lo, hi := 1, MaxK
	if k != 0 {
		lo, hi = k, k
	}
	lowest := 1.0
	for k := lo; k <= hi; k++ {
		unit := granule(layout, b, k)
		s := Shape{Layout: layout, M: maxSizeBits / unit * unit, K: k, BlockBits: b}
		lowest = math.Min(lowest, s.FalsePositive(n))
	}
	return lowest
}

// rateUp formats p with three significant digits, rounded up, so that a
// user who gives the bound an error names gets an answer.
func rateUp(p float64) string {
	s := strconv.FormatFloat(p, 'g', 3, 64)
	if r, err := strconv.ParseFloat(s, 64); err == nil && r < p {
		// Rounded down: half a step of the third digit is at most 0.5%
		// of p, so rounding p·1.005 to nearest lands at or above p.
		s = strconv.FormatFloat(p*1.005, 'g', 3, 64)
	}
	return s
}

// granule returns the step in which M grows for the layout.
func granule(layout Layout, b uint64, k int) uint64 {
	switch layout {
	case Partitioned:
		return 64 * uint64(k)
	case Blocked, Paged:
		return b
	default:
		return 64
	}
}

// minUnits returns the smallest u in [1, limit] with ok(u), given that ok is
// monotone (false then true). It brackets the answer by halving or
// doubling from guess, which is usually within a factor of two, then
// bisects: about log2(guess) calls.
func minUnits(ok func(uint64) bool, guess, limit uint64) (uint64, bool) {
	guess = min(guess, limit)
	lo, hi := uint64(0), guess // invariant: lo == 0 or !ok(lo); ok(hi)
	if ok(guess) {
		for hi > 1 && ok(hi/2) {
			hi /= 2
		}
		lo = hi / 2
	} else {
		for lo = guess; ; lo = hi {
			if lo >= limit {
				return 0, false
			}
			hi = min(lo*2, limit)
			if ok(hi) {
				break
			}
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// BestK returns the k in [1, MaxK] that minimises s.FalsePositive(n) for
// the shape's layout, M and block size, ignoring s.K. For Partitioned only
// divisors of M qualify, since the slices must be equal. Ties go to the
// smaller k. It returns 1 for n = 0 or when no k gives a valid shape.
func BestK(s Shape, n uint64) int {
	best, bestRate := 1, math.Inf(1)
	if n == 0 {
		return best
	}
	for k := 1; k <= MaxK; k++ {
		s.K = k
		if r := s.FalsePositive(n); r < bestRate {
			best, bestRate = k, r
		}
	}
	return best
}
