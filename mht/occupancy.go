package mht

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/bloomcast/bloomcast/params"
)

// Multilevel hash tables and their summaries.
//
// A multilevel hash table (Broder and Karlin, "Multilevel adaptive
// hashing", SODA 1990) has d sub-tables T1..Td of m1 > m2 > … > md
// buckets holding one item each; an item goes to the first sub-table whose
// bucket for it (one independent hash per sub-table) is empty, and a
// crisis is an item for which all d buckets are full. Kirsch and
// Mitzenmacher ("Simple summaries for hashing with multiple choices",
// IEEE/ACM ToN 16(1), 2008) build a calculator of the table's occupancy
// and crisis probability and of the failure probabilities of small
// summaries that tell which sub-table holds an item; this file is that
// calculator.
//
// Occupancy. The items offered to T_i are those every earlier sub-table
// refused; given their number s, their buckets in T_i are independent and
// uniform, and an item is placed exactly when no earlier offered item hit
// its bucket, so T_i places as many items as the s items occupy distinct
// buckets. The heuristic of the paper takes expectations at each level:
// n_1 = n, T_i places m_i(1 − e^(−n_i/m_i)) and passes on the rest. The
// exact distribution of the number offered to each level follows from the
// occupancy distribution of s balls in m bins, P_{t+1}(k) = P_t(k)·k/m +
// P_t(k−1)·(m−k+1)/m, run ball by ball over the support of the offered
// count; probabilities below 1e−60 at the edges of the distribution are
// dropped (their total is added to the crisis probability, which makes it
// an upper bound), so the cost is about n·√n·16 operations and n = 10^6
// takes a second or two.
//
// Summaries. With t_j items of type j (held in T_j) and N_{j+1} = Σ_{i>j}
// t_i, the bounds below are Bloom-filter analysis (Lemma 1 of the paper)
// with [params.ClassicExact] rates; the random N_{j+1} is replaced by its upper
// quantile of probability 1 − 1e−12/n and the tail's mass is added, so each
// bound holds for the random occupancy, not only for its mean:
//
//   - single filter (SF), m cells, k hashes: an absent item is a false
//     positive when its k cells are all nonzero, rate params.ClassicExact(m, n, k);
//     an item of type j is mistyped when each of its cells was also hit by
//     an item of type > j, rate params.ClassicExact(m, N_{j+1}, k);
//   - multiple Bloom filters (MBF), B_i of m_i bits with k_i hashes holding
//     the items of type ≥ i: false positive params.ClassicExact(m_1, n, k_1); an
//     item of type j < d is mistyped when it passes B_{j+1}, rate
//     params.ClassicExact(m_{j+1}, N_{j+1}, k_{j+1});
//   - interpolation search, a b-bit hash per item: construction fails when
//     two items share a hash (the birthday bound n(n−1)/2^(b+1)); otherwise
//     types are exact and an absent item is a false positive with
//     probability 1 − (1 − 2^−b)^n;
//   - the fast hash table of Song, Dharmapurikar, Turner and Lockwood
//     ("Fast hash table lookup using extended Bloom filter", SIGCOMM
//     2005), laid over the same buckets for comparison: see
//     [Occupancy.SongBounds] (song_bounds.go).
//
// Sizes in bits: SF m·⌈log2(d+1)⌉ (counting: m·d·c, a c-bit counter per
// type per cell); MBF Σ m_i (counting: c·Σ m_i); interpolation search
// n·(b + ⌈log2 d⌉); Song c·Σ m_i.

// mhtPrune is the probability below which the occupancy recursion drops
// the tails of a distribution.
const mhtPrune = 1e-60

// OccupancyLevel is one sub-table's occupancy.
// The zero value is a sub-table of no buckets that holds nothing.
type OccupancyLevel struct {
	Buckets uint64  // m_i
	Offered float64 // exact E[N_i], the items offered to T_i
	Placed  float64 // exact E[items T_i holds]
	StdDev  float64 // standard deviation of the items T_i holds
	Approx  float64 // the heuristic m_i(1 − e^(−n_i/m_i)) with expected n_i
}

// Occupancy is the occupancy of a multilevel hash table after n
// sequential insertions of distinct items.
//
// The zero value describes no table, and its methods' figures mean nothing
// for it; make one with NewOccupancy.
type Occupancy struct {
	N      uint64
	Levels []OccupancyLevel
	// Crisis is the probability that at least one item found all its
	// buckets full (an upper bound: pruned mass is added).
	Crisis float64
	// ExpectedOverflow is the exact expected number of such items;
	// ApproxOverflow is the heuristic's, a Markov bound on the crisis
	// probability when the heuristic is right.
	ExpectedOverflow, ApproxOverflow float64
	// offered[i] is the distribution of N_{i+1} (i = 0..d), from lo[i].
	offered [][]float64
	lo      []int
}

// distribution is a probability vector over lo, lo+1, ….
type distribution struct {
	lo int
	p  []float64
}

// NewOccupancy computes the occupancy of a multilevel hash table with the
// given sub-table sizes after n insertions. Errors wrap [ErrConfig]: 1 to
// MaxLevels sub-tables, each of at least 1 and at most 2^40 buckets, and
// n at most 2^32.
func NewOccupancy(n uint64, sizes []uint64) (Occupancy, error) {
	if err := validateMHT(n, sizes); err != nil {
		return Occupancy{}, err
	}
	o := Occupancy{N: n}
	in := distribution{lo: int(n), p: []float64{1}}
	o.offered = append(o.offered, in.p)
	o.lo = append(o.lo, in.lo)
	pruned := 0.0
	approxIn := float64(n)
	for _, m := range sizes {
		out, mean, sq, drop := passOn(in, m)
		pruned += drop
		offered := in.mean()
		ap := float64(m) * -math.Expm1(-approxIn/float64(m))
		o.Levels = append(o.Levels, OccupancyLevel{
			Buckets: m, Offered: offered, Placed: mean,
			StdDev: math.Sqrt(max(0, sq-mean*mean)), Approx: ap,
		})
		approxIn = max(0, approxIn-ap)
		o.offered = append(o.offered, out.p)
		o.lo = append(o.lo, out.lo)
		in = out
	}
	o.ExpectedOverflow = in.mean()
	o.ApproxOverflow = approxIn
	c := 0.0
	for i, p := range in.p {
		if in.lo+i > 0 {
			c += p
		}
	}
	o.Crisis = min(1, c+pruned)
	return o, nil
}

// invalidf returns an error wrapping ErrConfig with a formatted detail.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

func validateMHT(n uint64, sizes []uint64) error {
	if len(sizes) < 1 || len(sizes) > MaxLevels {
		return invalidf("%d sub-tables, want 1 to %d", len(sizes), MaxLevels)
	}
	if n > 1<<32 {
		return invalidf("n = %d above 2^32", n)
	}
	for i, m := range sizes {
		if m < 1 || m > 1<<40 {
			return invalidf("sub-table %d has %d buckets, want 1 to 2^40", i+1, m)
		}
	}
	return nil
}

// resize returns b with length n, zeroed, reusing its array when it can.
func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		b = make([]float64, n, 2*n)
	}
	b = b[:n]
	clear(b)
	return b
}

func (d distribution) mean() float64 {
	s := 0.0
	for i, p := range d.p {
		s += p * float64(d.lo+i)
	}
	return s
}

// passOn runs the occupancy recursion of one sub-table of m buckets: in is
// the distribution of the items offered, out that of the items passed on.
// It returns also the first two moments of the items placed and the
// probability mass pruned.
func passOn(in distribution, m uint64) (out distribution, mean, sq, pruned float64) {
	smax := in.lo + len(in.p) - 1
	outP := make([]float64, smax+1) // indexed by items passed on
	mf := float64(m)
	// cur[k-lo] = P(t balls occupy exactly k bins).
	cur, next := []float64{1}, []float64{}
	lo := 0
	for t := 0; ; t++ {
		if t >= in.lo {
			w := in.p[t-in.lo]
			if w > 0 {
				for i, p := range cur {
					k := lo + i
					q := w * p
					outP[t-k] += q
					mean += q * float64(k)
					sq += q * float64(k) * float64(k)
				}
			}
		}
		if t == smax {
			break
		}
		// One more ball: it lands in an occupied bin (k stays) with
		// probability k/m, else in an empty one.
		hi := lo + len(cur) - 1
		nhi := min(hi+1, int(min(m, uint64(t+1))))
		next = resize(next, nhi-lo+1)
		for i, p := range cur {
			k := lo + i
			next[i] += p * float64(k) / mf
			if k+1 <= nhi {
				next[i+1] += p * (mf - float64(k)) / mf
			}
		}
		// Trim the tails.
		a, b := 0, len(next)-1
		for a < b && next[a] < mhtPrune {
			pruned += next[a]
			a++
		}
		for b > a && next[b] < mhtPrune {
			pruned += next[b]
			b--
		}
		lo += a
		cur = append(cur[:0], next[a:b+1]...)
	}
	// Trim the output's zero ends.
	a, b := 0, len(outP)-1
	for a < b && outP[a] == 0 {
		a++
	}
	for b > a && outP[b] == 0 {
		b--
	}
	return distribution{lo: a, p: outP[a : b+1]}, mean, sq, pruned
}

// Offered returns the distribution of the number of items offered to
// sub-table i (1-based; i = d+1 gives the items that found no bucket): the
// probabilities of from, from+1, ….
func (o *Occupancy) Offered(i int) (from int, p []float64) {
	if i < 1 || i > len(o.offered) {
		return 0, nil
	}
	return o.lo[i-1], o.offered[i-1]
}

// offeredQuantile returns the smallest q with P(N_i > q) ≤ eps, and that
// tail probability.
func (o *Occupancy) offeredQuantile(i int, eps float64) (int, float64) {
	lo, p := o.Offered(i)
	tail := 0.0
	for j := len(p) - 1; j >= 0; j-- {
		if tail+p[j] > eps {
			return lo + j, tail
		}
		tail += p[j]
	}
	return lo, tail
}

// TypeCounts returns the expected number of items of each type (held in
// each sub-table).
func (o *Occupancy) TypeCounts() []float64 {
	c := make([]float64, len(o.Levels))
	for i, l := range o.Levels {
		c[i] = l.Placed
	}
	return c
}

// SummaryBounds are a summary's calculated figures.
// The zero value is a summary of no bits that never fails.
type SummaryBounds struct {
	// FalsePositive is the probability that the summary names a sub-table
	// for an item that is not in the table.
	FalsePositive float64
	// TypeFailure is the probability that the summary names the wrong
	// sub-table for an item in the table, averaged over the items.
	TypeFailure float64
	// AnyFailure bounds the probability that the summary fails for at
	// least one item: some item is mistyped, or (interpolation search)
	// construction fails. It is the expected number of mistyped items
	// (union bound), capped at 1.
	AnyFailure float64
	// Bits is the summary's size in fast memory.
	Bits uint64
	// Estimate is true when the figures are estimates, not bounds.
	Estimate bool
	// ItemsPresent and ItemsAbsent are, for a table whose buckets hold
	// lists (Song et al.'s), the mean number of items in the bucket a
	// lookup of a stored and of an absent item reads; CrowdedBuckets is
	// the expected number of buckets holding two or more items. Zero for
	// the summaries of a multilevel table, whose buckets hold one item.
	ItemsPresent, ItemsAbsent, CrowdedBuckets float64
}

// tailEps is the total probability that the quantile bounds leave out.
func (o *Occupancy) tailEps() float64 { return 1e-12 / max(1, float64(o.N)) }

// mistyped returns the bound on the expected number of mistyped items when
// an item of type j (1-based, j < d) is mistyped with rate(N_{j+1}).
func (o *Occupancy) mistyped(rate func(j int, above uint64) float64) (float64, float64) {
	expect := 0.0
	for j := 1; j < len(o.Levels); j++ {
		q, tail := o.offeredQuantile(j+1, o.tailEps())
		expect += o.Levels[j-1].Placed*rate(j, uint64(q)) + float64(o.N)*tail
	}
	return expect, expect / max(1, float64(o.N))
}

// typeBits is ⌈log2 v⌉ for v ≥ 1.
func typeBits(v int) int { return bits.Len(uint(v - 1)) }

// SFBounds returns the figures of a single-filter summary with m cells and
// k hashes (unpartitioned) over the table o. counterBits > 0 makes it the
// counting version (a counterBits-bit counter per type in each cell),
// which changes only the size.
func (o *Occupancy) SFBounds(m uint64, k, counterBits int) SummaryBounds {
	d := len(o.Levels)
	n := o.placedUpper()
	any, rate := o.mistyped(func(_ int, above uint64) float64 { return params.ClassicExact(m, above, k) })
	b := SummaryBounds{FalsePositive: params.ClassicExact(m, n, k), TypeFailure: rate, AnyFailure: min(1, any)}
	if counterBits > 0 {
		b.Bits = m * uint64(d*counterBits)
	} else {
		b.Bits = m * uint64(typeBits(d+1))
	}
	return b
}

// MBFBounds returns the figures of a multiple-Bloom-filter summary whose
// filter B_i has m[i] bits and k[i] hashes (len(m) = len(k) = d; B_1 holds
// every item). counterBits > 0 makes the filters counting filters of
// counterBits-bit counters, which changes only the size.
func (o *Occupancy) MBFBounds(m []uint64, k []int, counterBits int) SummaryBounds {
	n := o.placedUpper()
	any, rate := o.mistyped(func(j int, above uint64) float64 {
		if j >= len(m) {
			return 1
		}
		return params.ClassicExact(m[j], above, k[j])
	})
	total := uint64(0)
	for _, x := range m {
		total += x
	}
	if counterBits > 0 {
		total *= uint64(counterBits)
	}
	fp := 1.0
	if len(m) > 0 {
		fp = params.ClassicExact(m[0], n, k[0])
	}
	return SummaryBounds{FalsePositive: fp, TypeFailure: rate, AnyFailure: min(1, any), Bits: total}
}

// placedUpper is n: at most n items are in the table.
func (o *Occupancy) placedUpper() uint64 { return o.N }

// InterpBounds returns the figures of an interpolation-search summary of
// b-bit hashes (b ≤ 64): AnyFailure is the probability that two of the n
// items share a hash, which fails construction; types are then exact.
func (o *Occupancy) InterpBounds(b int) SummaryBounds {
	n := float64(o.N)
	u := math.Ldexp(1, b)
	// P(no two equal) = Π_{i<n} (1 − i/u); its log is Σ log1p(−i/u).
	fail := 1.0
	if n < u {
		s := 0.0
		if n < 1e5 {
			for i := 1.0; i < n; i++ {
				s += math.Log1p(-i / u)
			}
		} else {
			s = -n * (n - 1) / (2 * u) // the sum to first order; i/u is tiny
		}
		fail = -math.Expm1(s)
	}
	fp := -math.Expm1(n * math.Log1p(-1/u))
	return SummaryBounds{
		FalsePositive: min(1, fp), AnyFailure: min(1, fail),
		Bits: o.N * uint64(b+typeBits(len(o.Levels))),
	}
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// MBFSizes sizes a multiple-Bloom-filter summary to the skew of o: B_1 gets
// bitsPerItem·n bits and k_1 = OptimalK; each later B_i (i ≥ 2) gets the
// fewest bits, with its optimal k, for which the expected number of items
// of type i−1 it mistypes is at most failTarget/(d−1), using the upper
// quantile of the items it holds. Errors wrap [ErrConfig].
func (o *Occupancy) MBFSizes(bitsPerItem, failTarget float64) ([]uint64, []int, error) {
	if !(bitsPerItem > 0) || math.IsInf(bitsPerItem, 0) || !(failTarget > 0 && failTarget < 1) {
		return nil, nil, invalidf("bits per item %g and failure target %g: want > 0 and in (0, 1)", bitsPerItem, failTarget)
	}
	d := len(o.Levels)
	m := make([]uint64, d)
	k := make([]int, d)
	m[0] = max(64, uint64(math.Ceil(bitsPerItem*float64(o.N))))
	k[0] = max(1, params.OptimalK(m[0], o.N))
	for i := 1; i < d; i++ {
		q, _ := o.offeredQuantile(i+1, o.tailEps())
		items := o.Levels[i-1].Placed
		target := failTarget / float64(d-1)
		// Double, then bisect, the size.
		fails := func(bits uint64) (bool, int) {
			kk := max(1, params.OptimalK(bits, uint64(max(1, q))))
			return items*params.ClassicExact(bits, uint64(q), kk) > target, kk
		}
		hi := uint64(64)
		for f, _ := fails(hi); f && hi < 1<<40; f, _ = fails(hi) {
			hi *= 2
		}
		lo := hi / 2
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if f, _ := fails(mid); f {
				lo = mid
			} else {
				hi = mid
			}
		}
		m[i] = (hi + 63) / 64 * 64
		_, k[i] = fails(m[i])
	}
	return m, k, nil
}

// GeometricSizes returns d sub-table sizes first, first·ratio,
// first·ratio², … (rounded up, at least 1). Errors wrap [ErrConfig]:
// d in [1, MaxLevels], first ≥ 1, ratio in (0, 1].
func GeometricSizes(first uint64, ratio float64, d int) ([]uint64, error) {
	if d < 1 || d > MaxLevels || first < 1 || !(ratio > 0 && ratio <= 1) {
		return nil, invalidf("d = %d, first size %d, ratio %g: want d in [1, %d], first ≥ 1, ratio in (0, 1]", d, first, ratio, MaxLevels)
	}
	s := make([]uint64, d)
	x := float64(first)
	for i := range s {
		s[i] = max(1, uint64(math.Ceil(x-1e-9)))
		x *= ratio
	}
	return s, nil
}
