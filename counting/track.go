package counting

import (
	"fmt"
	"math/bits"
	"slices"
)

// Change tracking. A cache publishes its bit view to peers, first whole,
// then as deltas (Mitzenmacher, "Compressed Bloom filters", 2002: a delta
// is old XOR new). Building a delta must cost in proportion to the changes,
// not to m, so the filter records which words of the view it touched since
// the mark, each once, with its value at the mark:
//
//   - a bitmap with one bit per view word says whether the word is listed,
//     so a word is listed on its first change only (the list never grows
//     past the number of words);
//   - the list holds (word, value at the mark) pairs, so the change of a
//     word is exactly old XOR current: a bit that flipped and flipped back
//     is not reported.
//
// When the list passes a quarter of the view's words, it costs half as much
// as a copy of the view and a delta would be about as large as the whole;
// the tracker then takes that copy (the view at the mark, rebuilt from the
// list) and stops listing, so its memory stays below one view. Collecting
// changes then compares the two arrays: still proportional to the changes,
// which are at least a quarter of the words.

type trackState uint8

const (
	trackOff      trackState = iota // no mark: nothing recorded
	trackList                       // listing touched words
	trackSnapshot                   // holding a copy of the view at the mark
)

type tracker struct {
	state  trackState
	listed []uint64    // one bit per view word: listed since the mark
	list   []wordValue // touched words and their values at the mark
	limit  int         // the list length that switches to a snapshot
	base   []uint64    // trackSnapshot: the view at the mark
}

type wordValue struct{ index, old uint64 }

// note lists word i of view on its first change since the mark. It runs
// before the word changes, so view[i] is still the value at the mark.
func (t *tracker) note(i uint64, view []uint64) {
	if t.listed[i>>6]&(1<<(i&63)) != 0 {
		return
	}
	t.listed[i>>6] |= 1 << (i & 63)
	t.list = append(t.list, wordValue{i, view[i]})
	if len(t.list) > t.limit {
		t.snapshot(view)
	}
}

// snapshot switches to a copy of the view at the mark: the current view
// with every listed word put back to its old value.
func (t *tracker) snapshot(view []uint64) {
	t.base = slices.Clone(view)
	for _, e := range t.list {
		t.base[e.index] = e.old
		t.listed[e.index>>6] &^= 1 << (e.index & 63)
	}
	t.list = t.list[:0]
	t.state = trackSnapshot
}

// Mark starts a new epoch: ChangedWords and ChangedBits will report the
// changes of the bit view from now on. The first Mark turns change tracking
// on (a filter that is never marked records nothing); its cost is then
// proportional to the changes since the previous mark, or one pass over
// the view's words after a very large epoch. A cache marks right after it
// publishes a digest.
//
// A filter without a bit view (Config.NoBitView) has nothing to track:
// Mark does nothing, Marked stays false, and ChangedWords and ChangedBits
// return ErrNoBitView.
func (f *Filter) Mark() {
	if f.bits == nil {
		return
	}
	t := &f.track
	switch t.state {
	case trackOff:
		t.listed = make([]uint64, (len(f.bits)+63)/64)
		t.limit = max(len(f.bits)/4, 1)
	case trackList:
		for _, e := range t.list {
			t.listed[e.index>>6] &^= 1 << (e.index & 63)
		}
		t.list = t.list[:0]
	case trackSnapshot:
		t.base = nil
	}
	t.state = trackList
}

// Marked reports whether Mark has been called, so that changes are being
// tracked.
func (f *Filter) Marked() bool { return f.track.state != trackOff }

// Unmark stops change tracking and releases its memory.
func (f *Filter) Unmark() { f.track = tracker{} }

// WordChange is one word of the bit view that differs from the mark: bits
// [64·Index, 64·Index+64) were Old and are New. Old XOR New is the delta.
// The zero value says that word 0 was 0 and is 0: no change.
type WordChange struct {
	Index    uint64
	Old, New uint64
}

// ChangedWords appends to dst the words of the bit view whose value
// differs from their value at the last Mark, in increasing Index order, and
// returns the extended slice. The report is exact: a bit that changed and
// changed back is not in it. Its cost is proportional to the number of
// words touched since the mark (plus sorting them), not to the filter's
// size. Without a mark it returns ErrNoMark, and without a bit view
// (Config.NoBitView) ErrNoBitView.
func (f *Filter) ChangedWords(dst []WordChange) ([]WordChange, error) {
	if f.bits == nil {
		return dst, fmt.Errorf("%w: no changes to report", ErrNoBitView)
	}
	t := &f.track
	switch t.state {
	case trackOff:
		return dst, fmt.Errorf("%w: call Mark before asking for changes", ErrNoMark)
	case trackSnapshot:
		for i, w := range f.bits {
			if old := t.base[i]; old != w {
				dst = append(dst, WordChange{uint64(i), old, w})
			}
		}
		return dst, nil
	}
	start := len(dst)
	for _, e := range t.list {
		if w := f.bits[e.index]; w != e.old {
			dst = append(dst, WordChange{e.index, e.old, w})
		}
	}
	slices.SortFunc(dst[start:], func(a, b WordChange) int {
		switch {
		case a.Index < b.Index:
			return -1
		case a.Index > b.Index:
			return 1
		}
		return 0
	})
	return dst, nil
}

// ChangedBits appends to dst the positions of the view's bits whose value
// differs from the last Mark, in increasing order, and returns the extended
// slice. It is ChangedWords one bit at a time; see there for the cost.
// Without a mark it returns ErrNoMark, and without a bit view
// ErrNoBitView.
func (f *Filter) ChangedBits(dst []uint64) ([]uint64, error) {
	words, err := f.ChangedWords(nil)
	if err != nil {
		return dst, err
	}
	for _, c := range words {
		for x := c.Old ^ c.New; x != 0; x &= x - 1 {
			dst = append(dst, 64*c.Index+uint64(bits.TrailingZeros64(x)))
		}
	}
	return dst, nil
}
