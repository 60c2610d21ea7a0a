package params

import (
	"fmt"
	"math"
)

// Binary fuse filters.
//
// A binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and
// Smaller Than Xor Filters", ACM JEA 27, 2022, arXiv:2201.01174) stores
// an r-bit fingerprint per slot in an array cut into segments of equal
// length; each key maps to arity consecutive segments, one slot in each,
// and the XOR of those slots is its fingerprint. An absent key matches
// with probability 2^−r. The array has c·n slots, c the size factor,
// rounded up to whole segments, plus arity − 1 segments for the keys of
// the last window. The paper (section 5) fits the segment length and the
// size factor that make construction succeed on the first try with high
// probability:
//
//	3-wise: L = 2^⌊ln n/ln 3.33 + 2.25⌋,  c = max(1.125, 0.875 + 0.25·ln 10^6/ln n)
//	4-wise: L = 2^⌊ln n/ln 2.91 − 0.5⌋,   c = max(1.075, 0.77 + 0.305·ln 600000/ln n)
//
// and the reference implementations cap L at 2^18 ([FuseMaxSegmentLength]).
// At large n the array is 1.125·n (3-wise) or 1.075·n (4-wise) slots:
// 1.125 and 1.075 times the information bound at a rate of 2^−r, against
// 1.23 for xor filters.

// FuseMaxSegmentLength is the largest segment length of a binary fuse
// filter, 2^18, as in the authors' C and Go implementations.
const FuseMaxSegmentLength = 1 << 18

// FuseMaxBits is the widest binary fuse fingerprint [FuseShape] sizes.
const FuseMaxBits = 32

// FuseShape is the shape of a binary fuse filter: its keys, arity,
// fingerprint width and segments. The zero FuseShape is the empty filter
// (no slots, rate 0).
type FuseShape struct {
	// Keys is n, the distinct keys the filter holds.
	Keys uint64 `json:"keys"`
	// Arity is the number of slots (and consecutive segments) a key
	// reads: 3 or 4.
	Arity int `json:"arity"`
	// Bits is r, the fingerprint width.
	Bits int `json:"bits"`
	// SegmentLength is L, the slots in a segment, a power of two.
	SegmentLength uint64 `json:"segment_length"`
	// Segments is the number of segments in the array, including the
	// arity − 1 that only the last keys' windows reach.
	Segments uint64 `json:"segments"`
}

// Slots returns the length of the fingerprint array, L·Segments.
func (s FuseShape) Slots() uint64 { return s.SegmentLength * s.Segments }

// SizeBits returns Slots·r, the size of the fingerprints.
func (s FuseShape) SizeBits() uint64 { return s.Slots() * uint64(s.Bits) }

// BitsPerKey returns SizeBits/Keys (+Inf without keys).
func (s FuseShape) BitsPerKey() float64 { return float64(s.SizeBits()) / float64(s.Keys) }

// FalsePositiveRate returns 2^−r, the probability that an absent key's
// fingerprint equals the XOR of its slots; 0 for the empty filter.
func (s FuseShape) FalsePositiveRate() float64 {
	if s.Slots() == 0 {
		return 0
	}
	return math.Ldexp(1, -s.Bits)
}

// Bound returns n·log2(1/ε) at the shape's rate ([MinimumBits]).
func (s FuseShape) Bound() float64 { return MinimumBits(s.Keys, s.FalsePositiveRate()) }

// TimesBound returns SizeBits/Bound.
func (s FuseShape) TimesBound() float64 { return float64(s.SizeBits()) / s.Bound() }

// String describes the shape: "3-wise, 1152 segments of 4096 slots, r = 8".
func (s FuseShape) String() string {
	return fmt.Sprintf("%d-wise, %d segments of %d slots, r = %d", s.Arity, s.Segments, s.SegmentLength, s.Bits)
}

// FuseSegmentLength returns the paper's segment length L for n keys and
// the given arity (3 or 4), capped at [FuseMaxSegmentLength] and at
// least 1; 4 for n = 0, as the implementations do.
func FuseSegmentLength(arity int, n uint64) uint64 {
	if n == 0 {
		return 4
	}
	var e float64
	switch arity {
	case 3:
		e = math.Floor(math.Log(float64(n))/math.Log(3.33) + 2.25)
	case 4:
		e = math.Floor(math.Log(float64(n))/math.Log(2.91) - 0.5)
	default:
		return 0
	}
	e = max(0, min(e, 18))
	return uint64(1) << uint(e)
}

// FuseSizeFactor returns the paper's size factor c for n keys and the
// given arity (3 or 4): the array holds round(c·n) slots before rounding
// up to segments. It is 0 for n ≤ 1 (such a filter is the arity segments
// alone).
func FuseSizeFactor(arity int, n uint64) float64 {
	if n <= 1 {
		return 0
	}
	ln := math.Log(float64(n))
	switch arity {
	case 3:
		return max(1.125, 0.875+0.25*math.Log(1e6)/ln)
	case 4:
		return max(1.075, 0.77+0.305*math.Log(600000)/ln)
	}
	return 0
}

// FuseOfBits returns the binary fuse shape for n keys with r-bit
// fingerprints and the given arity: round(c·n) slots rounded up to whole
// segments of L, at least arity segments. n = 0 gives the empty shape.
// Errors wrap [ErrInvalid]: arity must be 3 or 4, r in [1, FuseMaxBits].
func FuseOfBits(n uint64, arity, r int) (FuseShape, error) {
	if arity != 3 && arity != 4 {
		return FuseShape{}, invalidf("binary fuse arity %d, want 3 or 4", arity)
	}
	if r < 1 || r > FuseMaxBits {
		return FuseShape{}, invalidf("binary fuse fingerprint of %d bits, want 1 to %d", r, FuseMaxBits)
	}
	if n == 0 {
		return FuseShape{}, nil
	}
	s := FuseShape{Keys: n, Arity: arity, Bits: r, SegmentLength: FuseSegmentLength(arity, n)}
	capacity := uint64(math.Round(float64(n) * FuseSizeFactor(arity, n)))
	s.Segments = max(uint64(arity), (capacity+s.SegmentLength-1)/s.SegmentLength)
	return s, nil
}

// FuseSize returns the binary fuse shape for n keys with a rate of at
// most p: r = ⌈log2(1/p)⌉ bits, since a fuse filter's rate is a power of
// two. Errors wrap [ErrInvalid]: p must lie in [2^−32, 1).
func FuseSize(n uint64, arity int, p float64) (FuseShape, error) {
	if !(p > 0 && p < 1) {
		return FuseShape{}, invalidf("false-positive rate %g outside (0, 1)", p)
	}
	if p < math.Ldexp(1, -FuseMaxBits) {
		return FuseShape{}, invalidf("false-positive rate %g below 2^-%d, the rate of the widest fuse fingerprint", p, FuseMaxBits)
	}
	r := int(math.Ceil(-math.Log2(p)))
	if math.Ldexp(1, -(r-1)) <= p { // log2 rounded up past an exact power
		r--
	}
	return FuseOfBits(n, arity, max(1, r))
}
