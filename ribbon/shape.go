package ribbon

import (
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/params"
)

// Shapes.
//
// A ribbon filter (Dillinger and Walzer, "Ribbon filter: practically
// smaller than Bloom and Xor", 2021, arXiv:2103.02515) stores, for a
// static set of n keys, the solution Z of a linear system over GF(2): m
// slots of r bits, and for each key an equation saying that the XOR of
// the slots its w-bit coefficient row selects, starting at its own
// start slot, equals its r-bit fingerprint. The rows form a band of
// width w, which is what makes the system solvable by on-the-fly
// Gaussian elimination in linear time. An absent key matches its
// fingerprint with probability 2^−r, so the filter costs m·r bits for a
// rate of 2^−r: (m/n) times the information bound n·log2(1/ε)
// ([params.MinimumBits]).
//
// bloomcast's ribbons have w = 128 ([Width]) and m a multiple of
// 64 (blocks of 64 slots, stored column by column: the interleaved layout
// of the paper). A rate that is not a power of two takes two widths: the
// first h blocks have one column more (r + 1 bits), so a key whose start
// falls there has the rate 2^−(r+1) and the others 2^−r; the filter's
// rate is the mixture ([Shape.FalsePositiveRate]).

// Width is w, the number of slots a ribbon key's coefficient row
// spans.
const Width = 128

// MaxBits is the widest ribbon fingerprint.
const MaxBits = 32

// Shape is the shape of a ribbon filter: its size, its fingerprint
// widths and the keys it holds.
// The zero Shape is the empty filter: no blocks, no keys, and a rate
// of 0 (it reports every key absent).
type Shape struct {
	// Keys is n, the distinct keys the filter holds.
	Keys uint64 `json:"keys"`
	// Blocks is the number of blocks of 64 slots: m = 64·Blocks.
	Blocks uint64 `json:"blocks"`
	// Bits is r, the fingerprint width of the blocks past HiBlocks, 1 to
	// MaxBits.
	Bits int `json:"bits"`
	// HiBlocks is h, the number of leading blocks with one column more
	// (r + 1 bits); 0 when the width is r throughout.
	HiBlocks uint64 `json:"hi_blocks"`
}

// Slots returns m = 64·Blocks.
func (s Shape) Slots() uint64 { return 64 * s.Blocks }

// Starts returns the number of slots a key can start at, m − w + 1 (0 for
// the empty filter).
func (s Shape) Starts() uint64 {
	if s.Blocks == 0 {
		return 0
	}
	return s.Slots() - Width + 1
}

// HiWords returns the length of the (r+1)-th column, in 64-bit words: the
// h blocks of the keys that use it and the two after them (a key's row
// reaches into the next two blocks), at most Blocks; 0 when h is 0.
func (s Shape) HiWords() uint64 {
	if s.HiBlocks == 0 {
		return 0
	}
	return min(s.HiBlocks+2, s.Blocks)
}

// SizeBits returns the size of the solution in bits: 64·(Blocks·r +
// HiWords).
func (s Shape) SizeBits() uint64 { return 64 * (s.Blocks*uint64(s.Bits) + s.HiWords()) }

// BitsPerKey returns SizeBits/Keys (+Inf without keys).
func (s Shape) BitsPerKey() float64 { return float64(s.SizeBits()) / float64(s.Keys) }

// HiFraction returns the probability that a key's start falls in the
// first h blocks, the ones with r + 1 bits: min(64·h, Starts)/Starts.
func (s Shape) HiFraction() float64 {
	if s.Starts() == 0 {
		return 0
	}
	return float64(min(64*s.HiBlocks, s.Starts())) / float64(s.Starts())
}

// FalsePositiveRate returns the probability that an absent key matches:
// 2^−r·(1 − φ/2), φ the HiFraction. It is exact (the fingerprint is
// independent of the row it is compared with) and does not depend on n.
// The empty filter reports nothing: 0.
func (s Shape) FalsePositiveRate() float64 {
	if s.Blocks == 0 {
		return 0
	}
	return math.Ldexp(1-s.HiFraction()/2, -s.Bits)
}

// Bound returns the information bound for the shape's keys at its rate,
// n·log2(1/ε) bits ([params.MinimumBits]).
func (s Shape) Bound() float64 { return params.MinimumBits(s.Keys, s.FalsePositiveRate()) }

// TimesBound returns SizeBits/Bound, how far the filter is from the
// smallest any filter of its keys and rate can be.
func (s Shape) TimesBound() float64 { return float64(s.SizeBits()) / s.Bound() }

// Validate reports whether the shape is one a ribbon filter can have:
// r in [1, MaxBits], h ≤ Blocks and h = 0 when r is the widest,
// at least two blocks (a key's row spans 128 slots) unless empty, and no
// more keys than slots. Errors wrap [ErrConfig].
func (s Shape) Validate() error {
	switch {
	case s.Blocks == 0 && s.Keys == 0 && s.HiBlocks == 0:
		return nil
	case s.Bits < 1 || s.Bits > MaxBits:
		return invalidf("ribbon fingerprint of %d bits, want 1 to %d", s.Bits, MaxBits)
	case s.Blocks < 2:
		return invalidf("ribbon of %d blocks, want at least 2 (a key spans %d slots)", s.Blocks, Width)
	case s.Blocks > maxBlocks:
		return invalidf("ribbon of %d blocks, more than %d", s.Blocks, uint64(maxBlocks))
	case s.HiBlocks > s.Blocks:
		return invalidf("%d blocks of r + 1 bits in a ribbon of %d", s.HiBlocks, s.Blocks)
	case s.HiBlocks > 0 && s.Bits == MaxBits:
		return invalidf("blocks of %d bits: the widest ribbon fingerprint is %d", s.Bits+1, MaxBits)
	case s.Keys > s.Slots():
		return invalidf("%d keys in %d slots", s.Keys, s.Slots())
	}
	return nil
}

// maxBlocks bounds a ribbon's blocks (2^34: 2^40 slots).
const maxBlocks = 1 << 34

// Blocks returns the blocks of 64 slots a ribbon of n keys has:
// m = n·(1 + δ) + w slots, rounded up to whole blocks, and at least two
// blocks. The starts lie in [0, m − w], so n·(1 + δ) slots take the
// starts and the last w − 1 only the rows that spill over from them.
// Elimination fails when, somewhere along the band, more rows pile up
// than w slots can absorb; the pile behaves like a random walk with
// drift −δ, whose maximum over n steps grows like ln n, so the slack
// needed grows like ln(n)/w (Dillinger and Walzer 2021, section 4).
// δ = 0.45·ln(n)/w was measured to fail on 0 to 17% of first attempts
// from 10^5 to 10^7 keys (2.4% at 10^3, 4.0% at 10^5, 5.6% at 10^7);
// construction then tries another salt.
func Blocks(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	m := math.Ceil(float64(n)*(1+ribbonSlack(n)) + Width)
	return max(2, uint64(math.Ceil(m/64)))
}

// ribbonSlack returns δ = 0.45·ln(n)/w, the spare starting slots per key
// of [Blocks] (0 for n ≤ 1).
func ribbonSlack(n uint64) float64 {
	if n <= 1 {
		return 0
	}
	return 0.45 * math.Log(float64(n)) / Width
}

// Size returns the smallest ribbon shape for n keys with a rate of
// at most p: r = ⌊log2(1/p)⌋ bits, and, when 2^−r is above p, the fewest
// blocks of r + 1 bits that bring the rate down to p (or r + 1 bits
// throughout, whichever is smaller). n = 0 gives the empty shape. Errors
// wrap [ErrConfig]: p must lie in (0, 1) and be at least 2^−32, the
// rate of the widest fingerprint.
func Size(n uint64, p float64) (Shape, error) {
	if !(p > 0 && p < 1) {
		return Shape{}, invalidf("false-positive rate %g outside (0, 1)", p)
	}
	if p < math.Ldexp(1, -MaxBits) {
		return Shape{}, invalidf("false-positive rate %g below 2^-%d, the rate of the widest ribbon fingerprint", p, MaxBits)
	}
	if n == 0 {
		return Shape{}, nil
	}
	s := Shape{Keys: n, Blocks: Blocks(n)}
	if s.Blocks > maxBlocks {
		return Shape{}, invalidf("%d keys: a ribbon holds at most about %d", n, uint64(maxBlocks*64))
	}
	r := int(math.Floor(-math.Log2(p)))
	s.Bits = max(1, min(r, MaxBits))
	if s.FalsePositiveRate() <= p {
		return s, nil
	}
	// 2^−r·(1 − φ/2) ≤ p needs φ ≥ 2(1 − p·2^r): the fewest blocks whose
	// starts make up that fraction.
	need := 2 * (1 - math.Ldexp(p, s.Bits))
	h := uint64(math.Ceil(need * float64(s.Starts()) / 64))
	for h > 0 && s.withHi(h-1).FalsePositiveRate() <= p {
		h-- // the ceiling of a rounded product may overshoot by one
	}
	for h < s.Blocks && s.withHi(h).FalsePositiveRate() > p {
		h++
	}
	wide := Shape{Keys: n, Blocks: s.Blocks, Bits: s.Bits + 1}
	if hs := s.withHi(h); hs.SizeBits() < wide.SizeBits() && hs.FalsePositiveRate() <= p {
		return hs, nil
	}
	return wide, nil
}

func (s Shape) withHi(h uint64) Shape { s.HiBlocks = h; return s }

// OfBits returns the ribbon shape for n keys with r-bit
// fingerprints throughout: rate 2^−r. Errors wrap [ErrConfig].
func OfBits(n uint64, r int) (Shape, error) {
	if r < 1 || r > MaxBits {
		return Shape{}, invalidf("ribbon fingerprint of %d bits, want 1 to %d", r, MaxBits)
	}
	if n == 0 {
		return Shape{}, nil
	}
	s := Shape{Keys: n, Blocks: Blocks(n), Bits: r}
	return s, s.Validate()
}

// String describes the shape: "m = 102464 slots (1601 blocks), r = 6
// (+1 in 1153 blocks)".
func (s Shape) String() string {
	if s.HiBlocks == 0 {
		return fmt.Sprintf("m = %d slots (%d blocks), r = %d", s.Slots(), s.Blocks, s.Bits)
	}
	return fmt.Sprintf("m = %d slots (%d blocks), r = %d (+1 in %d blocks)", s.Slots(), s.Blocks, s.Bits, s.HiBlocks)
}

// invalidf is an error wrapping ErrConfig, for a shape that cannot be.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}
