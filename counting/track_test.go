package counting

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// diffWords is the reference for ChangedWords: a full comparison.
func diffWords(old, cur []uint64) []WordChange {
	var out []WordChange
	for i := range cur {
		if old[i] != cur[i] {
			out = append(out, WordChange{uint64(i), old[i], cur[i]})
		}
	}
	return out
}

func diffBits(old, cur []uint64) []uint64 {
	var out []uint64
	for _, c := range diffWords(old, cur) {
		for x := c.Old ^ c.New; x != 0; x &= x - 1 {
			out = append(out, 64*c.Index+uint64(bits.TrailingZeros64(x)))
		}
	}
	return out
}

func checkChanges(t *testing.T, f *Filter, atMark []uint64) {
	t.Helper()
	words, err := f.ChangedWords(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := diffWords(atMark, f.bits); !slices.Equal(words, want) {
		t.Fatalf("ChangedWords: %d words, the full diff has %d", len(words), len(want))
	}
	got, err := f.ChangedBits([]uint64{42})
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]uint64{42}, diffBits(atMark, f.bits)...); !slices.Equal(got, want) {
		t.Fatalf("ChangedBits: %d bits, the full diff has %d", len(got), len(want))
	}
}

func TestChangeTracking(t *testing.T) {
	for _, l := range layouts {
		r := rand.New(rand.NewPCG(uint64(l), 8))
		f := mustNew(t, Config{Layout: l, N: 5000, P: 0.01})
		if _, err := f.ChangedWords(nil); !errors.Is(err, ErrNoMark) || f.Marked() {
			t.Fatalf("%v: changes before any mark: %v", l, err)
		}
		if _, err := f.ChangedBits(nil); !errors.Is(err, ErrNoMark) {
			t.Fatalf("%v: ChangedBits before any mark: %v", l, err)
		}
		mult := make([]int, 8000)
		for epoch := range 12 {
			f.Mark()
			atMark := slices.Clone(f.bits)
			checkChanges(t, f, atMark) // nothing yet
			// Epochs of growing size: the later ones pass the listing
			// limit and switch to a snapshot.
			for range 50 << (epoch / 2) {
				i := r.IntN(len(mult))
				if mult[i] > 0 && r.IntN(2) == 0 {
					if err := f.RemoveString(key(i)); err != nil {
						t.Fatal(err)
					}
					mult[i]--
				} else {
					f.AddString(key(i))
					mult[i]++
				}
			}
			checkChanges(t, f, atMark)
			if f.track.state == trackList && len(f.track.list) > f.track.limit {
				t.Fatalf("%v: list of %d past its limit %d", l, len(f.track.list), f.track.limit)
			}
		}
		if f.track.state != trackSnapshot {
			t.Errorf("%v: the large epochs never switched to a snapshot", l)
		}
		f.Mark()
		atMark := slices.Clone(f.bits)
		f.Clear()
		checkChanges(t, f, atMark)
		f.Unmark()
		if f.Marked() {
			t.Fatal("Unmark left tracking on")
		}
	}
}

// TestFlipBackNotReported adds and removes one key: its bits flip on and
// off again, so nothing differs from the mark.
func TestFlipBackNotReported(t *testing.T) {
	f := mustNew(t, Config{N: 10000, P: 0.01}) // big enough to stay listing
	f.AddString("stays")
	f.Mark()
	f.AddString("visitor")
	if err := f.RemoveString("visitor"); err != nil {
		t.Fatal(err)
	}
	if words, _ := f.ChangedWords(nil); len(words) != 0 {
		t.Fatalf("%d words reported after a change and its undoing", len(words))
	}
	if len(f.track.list) == 0 {
		t.Fatal("the tracker listed nothing")
	}
	// Each touched word is listed once, however often it changes.
	for range 10 {
		f.AddString("visitor")
		_ = f.RemoveString("visitor")
	}
	if len(f.track.list) > f.K() {
		t.Fatalf("%d words listed for one key of %d probes", len(f.track.list), f.K())
	}
}

func TestTrackingThroughAlgebra(t *testing.T) {
	f := mustNew(t, Config{Layout: 3, N: 2000, P: 0.01})
	g := f.Clone()
	for i := range 1000 {
		f.AddString(key(i))
		if i%3 == 0 {
			g.AddString(key(i))
		}
	}
	f.Mark()
	atMark := slices.Clone(f.bits)
	if err := f.Subtract(g); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, f, atMark)
	if err := f.Merge(g); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, f, atMark)
	if words, _ := f.ChangedWords(nil); len(words) != 0 {
		t.Fatalf("subtract then merge back: %d words changed", len(words))
	}
	if f.Clone().Marked() {
		t.Fatal("a clone inherited the mark")
	}
}
