package mht

import "math"

// The fast hash table of Song, Dharmapurikar, Turner and Lockwood ("Fast
// hash table lookup using extended Bloom filter: an aid to network
// processing", SIGCOMM 2005), as Kirsch and Mitzenmacher describe it (seed
// 002, section III): a counter per bucket; every item adds 1 to the
// counters of its buckets, and after pruning it is kept only in the bucket
// whose counter is smallest, ties going to the first bucket in table
// order. Insertions and deletions relocate the items whose smallest
// counter moves, so the table is always the pruned one: a lookup reads the
// bucket of the smallest counter and finds a stored item there (no type
// failure, one bucket read). A bucket holds a list, and the cost is the
// items in the bucket read.
//
// Laid over the multilevel table's buckets, an item has one bucket in
// each sub-table (one hash function per sub-table: k = d, partitioned).
// With fully random hashes the counters of one item's d buckets are then
// independent: c_i = 1 + Bin(n−1, 1/m_i) for a stored item and
// Bin(n, 1/m_i) for an absent one, seen through c-bit counters that stick
// at 2^c − 1. So:
//
//   - an absent item is a false positive (its bucket is read and holds
//     nothing for it) when its d counters are all nonzero, probability
//     Π_i (1 − (1 − 1/m_i)^n), exact;
//   - a stored item's smallest counter is in sub-table j with value v
//     with probability P(j, v) = P(c_j = v)·R_j(v), where
//     R_j(v) = Π_{i<j} P(c_i > v)·Π_{i>j} P(c_i ≥ v), exact;
//   - each of the c_j − 1 other items that hash to that bucket is kept
//     there when the bucket is its smallest too; treating its other
//     counters as independent of the first item's (they share only the
//     rare events of hashing together twice), that happens with
//     probability R_j(v), so the bucket read holds on average
//     Σ P(j, v)·(1 + E[c_j − 1 | v]·R_j(v)) items (an estimate);
//     an absent item's read bucket holds Σ P'(j, v)·E[c_j | v]·R_j(v),
//     P' the same law for the absent item's counters;
//   - a bucket of T_j with v items hashing to it keeps each with
//     probability R_j(v); the expected number of buckets keeping two or
//     more is summed over the table, and the probability that there is at
//     least one is estimated as 1 − e^(−that sum) (Poisson heuristic).

// SongBounds returns the figures of Song et al.'s fast hash table (pruned,
// with relocation) over the table's buckets, one hash per sub-table and
// counterBits-bit counters (1..30). TypeFailure is 0 and a stored item's
// lookup reads one bucket; FalsePositive is exact; ItemsPresent,
// ItemsAbsent and AnyFailure (the probability that some bucket holds two
// or more items) are estimates, so Estimate is true.
func (o *Occupancy) SongBounds(counterBits int) SummaryBounds {
	sizes := make([]uint64, len(o.Levels))
	total := uint64(0)
	for i, l := range o.Levels {
		sizes[i] = l.Buckets
		total += l.Buckets
	}
	b := songFigures(o.N, sizes, counterBits)
	b.Bits = total * uint64(max(0, counterBits))
	return b
}

// songLaw is a counter as a lookup sees it: s = min(c, cap) with c =
// shift + Bin(trials, 1/m). pmf[v] = P(s = v) and mean[v] = E[c | s = v]
// for v ≤ top; ge(v) = P(s ≥ v). raw[x − lo] = P(c = shift + x), the
// count itself, for x from lo to the top of its range.
type songLaw struct {
	pmf, mean, tail []float64 // tail[v] = P(s ≥ v), one longer than pmf
	raw             []float64
	lo              int
}

// binomial returns P(Bin(trials, q) = x).
func binomial(trials uint64, q float64, x int) float64 {
	n := float64(trials)
	switch {
	case x < 0 || uint64(x) > trials:
		return 0
	case q >= 1:
		if uint64(x) == trials {
			return 1
		}
		return 0
	}
	k := float64(x)
	return math.Exp(lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1) + k*math.Log(q) + (n-k)*math.Log1p(-q))
}

func newSongLaw(trials, m uint64, shift, cap int) songLaw {
	q := 1 / float64(m)
	lam := float64(trials) * q
	xmax := uint64(math.Ceil(lam + 15*math.Sqrt(lam) + 40))
	xmax = min(xmax, trials)
	top := min(cap, shift+int(min(xmax, 1<<30)))
	l := songLaw{pmf: make([]float64, top+1), mean: make([]float64, top+1), tail: make([]float64, top+2)}
	l.lo = int(max(0, math.Floor(lam-15*math.Sqrt(lam)-40)))
	for x := l.lo; x <= int(min(xmax, 1<<30)); x++ {
		l.raw = append(l.raw, binomial(trials, q, x))
	}
	below, belowMean := 0.0, 0.0
	for v := shift; v <= top; v++ {
		p := binomial(trials, q, v-shift)
		l.pmf[v], l.mean[v] = p, float64(v)
		if v < cap {
			below += p
			belowMean += p * float64(v)
		}
	}
	if top == cap {
		// The counter sticks at cap: the rest of the mass, with the mean
		// of the true count above it.
		rest := max(0, 1-below)
		l.pmf[cap] = rest
		l.mean[cap] = float64(cap)
		if rest > 1e-300 {
			l.mean[cap] = max(float64(cap), (float64(shift)+lam-belowMean)/rest)
		}
	}
	for v := top; v >= 0; v-- {
		l.tail[v] = l.tail[v+1] + l.pmf[v]
	}
	return l
}

// ge returns P(s ≥ v).
func (l *songLaw) ge(v int) float64 {
	if v >= len(l.tail) {
		return 0
	}
	return l.tail[max(0, v)]
}

func songFigures(n uint64, sizes []uint64, counterBits int) SummaryBounds {
	cap := 1<<min(max(counterBits, 1), 30) - 1
	d := len(sizes)
	stored := make([]songLaw, d)
	absent := make([]songLaw, d)
	for i, m := range sizes {
		stored[i] = newSongLaw(max(n, 1)-1, m, 1, cap)
		absent[i] = newSongLaw(n, m, 0, cap)
	}
	// rest is R_j(v) for the laws ls: the other sub-tables lose to (j, v).
	rest := func(ls []songLaw, j, v int) float64 {
		r := 1.0
		for i := range ls {
			switch {
			case i < j:
				r *= ls[i].ge(v + 1)
			case i > j:
				r *= ls[i].ge(v)
			}
		}
		return r
	}
	fp := 1.0
	for i := range absent {
		fp *= absent[i].ge(1)
	}
	var present, out, crowded float64
	for j := range d {
		s, a := &stored[j], &absent[j]
		for v := 1; v < len(s.pmf); v++ {
			r := rest(stored, j, v)
			present += s.pmf[v] * r * (1 + (s.mean[v]-1)*r)
		}
		for v := 1; v < len(a.pmf); v++ {
			out += a.pmf[v] * rest(absent, j, v) * a.mean[v] * rest(stored, j, v)
		}
		for i, p := range a.raw {
			if c := float64(a.lo + i); c >= 2 {
				// P(at least two of c items kept, each with probability r).
				r := rest(stored, j, min(a.lo+i, cap))
				keep2 := 1 - math.Pow(1-r, c) - c*r*math.Pow(1-r, c-1)
				crowded += float64(sizes[j]) * p * max(0, keep2)
			}
		}
	}
	return SummaryBounds{
		FalsePositive: fp, AnyFailure: -math.Expm1(-crowded),
		ItemsPresent: present, ItemsAbsent: out, CrowdedBuckets: crowded, Estimate: true,
	}
}
