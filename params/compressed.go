package params

import "math"

// This file tunes Bloom filters that are sent over a network, after
// Mitzenmacher, "Compressed Bloom filters" (PODC 2001; IEEE/ACM Transactions
// on Networking 10(5), 2002). A filter that is broadcast is both a data
// structure of m bits and a message of z bits. A filter tuned for memory
// (k = ln2·m/n) has half its bits set and does not compress; fewer probes
// over a larger array (or more over a denser one) leave each bit 0 with
// probability p ≠ 1/2, and an arithmetic coder sends the array in about
// m·H(p) bits. For a budget z the optimiser below chooses m and k to
// minimise the false-positive rate f subject to the transmitted size.
//
// Why a bisection per k is exact. With a = k·n/m and p = e^(−a):
//
//  1. For fixed k, f = (1 − p)^k falls as m grows (p rises).
//  2. For fixed k, the ideal size F(m) = m·H(p) rises strictly with m,
//     although H(p) alone rises to 1 at p = 1/2 and then falls:
//
//     ln2 · dF/dm = p·a·(1 + a) + (1 − p·(1 + a))·ln(1/(1 − p)),
//
//     where the first term is positive and the second is not negative because
//     e^a ≥ 1 + a. F grows without bound, like k·n·log2(e·m/(k·n)).
//  3. For fixed k and churn c ∈ (0, 1], the ideal delta size D(m) = m·H(q)
//     with q = 2·p·(1 − e^(−c·a)) rises strictly with m too. q ≤ 1/2, so
//     H'(q) ≥ 0, and writing H(q) = −log2(1 − q) + q·H'(q),
//
//     dD/dm = −log2(1 − q) + (q − a·dq/da)·H'(q),
//
//     with q − a·dq/da = 2e^(−a)·(1 + a − e^(−c·a)·(1 + a + c·a)) ≥ 0
//     since e^(c·a)·(1 + a) ≥ (1 + c·a)(1 + a).
//
// Sending the array raw instead costs m bits, also increasing in m, so the
// cheaper of the two encodings is increasing as well, and so is any size
// scaled by the coder's overhead factor 1 + ε. A conjunction of bounds on
// increasing sizes holds on an initial segment of m, so for each k the
// feasible arrays form one interval m ∈ [1, m_k], never a union of
// intervals, and f is lowest at its right end m_k, which bisection finds. The exact classic form replaces a = k·n/m by
// a = −k·n·ln(1 − 1/m), whose derivative is the one above times
// r = 1/((m − 1)·(−ln(1 − 1/m))) ∈ [1, m/(m − 1)]; the extra term is bounded by
// (r − 1)·p·a·ln(p/(1 − p)) ≤ p·a·ln(m)/(m − 1) < p·a·(1 + a) for the full
// size (as 1 − p ≥ 1/m), and by q·log2(1/q)/(m − 1) < −log2(1 − q) for the
// delta once m ≥ 3 and c·k·n ≥ 1, so the conclusion stands. The tests
// compare the bisection with exhaustive scans in both forms.

// Entropy returns the binary entropy H(p) = −p·log2 p − (1 − p)·log2(1 − p)
// in bits: the average number of bits an ideal coder needs per bit of a
// random string whose bits are 0 with probability p (or 1: H is symmetric).
// It is 0 for p ≤ 0 and p ≥ 1 and NaN for NaN.
func Entropy(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return math.NaN()
	case p <= 0 || p >= 1:
		return 0
	}
	return -(p*math.Log(p) + (1-p)*math.Log1p(-p)) / math.Ln2
}

// entropyOf returns H(p0) in bits given p0 = e^(−l0) and p1 = 1 − p0, both
// computed accurately by the caller: p0·l0 avoids rounding ln p0 when p0 is
// near 1 and p1 avoids cancelling 1 − p0.
func entropyOf(p0, l0, p1 float64) float64 {
	h := 0.0
	if p0 > 0 {
		h += p0 * l0
	}
	if p1 > 0 {
		h -= p1 * math.Log(p1)
	}
	return h / math.Ln2
}

// TransmitFor returns the ideal transmitted size per element and the
// false-positive rate of a filter with bitsPerElement = m/n array bits per
// element and k probes, in the approximation Mitzenmacher (2001) uses for
// his tables: a bit is 0 with probability p = e^(−k/(m/n)), the array
// compresses to (m/n)·H(p) bits per element, and f = (1 − p)^k. For
// example TransmitFor(14, 2) is (7.923, 0.0177) to the paper's precision.
// It returns (0, 1) for bitsPerElement ≤ 0 or k < 1.
func TransmitFor(bitsPerElement float64, k int) (zPerElement, f float64) {
	if !(bitsPerElement > 0) || k < 1 {
		return 0, 1
	}
	a := float64(k) / bitsPerElement
	return bitsPerElement * entropyOf(math.Exp(-a), a, -math.Expm1(-a)), powK(-a, k)
}

// IdealCompressed returns the shape of Mitzenmacher's continuous
// optimisation (k real, m unbounded, ideal coder) that sends zPerElement
// bits per element with each array bit 0 with probability p0: the array
// has m/n = (z/n)/H(p0) bits per element, k = (m/n)·ln(1/p0) probes and
// false-positive rate
//
//	f = exp(−(z/n) · ln(p0) · ln(1 − p0) / H(p0)).
//
// f is symmetric about p0 = 1/2, where it is largest: there m/n = z/n,
// k = ln2·z/n and f = 0.6185^(z/n), the standard filter sent raw. So the
// choice that is optimal without compression is the worst with it. As p0
// tends to 1 (k → 0, m → ∞) or to 0 (k → ∞), f falls to 2^(−z/n): at equal
// f the transmission is ln 2 ≈ 0.693 of the standard filter's, a saving of
// up to about 30%. For p0 = 0 or 1 it returns those limits; for p0 outside
// [0, 1] or zPerElement < 0 it returns NaNs.
func IdealCompressed(zPerElement, p0 float64) (bitsPerElement, k, f float64) {
	if !(p0 >= 0 && p0 <= 1) || !(zPerElement >= 0) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	limit := math.Exp2(-zPerElement)
	switch {
	case zPerElement == 0:
		return 0, 0, 1
	case p0 == 1:
		return math.Inf(1), 0, limit
	case p0 == 0:
		return math.Inf(1), math.Inf(1), limit
	}
	h := Entropy(p0)
	bitsPerElement = zPerElement / h
	k = -bitsPerElement * math.Log(p0)
	f = math.Exp(-zPerElement * math.Log(p0) * math.Log1p(-p0) / h)
	return bitsPerElement, k, f
}

// DeltaBits returns m·H(q), the ideal compressed size of a delta (the XOR
// of an old and a new filter of m bits and k probes, each holding n
// elements) after a fraction c of the elements was replaced: c·n deleted
// and c·n others inserted. Following Mitzenmacher (2001), a delta bit is 1
// when the bit was 0 before and one of the c·n new elements set it, or the
// reverse for the deleted ones, so
//
//	q = 2·p·(1 − e^(−k·c·n/m)),  p = e^(−k·n/m),
//
// which never exceeds 1/2. c is clamped to [0, 1]. The size rises with c
// and with m (see [MaxChurn] and [OptimizeTransmit]). It returns 0 for
// m = 0, n = 0, k < 1 or c ≤ 0, and NaN for NaN c.
func DeltaBits(m, n uint64, k int, c float64) float64 {
	if math.IsNaN(c) {
		return math.NaN()
	}
	if m == 0 || n == 0 || k < 1 || c <= 0 {
		return 0
	}
	a := float64(k) * float64(n) / float64(m)
	q := 2 * math.Exp(-a) * -math.Expm1(-min(c, 1)*a)
	return float64(m) * Entropy(q)
}

// MaxChurn returns the largest fraction c in [0, 1] of replaced elements
// whose ideal delta, [DeltaBits](m, n, k, c), fits in deltaBits: how much
// the set may change before a delta of that size must be published. It
// returns 1 when even a complete replacement fits, 0 when deltaBits ≤ 0 or
// the filter is degenerate (m = 0, n = 0 or k < 1), and NaN for NaN
// deltaBits. To budget for a coder with overhead ε, pass deltaBits/(1+ε).
func MaxChurn(m, n uint64, k int, deltaBits float64) float64 {
	switch {
	case math.IsNaN(deltaBits):
		return math.NaN()
	case deltaBits <= 0 || m == 0 || n == 0 || k < 1:
		return 0
	case DeltaBits(m, n, k, 1) <= deltaBits:
		return 1
	}
	// DeltaBits rises with c: q rises with c and stays in [0, 1/2], where H
	// rises. Bisect down to adjacent floats.
	lo, hi := 0.0, 1.0
	for {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			return lo
		}
		if DeltaBits(m, n, k, mid) <= deltaBits {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// TransmitOptions are the settings [OptimizeTransmit] and [OptimizeTarget]
// share. The zero value means: no memory cap, k up to [MaxK], an ideal
// coder, the paper's approximation, any integer m and no delta.
type TransmitOptions struct {
	// MaxBitsPerElement caps the array at m ≤ MaxBitsPerElement·n bits:
	// the memory the receivers can spend on the decompressed filter.
	// 0 means no cap.
	MaxBitsPerElement float64
	// MaxBits caps the array at m ≤ MaxBits bits; 0 means no cap. With
	// both caps the tighter applies. Without any, m stays below 2^62.
	MaxBits uint64
	// MaxK is the largest k tried, 1..MaxK; 0 means the package's MaxK.
	MaxK int
	// Overhead is the coder's excess ε ≥ 0 over the entropy: a compressed
	// array costs (1 + ε)·m·H(p) bits. 0 means an ideal coder; an
	// arithmetic coder on a large array is within a fraction of a percent
	// (pass 0.005, say), and designing a little below the hard limit also
	// absorbs its variance (Mitzenmacher 2001).
	Overhead float64
	// Exact uses the classic form p = (1 − 1/m)^(k·n) of the probability
	// that a bit is 0, as in [ClassicExact]; false uses the paper's
	// p = e^(−k·n/m), as in [ApproxFalsePositive], which reproduces its
	// tables.
	Exact bool
	// WholeBitsPerElement restricts m to whole multiples of n, as the
	// paper's tables do (m/n = 14, 92, ...).
	WholeBitsPerElement bool
	// Churn is the fraction c in [0, 1] of the elements replaced between
	// two updates; when positive, every shape reports the size of its delta
	// ([DeltaBits], with the overhead and the raw alternative applied).
	Churn float64
	// DeltaBitsPerElement bounds the transmitted delta at
	// DeltaBitsPerElement·n bits; DeltaTotalBits bounds it in bits. Give at
	// most one; 0 means no bound. A bound needs Churn > 0.
	DeltaBitsPerElement float64
	DeltaTotalBits      uint64
}

// TransmitQuery asks [OptimizeTransmit] for the filter with the lowest
// false-positive rate that can be sent in a given number of bits.
// The zero TransmitQuery is not valid: OptimizeTransmit reports ErrInvalid,
// since N is 0.
type TransmitQuery struct {
	// N is the number of distinct elements, at least 1.
	N uint64
	// BitsPerElement is the budget z/n in bits per element; TotalBits is
	// the budget z in bits. Give exactly one.
	BitsPerElement float64
	TotalBits      uint64
	TransmitOptions
}

// TargetQuery asks [OptimizeTarget] for the filter with the smallest
// transmission that reaches a false-positive rate.
// The zero TargetQuery is not valid: OptimizeTarget reports ErrInvalid,
// since N is 0.
type TargetQuery struct {
	// N is the number of distinct elements, at least 1.
	N uint64
	// P is the target false-positive rate, in (0, 1).
	P float64
	TransmitOptions
}

// CompressedShape is a classic filter (m bits, k probes over the whole
// array, n elements) described as a message.
// The zero value is no filter: M and K are 0. TransmitResult.Uncompressed
// holds it when the budget allows no standard filter.
type CompressedShape struct {
	// M is the number of array bits, the memory the receivers need.
	M uint64
	// K is the number of probes per element.
	K int
	// BitsPerElement is M/n.
	BitsPerElement float64
	// P0 is the probability that a given bit is 0: e^(−k·n/m), or
	// (1 − 1/m)^(k·n) with TransmitOptions.Exact.
	P0 float64
	// FalsePositive is (1 − P0)^K.
	FalsePositive float64
	// CompressedBits is the size of the compressed array, (1 + ε)·M·H(P0).
	CompressedBits float64
	// Compressed reports whether the array is sent compressed. The
	// optimisers send whichever encoding is smaller, as the paper's filter
	// types allow; the Uncompressed baseline is always sent raw.
	Compressed bool
	// TransmitBits is what is sent: CompressedBits if Compressed, else M.
	TransmitBits float64
	// TransmitPerElement is TransmitBits/n.
	TransmitPerElement float64
	// DeltaBits is the transmitted size of a delta after TransmitOptions.Churn
	// of the elements were replaced, the smaller of (1 + ε)·[DeltaBits] and
	// M; 0 without churn.
	DeltaBits float64
}

// Shape returns the filter's geometry as a Classic [Shape].
func (c CompressedShape) Shape() Shape { return Shape{Layout: Classic, M: c.M, K: c.K} }

// TransmitResult is the answer of [OptimizeTransmit] and [OptimizeTarget].
// The zero value is no answer; OptimizeTransmit and OptimizeTarget return it
// only with an error.
type TransmitResult struct {
	// Best is the optimum over every k: the lowest rate for a budget, or
	// the smallest transmission for a target rate.
	Best CompressedShape
	// Uncompressed is the standard filter the question compares against,
	// sent raw (Compressed false, TransmitBits = M): for a budget, the
	// largest array the budget and the memory cap allow (m = z bits, or the
	// whole multiple of n below it) with its best k; for a target rate, the
	// smallest array that reaches it with any k. It ignores the delta bound.
	// For a budget below one bit (one bit per element with
	// WholeBitsPerElement) it is the zero value.
	Uncompressed CompressedShape
	// PerK holds, in increasing k, the optimum for each k in 1..MaxK that
	// has a feasible shape.
	PerK []CompressedShape
}

// txModel evaluates shapes for one question.
type txModel struct {
	n     float64
	exact bool
	scale float64 // 1 + overhead
	churn float64
}

// load returns a = −ln P0 for m bits and k probes.
func (md txModel) load(m uint64, k int) float64 {
	kn := float64(k) * md.n
	if md.exact {
		return -kn * math.Log1p(-1/float64(m))
	}
	return kn / float64(m)
}

// rate returns the false-positive rate of m bits and k probes.
func (md txModel) rate(m uint64, k int) float64 { return powK(-md.load(m, k), k) }

// shape evaluates m bits and k probes as a message.
func (md txModel) shape(m uint64, k int) CompressedShape {
	a := md.load(m, k)
	p0, p1 := math.Exp(-a), -math.Expm1(-a)
	fm := float64(m)
	s := CompressedShape{
		M:              m,
		K:              k,
		BitsPerElement: fm / md.n,
		P0:             p0,
		FalsePositive:  powK(-a, k),
		CompressedBits: md.scale * fm * entropyOf(p0, a, p1),
	}
	s.Compressed = s.CompressedBits < fm
	s.TransmitBits = min(fm, s.CompressedBits)
	s.TransmitPerElement = s.TransmitBits / md.n
	if md.churn > 0 {
		q := 2 * p0 * -math.Expm1(-md.churn*a)
		s.DeltaBits = min(fm, md.scale*fm*Entropy(q))
	}
	return s
}

// raw marks a shape as sent uncompressed.
func (md txModel) raw(s CompressedShape) CompressedShape {
	s.Compressed = false
	s.TransmitBits = float64(s.M)
	s.TransmitPerElement = s.TransmitBits / md.n
	return s
}

// txPlan is a checked TransmitOptions: m ranges over unit·[1, limit].
type txPlan struct {
	md    txModel
	unit  uint64
	limit uint64
	maxK  int
	delta float64 // bound on DeltaBits, +Inf for none
}

// check validates the options for n elements.
func (o TransmitOptions) check(n uint64) (txPlan, error) {
	finite := func(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
	switch {
	case n < 1:
		return txPlan{}, invalidf("n = 0 keys")
	case !finite(o.MaxBitsPerElement):
		return txPlan{}, invalidf("MaxBitsPerElement = %g not a finite number ≥ 0", o.MaxBitsPerElement)
	case o.MaxK < 0 || o.MaxK > MaxK:
		return txPlan{}, invalidf("MaxK = %d outside [1, %d]", o.MaxK, MaxK)
	case !finite(o.Overhead):
		return txPlan{}, invalidf("Overhead = %g not a finite number ≥ 0", o.Overhead)
	case !(o.Churn >= 0 && o.Churn <= 1):
		return txPlan{}, invalidf("Churn = %g outside [0, 1]", o.Churn)
	case !finite(o.DeltaBitsPerElement):
		return txPlan{}, invalidf("DeltaBitsPerElement = %g not a finite number ≥ 0", o.DeltaBitsPerElement)
	case o.DeltaBitsPerElement > 0 && o.DeltaTotalBits > 0:
		return txPlan{}, invalidf("both DeltaBitsPerElement and DeltaTotalBits given")
	case (o.DeltaBitsPerElement > 0 || o.DeltaTotalBits > 0) && o.Churn == 0:
		return txPlan{}, invalidf("a delta bound needs Churn > 0")
	}
	pl := txPlan{
		md:    txModel{n: float64(n), exact: o.Exact, scale: 1 + o.Overhead, churn: o.Churn},
		unit:  1,
		maxK:  o.MaxK,
		delta: math.Inf(1),
	}
	if pl.maxK == 0 {
		pl.maxK = MaxK
	}
	switch {
	case o.DeltaBitsPerElement > 0:
		pl.delta = o.DeltaBitsPerElement * float64(n)
	case o.DeltaTotalBits > 0:
		pl.delta = float64(o.DeltaTotalBits)
	}
	capBits := uint64(maxSizeBits)
	if o.MaxBits > 0 {
		capBits = min(capBits, o.MaxBits)
	}
	if o.MaxBitsPerElement > 0 {
		// Clamp as a float: converting a float above 2^64 is undefined.
		capBits = min(capBits, uint64(math.Min(math.Floor(o.MaxBitsPerElement*float64(n)), maxSizeBits)))
	}
	if o.WholeBitsPerElement {
		pl.unit = n
	}
	pl.limit = capBits / pl.unit
	if pl.limit < 1 {
		return txPlan{}, invalidf("memory cap of %d bits below %d bits", capBits, pl.unit)
	}
	return pl, nil
}

// largestFit returns the largest u in [1, limit] with fits(u), given that fits
// is monotone (true, then false), or false if fits(1) is false.
func largestFit(fits func(uint64) bool, limit uint64) (uint64, bool) {
	if limit < 1 || !fits(1) {
		return 0, false
	}
	if fits(limit) {
		return limit, true
	}
	lo, hi := uint64(1), limit // fits(lo), !fits(hi)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

// smallestFit returns the smallest u in [1, limit] with ok(u), given that ok
// is monotone (false, then true), or false if ok(limit) is false.
func smallestFit(ok func(uint64) bool, limit uint64) (uint64, bool) {
	if limit < 1 || !ok(limit) {
		return 0, false
	}
	lo, hi := uint64(0), limit // lo == 0 or !ok(lo); ok(hi)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// OptimizeTransmit returns the classic filter for q.N elements with the
// lowest false-positive rate whose transmission fits the budget z
// (Mitzenmacher, "Compressed Bloom filters", PODC 2001, sections 3–4): the
// integer k in [1, MaxK] and the array size m ≤ the memory cap minimising
// f = (1 − p)^k subject to
//
//	min(m, (1 + ε)·m·H(p)) ≤ z,  p = e^(−k·n/m),
//
// sending the array compressed or, when that is smaller, raw (with ε > 0
// a half-full array is cheaper raw). With Churn and a delta bound, the
// delta must fit too. Ties go to the smaller k.
//
// Method: for each k, f falls as m grows while the full and the delta size
// rise strictly with m (the derivatives are in the source), so the
// feasible m form one interval [1, m_k] and the best shape for that k is
// m_k, found by bisection over integers (or over multiples of n with
// WholeBitsPerElement); the answer is the best of the MaxK rows, which
// [TransmitResult].PerK reports; its Uncompressed field is the standard
// filter of the budget's size, for comparison.
//
// With budget 8 bits per element the standard filter has m/n = 8, k = 6
// and f = 0.0216; a compressed one with m/n = 14 and k = 2 sends 7.923 bits
// per element for f = 0.0177, and with m/n = 92 and k = 1 it reaches
// 0.0108. Without a memory cap and with budgets of 8 bits per element or
// more, the best k is 1 with an array of about 2^(z/n)/e bits per element,
// and f approaches e·2^(−z/n), near the limit of [IdealCompressed].
//
// The rate also falls on the other side of p = 1/2, with many probes over
// a dense array (see [IdealCompressed]); under a tight memory cap or a
// small budget the optimum may lie there, at a large k: budget 16 with
// m/n ≤ 28 gives k = 49 at m/n = 26 (f = 3.12e−4), just ahead of k = 4 at
// m/n = 28 (3.14e−4). Set MaxK to the standard filter's k, as the paper
// does, to keep lookups cheap. Errors wrap [ErrInvalid].
func OptimizeTransmit(q TransmitQuery) (TransmitResult, error) {
	pl, err := q.check(q.N)
	if err != nil {
		return TransmitResult{}, err
	}
	var z float64
	switch {
	case !(q.BitsPerElement >= 0) || math.IsInf(q.BitsPerElement, 1):
		return TransmitResult{}, invalidf("BitsPerElement = %g not a finite number ≥ 0", q.BitsPerElement)
	case (q.BitsPerElement > 0) == (q.TotalBits > 0):
		return TransmitResult{}, invalidf("give exactly one of BitsPerElement and TotalBits")
	case q.TotalBits > 0:
		z = float64(q.TotalBits)
	default:
		z = q.BitsPerElement * float64(q.N)
	}
	if z < 1 {
		return TransmitResult{}, invalidf("budget of %g bits below one bit", z)
	}
	var res TransmitResult
	for k := 1; k <= pl.maxK; k++ {
		fits := func(u uint64) bool {
			s := pl.md.shape(u*pl.unit, k)
			return s.TransmitBits <= z && s.DeltaBits <= pl.delta
		}
		u, ok := largestFit(fits, pl.limit)
		if !ok {
			continue
		}
		s := pl.md.shape(u*pl.unit, k)
		res.PerK = append(res.PerK, s)
		if len(res.PerK) == 1 || s.FalsePositive < res.Best.FalsePositive {
			res.Best = s
		}
	}
	if len(res.PerK) == 0 {
		return TransmitResult{}, invalidf("no filter of %d elements fits in %g bits", q.N, z)
	}
	if units := math.Floor(z / float64(pl.unit)); units >= 1 {
		m := uint64(math.Min(units, float64(pl.limit))) * pl.unit
		best := pl.md.shape(m, 1)
		for k := 2; k <= pl.maxK; k++ {
			if s := pl.md.shape(m, k); s.FalsePositive < best.FalsePositive {
				best = s
			}
		}
		res.Uncompressed = pl.md.raw(best)
	}
	return res, nil
}

// OptimizeTarget solves the dual problem (Mitzenmacher 2001): the classic
// filter for q.N elements with the smallest transmission min(m,
// (1 + ε)·m·H(p)) whose false-positive rate is at most q.P, with m within
// the memory cap and, given Churn and a delta bound, a delta that fits.
// Ties go to the lower rate, then the smaller k.
//
// For each k the rate falls and the transmission rises as m grows (see
// [OptimizeTransmit]), so the best m for k is the smallest that reaches
// q.P, found by bisection; [TransmitResult].PerK lists it for every k where
// it exists within the cap and meets the delta bound, and Uncompressed is
// the smallest standard filter reaching q.P, sent raw. Errors wrap
// [ErrInvalid], including when no shape qualifies.
func OptimizeTarget(q TargetQuery) (TransmitResult, error) {
	pl, err := q.check(q.N)
	if err != nil {
		return TransmitResult{}, err
	}
	if !(q.P > 0 && q.P < 1) {
		return TransmitResult{}, invalidf("p = %g outside (0, 1)", q.P)
	}
	var res TransmitResult
	reached := false
	for k := 1; k <= pl.maxK; k++ {
		u, ok := smallestFit(func(u uint64) bool { return pl.md.rate(u*pl.unit, k) <= q.P }, pl.limit)
		if !ok {
			continue
		}
		s := pl.md.shape(u*pl.unit, k)
		if !reached || s.M < res.Uncompressed.M ||
			s.M == res.Uncompressed.M && s.FalsePositive < res.Uncompressed.FalsePositive {
			res.Uncompressed = pl.md.raw(s)
		}
		reached = true
		if s.DeltaBits > pl.delta {
			continue
		}
		res.PerK = append(res.PerK, s)
		b := res.Best
		if len(res.PerK) == 1 || s.TransmitBits < b.TransmitBits ||
			s.TransmitBits == b.TransmitBits && s.FalsePositive < b.FalsePositive {
			res.Best = s
		}
	}
	switch {
	case !reached:
		return TransmitResult{}, invalidf("no filter of %d elements within the memory cap reaches p = %g", q.N, q.P)
	case len(res.PerK) == 0:
		return TransmitResult{}, invalidf("no filter of %d elements reaching p = %g has a delta within %g bits", q.N, q.P, pl.delta)
	}
	return res, nil
}
