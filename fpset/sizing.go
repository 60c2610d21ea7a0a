package fpset

import (
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/params"
)

// Sizing fingerprint sets.
//
// A hash set of fingerprints (the seed survey's "hash set" with its
// elements replaced by short hashes; Carter, Floyd, Gill, Markowsky and
// Wegman, "Exact and approximate membership testers", STOC 1978) stores a
// b-bit fingerprint of each key and answers "present" when a key's
// fingerprint is stored. bloomcast reserves the fingerprint 0 (it marks an
// empty slot), so fingerprints are uniform over U = 2^b − 1 values and an
// absent key is a false positive with probability
//
//	f = 1 − (1 − 1/U)^n ≤ n/U ≈ n/2^b
//
// after n distinct keys were stored (their fingerprints may coincide; a
// set holding d distinct fingerprints has rate exactly d/U, and E[d]/U is
// the formula above). With b = c·log2 n bits, the width the survey
// suggests (c usually 2 or 3), f ≤ n/2^(c·log2 n) = 1/n^(c−1).
//
// Kept sorted, the fingerprints cost b ≈ log2(n/f) bits per key, which
// beats a Bloom filter's 1.44·log2(1/f) only when f is below about
// n^(−2.27). Sent as the gaps between sorted fingerprints, Golomb–Rice
// coded (Golomb, "Run-length encodings", IEEE Trans. Inf. Theory 12(3),
// 1966; Rice, JPL 1979; applied to fingerprints by Putze, Sanders and
// Singler, "Cache-, hash- and space-efficient Bloom filters", WEA 2007),
// they cost about log2(1/f) + 1.5 bits per key: the entropy of the set of
// fingerprints, about log2(1/f) + log2 e ([Entropy]), plus 0.03 to 0.13
// bits for Rice coding; that is within about 1.5 bits of the minimum
// log2(1/f) of any filter ([params.MinimumBits]), and below the Bloom
// filter's size once f is under about 0.1.

// fingerprintUniverse returns U = 2^bits − 1, the number of fingerprint
// values (0 is reserved).
func fingerprintUniverse(bits int) float64 { return math.Ldexp(1, bits) - 1 }

// BitsForC returns ceil(c·log2 n), the fingerprint width of the seed
// survey's hash set for n keys, clamped to [MinBits, MaxBits]. Errors
// wrap [ErrConfig]: n must be at least 1 and c positive and finite.
func BitsForC(n uint64, c float64) (int, error) {
	if n == 0 {
		return 0, invalidf("n = 0: a fingerprint set needs at least one key")
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, invalidf("c = %g, want a positive number of bits per log2 n", c)
	}
	b := math.Ceil(c * math.Log2(float64(n)))
	return int(max(MinBits, min(MaxBits, b))), nil
}

// FalsePositive returns 1 − (1 − 1/U)^n with U = 2^bits − 1: the
// probability that an absent key's fingerprint equals one of the
// fingerprints of n distinct stored keys, uniform and independent. It is
// at most n/U, the union bound. It returns 0 for n = 0 and NaN for a
// width outside [MinBits, MaxBits].
func FalsePositive(n uint64, bits int) float64 {
	if bits < MinBits || bits > MaxBits {
		return math.NaN()
	}
	u := fingerprintUniverse(bits)
	if float64(n) >= u {
		return 1
	}
	return -math.Expm1(float64(n) * math.Log1p(-1/u))
}

// BitsFor returns the smallest fingerprint width whose rate for n keys
// is at most p. Errors wrap [ErrConfig]: n must be at least 1, p in
// (0, 1), and p reachable with 64-bit fingerprints (p ≥ about n/2^64).
func BitsFor(n uint64, p float64) (int, error) {
	if n == 0 {
		return 0, invalidf("n = 0: a fingerprint set needs at least one key")
	}
	if !(p > 0 && p < 1) {
		return 0, invalidf("p = %g outside (0, 1)", p)
	}
	for b := MinBits; b <= MaxBits; b++ {
		if FalsePositive(n, b) <= p {
			return b, nil
		}
	}
	return 0, invalidf("p = %g is below %g, the rate of 64-bit fingerprints for n = %d", p, FalsePositive(n, MaxBits), n)
}

// RiceBitsPerKey returns the expected length per key of the Golomb–Rice
// code with parameter k of the gaps between n sorted fingerprints of the
// given width. The gaps (fingerprint minus previous fingerprint minus one)
// are close to geometric with success probability q = n/U, and the code
// of a gap g is its quotient g >> k in unary (g>>k + 1 bits) and its k low
// bits, so the expectation is
//
//	k + 1 + t/(1 − t),  t = (1 − q)^(2^k).
//
// It returns NaN for invalid arguments (n = 0, a width outside
// [MinBits, MaxBits], k outside [0, bits)).
func RiceBitsPerKey(n uint64, bits, k int) float64 {
	if n == 0 || bits < MinBits || bits > MaxBits || k < 0 || k >= bits {
		return math.NaN()
	}
	q := min(1, float64(n)/fingerprintUniverse(bits))
	if q == 1 {
		return float64(k) + 1
	}
	t := math.Exp(math.Ldexp(1, k) * math.Log1p(-q))
	return float64(k) + 1 + t/(1-t)
}

// BestRiceParameter returns the Rice parameter k that minimises
// [RiceBitsPerKey] for n fingerprints of the given width, and that
// expected length. It is within one of log2(ln 2 · U/n), the optimum of
// Gallager and van Voorhis ("Optimal source codes for geometrically
// distributed integer alphabets", IEEE Trans. Inf. Theory 21(2), 1975).
// Ties go to the smaller k. It returns (0, NaN) for invalid arguments.
func BestRiceParameter(n uint64, bits int) (int, float64) {
	best, bestLen := 0, math.NaN()
	for k := 0; k < bits && k <= MaxBits; k++ {
		if l := RiceBitsPerKey(n, bits, k); !(l >= bestLen) {
			best, bestLen = k, l
		}
	}
	return best, bestLen
}

// Entropy returns log2 C(U, n)/n with U = 2^bits − 1: the bits per key
// that any encoding of a set of n distinct fingerprints of that width
// needs, the limit for a compressed fingerprint set. It is
// about log2(U/n) + log2 e for n ≪ U. It returns NaN for n = 0, n > U or a
// width outside [MinBits, MaxBits].
func Entropy(n uint64, bits int) float64 {
	if n == 0 || bits < MinBits || bits > MaxBits {
		return math.NaN()
	}
	u, k := fingerprintUniverse(bits), float64(n)
	if k > u {
		return math.NaN()
	}
	lk, _ := math.Lgamma(k + 1)
	if k < u/1000 {
		// ln C(u, k) = k·ln u + Σ_{i<k} ln(1 − i/u) − ln k!, and the sum is
		// −k(k−1)/(2u) to within k³/u²; Lgamma(u+1) − Lgamma(u−k+1) would
		// cancel catastrophically for u near 2^64.
		return (k*math.Log(u) - k*(k-1)/(2*u) - lk) / k / math.Ln2
	}
	lu, _ := math.Lgamma(u + 1)
	lr, _ := math.Lgamma(u - k + 1)
	return (lu - lk - lr) / k / math.Ln2
}

// Sizing describes a fingerprint set of n keys next to a classic Bloom
// filter with the same false-positive rate.
// The zero value describes no set; Size and OfBits fill it.
type Sizing struct {
	// N is the number of distinct keys.
	N uint64
	// Bits is the fingerprint width b.
	Bits int
	// FalsePositive is [FalsePositive](N, Bits).
	FalsePositive float64
	// SortedBitsPerKey is the size of the sorted (interpolation-search)
	// form: Bits per key.
	SortedBitsPerKey float64
	// RiceK and CompressedBitsPerKey are the best Rice parameter and the
	// expected size of the gap-coded form ([BestRiceParameter]).
	RiceK                int
	CompressedBitsPerKey float64
	// EntropyBitsPerKey is [Entropy]: no encoding of the fingerprints is
	// smaller.
	EntropyBitsPerKey float64
	// MinimumBitsPerKey is log2(1/FalsePositive), the minimum of any
	// filter with this rate ([params.MinimumBits]).
	MinimumBitsPerKey float64
	// Bloom is the smallest classic Bloom filter with a rate of at most
	// FalsePositive ([params.Size]); M is 0 if no filter with
	// k ≤ params.MaxK reaches it.
	Bloom params.Shape
	// BloomBitsPerKey is Bloom.M/N (+Inf when Bloom.M is 0).
	BloomBitsPerKey float64
}

// TableBitsPerKey returns the memory per key of a dynamic table of
// fingerprints (and countBits-wide counts) filled to the given load.
func (s Sizing) TableBitsPerKey(load float64, countBits int) float64 {
	return float64(s.Bits+countBits) / load
}

// OfBits describes a fingerprint set of n keys with fingerprints of the
// given width. Errors wrap [ErrConfig].
func OfBits(n uint64, bits int) (Sizing, error) {
	if n == 0 {
		return Sizing{}, invalidf("n = 0: a fingerprint set needs at least one key")
	}
	if bits < MinBits || bits > MaxBits {
		return Sizing{}, invalidf("fingerprint width %d outside [%d, %d]", bits, MinBits, MaxBits)
	}
	f := FalsePositive(n, bits)
	k, rice := BestRiceParameter(n, bits)
	s := Sizing{
		N: n, Bits: bits, FalsePositive: f,
		SortedBitsPerKey:     float64(bits),
		RiceK:                k,
		CompressedBitsPerKey: rice,
		EntropyBitsPerKey:    Entropy(n, bits),
		MinimumBitsPerKey:    -math.Log2(f),
		BloomBitsPerKey:      math.Inf(1),
	}
	if f < 1 {
		if b, err := params.Size(params.Classic, n, f, 0); err == nil {
			s.Bloom, s.BloomBitsPerKey = b, b.BitsPerKey(n)
		}
	}
	return s, nil
}

// Size describes the fingerprint set of n keys with the narrowest
// fingerprints whose rate is at most p ([BitsFor]).
func Size(n uint64, p float64) (Sizing, error) {
	b, err := BitsFor(n, p)
	if err != nil {
		return Sizing{}, err
	}
	return OfBits(n, b)
}

// Crossover says, for a number of keys, from which fingerprint width on
// (and so below which false-positive rate) a fingerprint set is smaller
// than a classic Bloom filter with the same rate.
// The zero value means that the Bloom filter is the smaller at every width,
// in memory and in transmission.
type Crossover struct {
	// MemoryBits is the narrowest width from which on (for it and every
	// wider width up to 64 bits) the sorted form, Bits per key, is no
	// larger than the Bloom filter, and MemoryRate its rate; both 0 if the
	// Bloom filter is smaller even at 64 bits.
	MemoryBits int
	MemoryRate float64
	// TransmitBits and TransmitRate are the same for the Rice-coded form
	// (expected size) against the Bloom filter sent raw.
	TransmitBits int
	TransmitRate float64
}

// CrossoverFor returns where a fingerprint set of n keys starts to beat a
// Bloom filter for good ([Crossover]). A Bloom filter costs about
// 1.44·log2(1/f) bits per key and sorted fingerprints log2(n/f), so in
// memory the fingerprints win only below f ≈ n^(−2.27);
// Rice-coded they cost about log2(1/f) + 1.5 and win below f ≈ 0.1. (At
// rates above 0.5 both take about a bit per key and the Rice code may win
// again; those widths are not reported.) A width at which no Bloom filter
// with k ≤ params.MaxK reaches the rate counts as a win for the
// fingerprints. Errors wrap [ErrConfig] (n = 0).
func CrossoverFor(n uint64) (Crossover, error) {
	var c Crossover
	if n == 0 {
		return c, invalidf("n = 0: a fingerprint set needs at least one key")
	}
	memory, transmit := true, true // the condition holds for every width above b
	for b := MaxBits; b >= MinBits && (memory || transmit); b-- {
		s, _ := OfBits(n, b)
		if s.FalsePositive >= 1 {
			break
		}
		if memory = memory && s.SortedBitsPerKey <= s.BloomBitsPerKey; memory {
			c.MemoryBits, c.MemoryRate = b, s.FalsePositive
		}
		if transmit = transmit && s.CompressedBitsPerKey <= s.BloomBitsPerKey; transmit {
			c.TransmitBits, c.TransmitRate = b, s.FalsePositive
		}
	}
	return c, nil
}

// sizeError says what is wrong with the arguments of a sizing function
// and unwraps to ErrConfig. It prints as "fpset: <detail>", without the
// sentinel's words: the detail already says what is invalid.
type sizeError struct{ detail string }

func (e *sizeError) Error() string { return "fpset: " + e.detail }

func (e *sizeError) Unwrap() error { return ErrConfig }

// invalidf returns an error wrapping ErrConfig with a formatted detail.
func invalidf(format string, args ...any) error {
	return &sizeError{detail: fmt.Sprintf(format, args...)}
}
