package mht

import (
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/hashing"
)

// Summary maps a key's hash to its type: the sub-table (1..d) holding it,
// or 0 for "not in the table". A table keeps its summary up to date; a
// summary may be wrong in two ways, which the table detects and counts: a
// false positive (a type for an absent key) and a type failure (the wrong
// type for a present key). It must never answer 0 for a key it was given
// and not told to forget.
//
// The zero value, nil, is no summary: a Table without one (Summary returns
// nil) looks a key up by probing its sub-tables.
type Summary interface {
	// Kind names the construction.
	Kind() Kind
	// Levels returns d, the largest type.
	Levels() int
	// Add records that h is stored in sub-table typ. It may refuse with an
	// error (interpolation search's [ErrCollision]), changing nothing.
	Add(h hashing.Hash128, typ int) error
	// Remove forgets h, stored in sub-table typ; it returns [ErrNoDelete]
	// if the summary cannot forget.
	Remove(h hashing.Hash128, typ int) error
	// CanRemove reports whether Remove works.
	CanRemove() bool
	// Type returns h's type, 0 if absent. It allocates nothing.
	Type(h hashing.Hash128) int
	// Clear empties the summary.
	Clear()
	// Count returns the number of items added and not removed.
	Count() uint64
	// Bits returns the summary's size in fast memory.
	Bits() uint64

	// The summary's encoding, a bloomcast frame (docs/FORMAT.md).
	AppendBinary(b []byte) ([]byte, error)
	MarshalBinary() ([]byte, error)
	WriteTo(w io.Writer) (int64, error)
}

// Kind names a summary construction.
// The zero value names no summary: Plan.NewSummary reports ErrConfig for it.
type Kind uint8

// Kinds.
const (
	KindSong        Kind = 1 // Song et al.: a counter per bucket
	KindInterp      Kind = 2 // interpolation search over b-bit hashes
	KindSF          Kind = 3 // single filter
	KindCountingSF  Kind = 4 // single filter with a counter per type per cell
	KindMBF         Kind = 5 // multiple Bloom filters
	KindCountingMBF Kind = 6 // multiple counting Bloom filters
)

var kindNames = [...]string{KindSong: "song", KindInterp: "interp", KindSF: "sf",
	KindCountingSF: "counting-sf", KindMBF: "mbf", KindCountingMBF: "counting-mbf"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the Kind called s (as Kind.String prints it).
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown summary %q (want song, interp, sf, counting-sf, mbf or counting-mbf)", ErrConfig, s)
}

// Kinds lists every summary kind in order.
func Kinds() []Kind {
	return []Kind{KindSong, KindInterp, KindSF, KindCountingSF, KindMBF, KindCountingMBF}
}

func checkType(typ, d int) error {
	if typ < 1 || typ > d {
		return fmt.Errorf("%w: type %d outside [1, %d]", ErrConfig, typ, d)
	}
	return nil
}

// counters are c-bit saturating counters packed in words; a counter that
// reaches its maximum sticks there (it is never decremented), so a
// removal cannot make a stored key look absent.
type counters struct{ a packedArray }

func newCounters(n uint64, c int) counters { return counters{newPacked(n, c)} }

func (c *counters) inc(i uint64) {
	if v := c.a.Get(i); v < c.a.mask {
		c.a.Set(i, v+1)
	}
}

// dec decrements counter i unless it is 0 or stuck at the maximum.
func (c *counters) dec(i uint64) {
	if v := c.a.Get(i); v > 0 && v < c.a.mask {
		c.a.Set(i, v-1)
	}
}

// MaxCounterBits is the widest counter of the counting summaries.
const MaxCounterBits = 16
