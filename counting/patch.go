package counting

import (
	"fmt"

	"github.com/bloomcast/bloomcast/envelope"
)

// WordXOR is one counter word a delta changes: the word at Index (of
// [Filter.Counters]) is XORed with XOR. The zero WordXOR changes nothing.
type WordXOR struct {
	Index, XOR uint64
}

// PatchWords makes the filter, in place, the one described by h, a
// counting frame's header of the same shape, counter width, minimal
// increase, seed and scheme, whose counter words differ from the
// filter's by changes (in any order, each Index once): it is how a
// receiver applies a delta of counters (package digest) without copying
// the filter. The bit view, the saturated-counter count and the key count
// (h's) follow. Its cost is proportional to the changes. Everything is
// checked before anything changes: a header of another filter is refused
// with an error wrapping [ErrIncompatible], a change past the counters
// with one wrapping [ErrCorrupt], and the filter is then unchanged. Like
// every method that changes the filter, it must not run beside readers.
func (f *Filter) PatchWords(h envelope.Header, changes []WordXOR) error {
	if f == nil || f.m == 0 {
		return fmt.Errorf("%w: a zero Filter has no counters to patch", ErrIncompatible)
	}
	p, err := parseParams(h.Params)
	if err != nil {
		return err
	}
	if h.Type != envelope.TypeCounting || p.shape != f.Shape() || p.width != f.width || p.minInc != f.minInc ||
		h.Seed != f.Seed() || h.Scheme != uint8(f.Scheme().ID()) {
		return fmt.Errorf("%w: the header's shape, counter width, seed or scheme differs from the filter's", ErrIncompatible)
	}
	total := f.m * uint64(f.width)
	for _, c := range changes {
		if c.Index >= uint64(len(f.counters)) {
			return fmt.Errorf("%w: counter word %d of %d", ErrCorrupt, c.Index, len(f.counters))
		}
		if tail := total % 64; tail != 0 && c.Index == uint64(len(f.counters))-1 && c.XOR>>tail != 0 {
			return fmt.Errorf("%w: counters set past counter %d", ErrCorrupt, f.m)
		}
	}
	per := uint64(64) >> f.wShift // counters per word: bits of the view per word
	mask := uint64(1)<<per - 1
	for _, c := range changes {
		old := f.counters[c.Index]
		next := old ^ c.XOR
		f.counters[c.Index] = next
		f.sat += f.saturatedIn(next) - f.saturatedIn(old)
		if f.bits != nil {
			b := c.Index * per
			f.bits[b>>6] = f.bits[b>>6]&^(mask<<(b&63)) | nonZero(next, f.width)<<(b&63)
		}
	}
	f.count = p.count
	return nil
}

// saturatedIn counts the counters of word w at the maximum.
func (f *Filter) saturatedIn(w uint64) uint64 {
	if w == 0 {
		return 0
	}
	var n uint64
	for sh := uint(0); sh < 64; sh += f.width {
		if w>>sh&f.max == f.max {
			n++
		}
	}
	return n
}
