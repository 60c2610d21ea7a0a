package params

import (
	"math"
)

// Budgets in bytes: the filter with the lowest false-positive rate whose
// message, frame included, stays within a byte budget with a stated
// probability (Mitzenmacher, "Compressed Bloom filters": design for a
// size a little below the packet, to absorb the compressed size's
// variance).
//
// The compressed size of a filter with Z zero bits of m is about
// m·H(Z/m) bits plus the coder's overhead. Z varies from filter to filter
// (which keys, which seed); its variance follows from occupancy
// (balls into bins), and the size's standard deviation is, to first
// order, |log2((m − Z)/Z)|·σ_Z, the slope of m·H(z/m) at E[Z] times σ_Z.
// A shape fits when E[size] + z_c·σ_size ≤ budget, z_c the normal
// quantile of the confidence (3.09 at 99.9%), with E[size] taken at the
// expected density (m·H is concave, so this overstates the mean).

// defaultBudgetConfidence is the probability with which a shape chosen by
// [OptimizeBudget] must fit its budget when the query gives none.
const defaultBudgetConfidence = 0.999

// defaultBudgetMemoryRatio is the default memory cap of [OptimizeBudget]:
// the receiver holds at most this many times the budget's bits.
const defaultBudgetMemoryRatio = 4

// arithOverheadBits bounds the arithmetic coder's excess over m·H(p̂) for
// an array of m bits (package entropy: log2(m+1) + 48 bits).
func arithOverheadBits(m uint64) float64 { return math.Log2(float64(m)+1) + 48 }

// ZeroBitsSD returns the standard deviation of the number of zero bits of
// a filter of shape s after n distinct keys, from occupancy: classic, k·n
// probes into m bits; partitioned, k independent slices of n probes each;
// blocked and paged, each key's k probes in one of m/b blocks of b bits
// (a Poisson mixture over the block loads, corrected for the fixed total
// n). It is 0 for n = 0 or an invalid shape.
func ZeroBitsSD(s Shape, n uint64) float64 {
	if n == 0 || s.Validate() != nil {
		return 0
	}
	switch s.Layout {
	case Partitioned:
		return math.Sqrt(float64(s.K) * occupancyZeroVar(float64(s.M/uint64(s.K)), float64(n)))
	case Blocked, Paged:
		b := float64(s.BlockBits)
		if s.Layout == Blocked {
			b = BlockedBits
		}
		return math.Sqrt(blockedZeroVar(float64(s.M)/b, b, float64(n), s.K))
	}
	return math.Sqrt(occupancyZeroVar(float64(s.M), float64(s.K)*float64(n)))
}

// occupancyZeroVar is the variance of the number of empty bins after t
// balls fall into m bins: m(m−1)(1−2/m)^t + m(1−1/m)^t − m²(1−1/m)^(2t),
// computed without the cancellation of its large terms.
func occupancyZeroVar(m, t float64) float64 {
	if m < 2 {
		return 0
	}
	la := t * math.Log1p(-1/m) // ln (1−1/m)^t
	lb := t * math.Log1p(-2/m) // ln (1−2/m)^t
	a := math.Exp(la)
	// m²·(b − a²) + m·(a − b), with b − a² = a²·expm1(lb − 2·la).
	d := a * a * math.Expm1(lb-2*la)
	v := m*m*d + m*(a-a*a-d)
	return math.Max(0, v)
}

// blockedZeroVar is the variance of the empty bits of B blocks of b bits
// after n keys, each choosing a block uniformly and setting k uniform bits
// of it. With the block loads Poisson(λ = n/B) and G(x) = e^(−λ(1−x)) the
// generating function, each block contributes
// b(b−1)·G(r^k) + b·G(q^k) − b²·G(q^k)² (q = 1 − 1/b, r = 1 − 2/b); fixing
// the total load at n removes B·λ·(b(1−q^k)G(q^k))².
func blockedZeroVar(blocks, b, n float64, k int) float64 {
	lambda := n / blocks
	fk := float64(k)
	g := func(lx float64) float64 { return math.Exp(-lambda * -math.Expm1(lx)) } // G(e^lx)
	qk := fk * math.Log1p(-1/b)
	rk := fk * math.Log1p(-2/b)
	gq := g(qk)
	per := b*(b-1)*g(rk) + b*gq - b*b*gq*gq
	slope := b * -math.Expm1(qk) * gq
	return math.Max(0, blocks*(per-lambda*slope*slope))
}

// CompressedSizeSD returns the standard deviation, in bits, of m·H(Z/m)
// for a filter of shape s holding n keys: |log2((m − E[Z])/E[Z])|·σ_Z.
func CompressedSizeSD(s Shape, n uint64) float64 {
	sd := ZeroBitsSD(s, n)
	fill := s.ExpectedFill(n)
	if sd == 0 || fill <= 0 || fill >= 1 {
		return 0
	}
	return math.Abs(math.Log2(fill/(1-fill))) * sd
}

// normalQuantile returns the z with Pr(N(0,1) ≤ z) = c.
func normalQuantile(c float64) float64 { return math.Sqrt2 * math.Erfinv(2*c-1) }

// BudgetQuery asks for the filter of N keys with the lowest false-positive
// rate whose message fits Bytes bytes.
// The zero BudgetQuery is not valid: OptimizeBudget reports ErrInvalid,
// since N is 0.
type BudgetQuery struct {
	N     uint64
	Bytes uint64 // the whole message: frame and payload
	// FrameBytes is what the container adds to the payload (header,
	// parameters, checksum, the stream's codec byte).
	FrameBytes uint64
	// Layouts to consider; empty means all four.
	Layouts   []Layout
	BlockBits uint64 // page size of the paged layout; 0: DefaultPageBits
	// MaxBits caps m (the receiver's memory); 0 means
	// 4 (defaultBudgetMemoryRatio) times the budget's bits.
	MaxBits uint64
	MaxK    int // 0: MaxK
	// Confidence is the probability that the compressed message fits;
	// 0 means 0.999 (defaultBudgetConfidence).
	Confidence float64
}

// BudgetShape is one candidate of [OptimizeBudget].
// The zero value is no candidate (an invalid Shape, size 0).
type BudgetShape struct {
	Shape         Shape
	FalsePositive float64
	// Compressed says whether the shape is sent entropy-coded (else raw).
	Compressed bool
	// MeanBytes is the expected message size, frame included; SDBytes
	// the standard deviation of a compressed message's size; BoundBytes
	// the size not exceeded with the query's confidence (raw: exact).
	MeanBytes, SDBytes, BoundBytes float64
}

// BudgetResult is the answer of [OptimizeBudget]: the best shape, the best
// for each layout, and the best raw (uncompressed) filter of the same
// budget, for comparison.
// The zero value is no answer; OptimizeBudget returns it only with an error.
type BudgetResult struct {
	Best      BudgetShape
	PerLayout []BudgetShape
	Raw       BudgetShape
	// CapBits is the memory cap applied; CapBinds says a larger cap
	// would lower the rate, and Uncapped is then the best shape without
	// one.
	CapBits  uint64
	CapBinds bool
	Uncapped BudgetShape
	Z        float64 // the normal quantile of the confidence
}

// OptimizeBudget chooses layout, m, k and raw or compressed for the lowest
// false-positive rate of q.N keys whose message stays within q.Bytes with
// probability q.Confidence. For each layout and k it finds the largest m
// that fits (size grows with m at fixed k), and keeps the lowest rate.
func OptimizeBudget(q BudgetQuery) (BudgetResult, error) {
	conf := q.Confidence
	if conf == 0 {
		conf = defaultBudgetConfidence
	}
	maxK := q.MaxK
	if maxK == 0 {
		maxK = MaxK
	}
	switch {
	case q.N == 0:
		return BudgetResult{}, invalidf("n = 0 keys")
	case !(conf > 0.5 && conf < 1):
		return BudgetResult{}, invalidf("confidence %g outside (0.5, 1)", conf)
	case maxK < 1 || maxK > MaxK:
		return BudgetResult{}, invalidf("largest k %d outside [1, %d]", maxK, MaxK)
	case q.Bytes <= q.FrameBytes+8:
		return BudgetResult{}, invalidf("a budget of %d bytes leaves no room for a filter after the %d-byte frame", q.Bytes, q.FrameBytes)
	}
	z := normalQuantile(conf)
	budgetBits := 8 * float64(q.Bytes-q.FrameBytes)
	capBits := q.MaxBits
	if capBits == 0 {
		capBits = uint64(defaultBudgetMemoryRatio * budgetBits)
	}
	capBits = min(capBits, maxSizeBits)
	layouts := q.Layouts
	if len(layouts) == 0 {
		layouts = []Layout{Classic, Partitioned, Blocked, Paged}
	}
	page := q.BlockBits
	if page == 0 {
		page = DefaultPageBits
	}
	res := BudgetResult{CapBits: capBits, Z: z}
	res.Best, res.PerLayout = q.search(layouts, page, capBits, maxK, z)
	if res.Best.Shape.M == 0 {
		return BudgetResult{}, invalidf("no filter of %d keys fits %d bytes", q.N, q.Bytes)
	}
	if capBits < maxSizeBits {
		if u, _ := q.search(layouts, page, maxSizeBits, maxK, z); u.Shape.M != 0 && u.FalsePositive < res.Best.FalsePositive*(1-1e-9) {
			res.CapBinds, res.Uncapped = true, u
		}
	}
	// The uncompressed filter of the same bytes: classic, the whole
	// payload's words, the best k.
	frame := float64(q.FrameBytes)
	rawM := uint64(budgetBits) / 64 * 64
	if rawM >= 64 {
		k := min(OptimalK(rawM, q.N), maxK)
		s := Shape{Layout: Classic, M: rawM, K: k}
		res.Raw = BudgetShape{Shape: s, FalsePositive: s.FalsePositive(q.N), MeanBytes: frame + float64(rawM/8), BoundBytes: frame + float64(rawM/8)}
	}
	return res, nil
}

// search returns the best shape within capBits bits over the layouts, and
// the best of each layout that has one.
func (q BudgetQuery) search(layouts []Layout, page, capBits uint64, maxK int, z float64) (overall BudgetShape, per []BudgetShape) {
	frame := float64(q.FrameBytes)
	eval := func(s Shape) (BudgetShape, bool) {
		raw := float64(8 * ((s.M + 63) / 64)) // the raw payload is whole words
		bs := BudgetShape{Shape: s, MeanBytes: frame + raw, BoundBytes: frame + raw}
		fill := s.ExpectedFill(q.N)
		mean := float64(s.M)*Entropy(fill) + arithOverheadBits(s.M)
		sd := CompressedSizeSD(s, q.N)
		if bound := frame + (mean+z*sd)/8; bound < bs.BoundBytes {
			bs = BudgetShape{Shape: s, Compressed: true, MeanBytes: frame + mean/8, SDBytes: sd / 8, BoundBytes: bound}
		}
		return bs, bs.BoundBytes <= float64(q.Bytes)
	}
	for _, l := range layouts {
		b := uint64(0)
		switch l {
		case Blocked:
			b = BlockedBits
		case Paged:
			b = page
		}
		var best BudgetShape
		found := false
		for k := 1; k <= maxK; k++ {
			unit := granule(l, b, k)
			limit := capBits / unit
			shape := func(u uint64) Shape { return Shape{Layout: l, M: u * unit, K: k, BlockBits: b} }
			u, ok := largestFit(func(u uint64) bool { _, fits := eval(shape(u)); return fits }, limit)
			if !ok {
				continue
			}
			bs, _ := eval(shape(u))
			bs.FalsePositive = bs.Shape.FalsePositive(q.N)
			if !found || bs.FalsePositive < best.FalsePositive {
				best, found = bs, true
			}
		}
		if !found {
			continue
		}
		per = append(per, best)
		if overall.Shape.M == 0 || best.FalsePositive < overall.FalsePositive {
			overall = best
		}
	}
	return overall, per
}
