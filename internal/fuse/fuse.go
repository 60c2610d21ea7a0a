// Package fuse sizes binary fuse filters, the static filters bloomcast
// compares its ribbon filters with (calc --static, and the bench module
// beside FastFilter's implementation); bloomcast builds none itself.
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
// and the reference implementations cap L at 2^18 ([MaxSegmentLength]).
// At large n the array is 1.125·n (3-wise) or 1.075·n (4-wise) slots:
// 1.125 and 1.075 times the information bound at a rate of 2^−r, against
// 1.23 for xor filters.
package fuse

import (
	"errors"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/params"
)

// ErrInvalid reports parameters no binary fuse filter has.
var ErrInvalid = errors.New("fuse: invalid parameters")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// MaxSegmentLength is the largest segment length of a binary fuse
// filter, 2^18, as in the authors' C and Go implementations.
const MaxSegmentLength = 1 << 18

// MaxBits is the widest binary fuse fingerprint [Shape] sizes.
const MaxBits = 32

// Shape is the shape of a binary fuse filter: its keys, arity,
// fingerprint width and segments. The zero Shape is the empty filter
// (no slots, rate 0).
type Shape struct {
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
func (s Shape) Slots() uint64 { return s.SegmentLength * s.Segments }

// SizeBits returns Slots·r, the size of the fingerprints.
func (s Shape) SizeBits() uint64 { return s.Slots() * uint64(s.Bits) }

// BitsPerKey returns SizeBits/Keys (+Inf without keys).
func (s Shape) BitsPerKey() float64 { return float64(s.SizeBits()) / float64(s.Keys) }

// FalsePositiveRate returns 2^−r, the probability that an absent key's
// fingerprint equals the XOR of its slots; 0 for the empty filter.
func (s Shape) FalsePositiveRate() float64 {
	if s.Slots() == 0 {
		return 0
	}
	return math.Ldexp(1, -s.Bits)
}

// Bound returns n·log2(1/ε) at the shape's rate ([params.MinimumBits]).
func (s Shape) Bound() float64 { return params.MinimumBits(s.Keys, s.FalsePositiveRate()) }

// TimesBound returns SizeBits/Bound.
func (s Shape) TimesBound() float64 { return float64(s.SizeBits()) / s.Bound() }

// String describes the shape: "3-wise, 1152 segments of 4096 slots, r = 8".
func (s Shape) String() string {
	return fmt.Sprintf("%d-wise, %d segments of %d slots, r = %d", s.Arity, s.Segments, s.SegmentLength, s.Bits)
}

// SegmentLength returns the paper's segment length L for n keys and
// the given arity (3 or 4), capped at [MaxSegmentLength] and at
// least 1; 4 for n = 0, as the implementations do.
func SegmentLength(arity int, n uint64) uint64 {
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

// SizeFactor returns the paper's size factor c for n keys and the
// given arity (3 or 4): the array holds round(c·n) slots before rounding
// up to segments. It is 0 for n ≤ 1 (such a filter is the arity segments
// alone).
func SizeFactor(arity int, n uint64) float64 {
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

// OfBits returns the binary fuse shape for n keys with r-bit
// fingerprints and the given arity: round(c·n) slots rounded up to whole
// segments of L, at least arity segments. n = 0 gives the empty shape.
// Errors wrap [ErrInvalid]: arity must be 3 or 4, r in [1, MaxBits].
func OfBits(n uint64, arity, r int) (Shape, error) {
	if arity != 3 && arity != 4 {
		return Shape{}, invalidf("binary fuse arity %d, want 3 or 4", arity)
	}
	if r < 1 || r > MaxBits {
		return Shape{}, invalidf("binary fuse fingerprint of %d bits, want 1 to %d", r, MaxBits)
	}
	if n == 0 {
		return Shape{}, nil
	}
	s := Shape{Keys: n, Arity: arity, Bits: r, SegmentLength: SegmentLength(arity, n)}
	capacity := uint64(math.Round(float64(n) * SizeFactor(arity, n)))
	s.Segments = max(uint64(arity), (capacity+s.SegmentLength-1)/s.SegmentLength)
	return s, nil
}

// Size returns the binary fuse shape for n keys with a rate of at
// most p: r = ⌈log2(1/p)⌉ bits, since a fuse filter's rate is a power of
// two. Errors wrap [ErrInvalid]: p must lie in [2^−32, 1).
func Size(n uint64, arity int, p float64) (Shape, error) {
	if !(p > 0 && p < 1) {
		return Shape{}, invalidf("false-positive rate %g outside (0, 1)", p)
	}
	if p < math.Ldexp(1, -MaxBits) {
		return Shape{}, invalidf("false-positive rate %g below 2^-%d, the rate of the widest fuse fingerprint", p, MaxBits)
	}
	r := int(math.Ceil(-math.Log2(p)))
	if math.Ldexp(1, -(r-1)) <= p { // log2 rounded up past an exact power
		r--
	}
	return OfBits(n, arity, max(1, r))
}
