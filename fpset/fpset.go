// Package fpset implements hash sets and multisets of fingerprints: each
// key is kept only as a short hash of b bits, so membership answers have
// false positives (an absent key whose fingerprint is stored) and no false
// negatives. This is the seed survey's "hash set of fingerprints"; the
// idea goes back to Carter, Floyd, Gill, Markowsky and Wegman ("Exact and
// approximate membership testers", STOC 1978). With b = c·log2 n bits the
// false-positive rate is at most n/2^b = 1/n^(c−1) (see
// [FalsePositive]).
//
// Three forms hold the same fingerprints:
//
//   - [Set], dynamic: Add, Contains, Remove and Count over an ordered
//     linear-probing table (Amble and Knuth, "Ordered hash tables",
//     Computer Journal 17(2), 1974) of packed b-bit fingerprints, with an
//     optional packed count per fingerprint for multisets. A fingerprint's
//     home slot grows with its value, so the table is always sorted, an
//     unsuccessful search stops at the first larger fingerprint, and the
//     sorted form is the table without its empty slots.
//   - [Sorted], static: the n fingerprints packed in increasing order,
//     b bits each, searched by interpolation (Perl, Itai and Avni,
//     "Interpolation search — a log log N search", CACM 21(7), 1978),
//     expected O(log log n) probes for uniform fingerprints; after a
//     budget of about 2·log2 log2 n probes it bisects instead (in the
//     spirit of Santoro and Sidney, "Interpolation-binary search", IPL
//     20(4), 1985), so no input costs more than O(log n).
//   - [Compressed], static, for transmission: the gaps between sorted
//     fingerprints Golomb–Rice coded (Golomb 1966; Rice 1979; as in the
//     Golomb-compressed sequences of Putze, Sanders and Singler,
//     "Cache-, hash- and space-efficient Bloom filters", WEA 2007), about
//     log2(1/f) + 1.5 bits per key, queried through a sparse index of
//     every 64th fingerprint.
//
// Fingerprints are derived from a key's [hashing.Hash128]; every query has
// a ...Hash form that allocates nothing. The fingerprint 0 is reserved (an
// empty slot), so fingerprints are uniform over 1..2^b − 1. All three forms
// travel in the bloomcast frame as structure type 3 (docs/FORMAT.md).
//
// Removing a key from a set (not a multiset) removes its fingerprint,
// which another key may share: that key then becomes a false negative. A
// multiset counts fingerprints, so removing one of two colliding keys
// leaves the other present.
//
// The mathematics of the sets is here too: [Size] and [OfBits] set a set
// of n keys out as a [Sizing] (its rate, sorted and Rice-coded sizes, the
// entropy bound, and the smallest Bloom filter of the same rate),
// [BitsFor] and [BitsForC] choose the width, and [CrossoverFor] says from
// which width on the set is smaller than a Bloom filter.
package fpset

import (
	"errors"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/hashing"
)

// Limits on the parameters.
const (
	MinBits      = 2  // narrowest fingerprint
	MaxBits      = 64 // widest fingerprint
	MaxCountBits = 32 // widest multiset count
	// MaxLen bounds the number of distinct fingerprints any form holds
	// or decodes (2^40).
	MaxLen = 1 << 40
)

// DefaultC is the fingerprint width factor c used when Config gives
// neither C nor Bits: b = 2·log2 n, so the rate is at most 1/n.
const DefaultC = 2

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig  = errors.New("fpset: invalid configuration")
	ErrCorrupt = errors.New("fpset: corrupt encoding")
)

// Config describes a set.
// The zero Config is not valid: New reports ErrConfig, since it gives
// neither N nor Bits.
type Config struct {
	// N is the expected number of distinct keys: it sizes the initial
	// table and, with C, the fingerprint width. The table grows beyond N
	// as needed, but the width (and so the rate for n keys, at most
	// n/2^Bits) is fixed at construction.
	N uint64
	// C sets the fingerprint width to ceil(C·log2 N) bits, clamped to
	// [MinBits, MaxBits]; the seed survey suggests 2 or 3. Zero means
	// DefaultC unless Bits or P is given.
	C float64
	// Bits is an explicit fingerprint width, MinBits..MaxBits; it
	// overrides C.
	Bits int
	// P, if not 0, is a target false-positive rate in (0, 1): the width
	// is the narrowest whose rate for N distinct keys is at most P
	// ([BitsFor]). It may not be given with Bits or C.
	P float64
	// CountBits makes the set a multiset: each fingerprint carries a
	// saturating count of this many bits (1..MaxCountBits). Zero makes a
	// set, where adding a present key changes nothing.
	CountBits int
	// Seed is the hashing seed, recorded in the encoding.
	Seed uint64
}

// width returns the fingerprint width the configuration asks for.
func (c Config) width() (int, error) {
	if c.P != 0 && (c.Bits != 0 || c.C != 0) {
		return 0, errorf(ErrConfig, "P = %g with Bits = %d and C = %g: give at most one of them", c.P, c.Bits, c.C)
	}
	if c.Bits != 0 {
		if c.Bits < MinBits || c.Bits > MaxBits {
			return 0, errorf(ErrConfig, "Bits = %d outside [%d, %d]", c.Bits, MinBits, MaxBits)
		}
		return c.Bits, nil
	}
	if c.N == 0 {
		return 0, errorf(ErrConfig, "give N ≥ 1 (with C or P) or Bits")
	}
	if c.P != 0 {
		b, err := BitsFor(c.N, c.P)
		if err != nil {
			return 0, configError(err)
		}
		return b, nil
	}
	f := c.C
	if f == 0 {
		f = DefaultC
	}
	if !(f > 0) || math.IsInf(f, 1) {
		return 0, errorf(ErrConfig, "C = %g, want a positive number of bits per log2 N", c.C)
	}
	b, err := BitsForC(c.N, f)
	if err != nil {
		return 0, configError(err)
	}
	return b, nil
}

func (c Config) validate() (int, error) {
	b, err := c.width()
	if err != nil {
		return 0, err
	}
	if c.CountBits < 0 || c.CountBits > MaxCountBits {
		return 0, errorf(ErrConfig, "CountBits = %d outside [0, %d]", c.CountBits, MaxCountBits)
	}
	if c.N > MaxLen {
		return 0, errorf(ErrConfig, "N = %d exceeds the maximum of %d", c.N, uint64(MaxLen))
	}
	return b, nil
}

// shape is what every form shares: the fingerprint and count widths and
// the hashing seed.
type shape struct {
	bits, countBits int
	seed            uint64
}

// universe returns the largest fingerprint, 2^bits − 1.
func (s shape) universe() uint64 { return ^uint64(0) >> (64 - s.bits) }

// maxCount is the saturated count, 2^countBits − 1 (0 for a set).
func (s shape) maxCount() uint64 { return uint64(1)<<s.countBits - 1 }

// fingerprint returns the fingerprint of h for u = 2^bits − 1:
// 1 + Reduce(h.Lo, u), uniform over 1..u.
func fingerprint(h hashing.Hash128, u uint64) uint64 { return 1 + hashing.Reduce(h.Lo, u) }

// Bits returns the fingerprint width.
func (s shape) Bits() int { return s.bits }

// CountBits returns the width of the multiset counts, 0 for a set.
func (s shape) CountBits() int { return s.countBits }

// Seed returns the hashing seed.
func (s shape) Seed() uint64 { return s.seed }

// Hash returns the hash of key under the set's seed, for the ...Hash
// methods.
func (s shape) Hash(key []byte) hashing.Hash128 { return hashing.SumSeed(key, s.seed) }

// HashString is Hash for a string key.
func (s shape) HashString(key string) hashing.Hash128 { return hashing.SumStringSeed(key, s.seed) }

// Fingerprint returns the fingerprint that stands for h in the set:
// 1 + Reduce(h.Lo, 2^Bits − 1), never 0.
func (s shape) Fingerprint(h hashing.Hash128) uint64 { return fingerprint(h, s.universe()) }

// falsePositive returns the probability that an absent key is reported
// present by a form holding d distinct fingerprints: d/(2^Bits − 1), as
// the key's fingerprint is uniform over the 2^Bits − 1 values. For n keys
// added, E[d]/(2^Bits − 1) is FalsePositive(n, Bits).
func (s shape) falsePositive(d uint64) float64 {
	if d == 0 { // also a zero value's, whose universe is empty
		return 0
	}
	return float64(d) / float64(s.universe())
}

// errZero is what the encoders of a zero Set, Sorted or Compressed
// return: with no fingerprint width, there is nothing a decoder accepts.
var errZero = fmt.Errorf("%w: zero value (fingerprint width 0); make a set with New or a decoder", ErrConfig)

// zeroPanic is what a zero value's methods that cannot fail otherwise
// panic with.
const zeroPanic = "fpset: zero value (fingerprint width 0); make a set with New or a decoder"

// errorf wraps sentinel with a formatted detail: "fpset: …: detail".
// configError is a sizing function's error as Config's: the detail after
// ErrConfig's words, without a second "fpset:".
func configError(err error) error {
	if e := (*sizeError)(nil); errors.As(err, &e) {
		return errorf(ErrConfig, "%s", e.detail)
	}
	return fmt.Errorf("%w: %w", ErrConfig, err)
}

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
