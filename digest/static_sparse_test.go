package digest

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestSparseBitsXOR: flipping positions in place of rebuilding gives the
// sparseBits that newSparseBits builds from the XOR of the positions, for
// filters from empty to dense, changes from none to more than the ones
// held (so that the low parts' width changes, both ways), and the limit.
func TestSparseBitsXOR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	positions := func(m uint64, n int) []uint64 {
		set := map[uint64]bool{}
		for len(set) < n {
			set[rng.Uint64N(m)] = true
		}
		out := make([]uint64, 0, n)
		for p := range set {
			out = append(out, p)
		}
		slices.Sort(out)
		return out
	}
	for _, m := range []uint64{1, 64, 1000, 1 << 20} {
		for _, ones := range []int{0, 1, 7, 300} {
			for _, changes := range []int{0, 1, 5, 300, 900} {
				ones, changes := min(ones, int(m)), min(changes, int(m))
				old := positions(m, ones)
				diff := positions(m, changes)
				if changes > 2 && ones > 2 {
					diff[0] = old[0] // a one cleared as well as ones set
				}
				slices.Sort(diff)
				diff = slices.Compact(diff)
				b := newSparseBits(m, old)
				want, err := xorSorted(old, diff, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				got, err := b.xor(diff, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				if w := newSparseBits(m, want); !reflect.DeepEqual(got, w) {
					t.Fatalf("m %d, %d ones, %d changes: got l %d, %d ones; want l %d, %d ones",
						m, ones, len(diff), got.l, got.ones(), w.l, w.ones())
				}
				if n := uint64(len(want)); n > 0 {
					if _, err := b.xor(diff, n-1); !errors.Is(err, ErrTooLarge) {
						t.Fatalf("m %d: %d ones past a limit of %d: %v", m, n, n-1, err)
					}
				}
			}
		}
	}
}

// TestSelectInWord: the broadword select finds every one of random words
// of every density, and of the words of one, all and no high bits.
func TestSelectInWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []uint64{1, 1 << 63, ^uint64(0), 0x8000000000000001, 0xff00, 0x0101010101010101}
	for range 2000 {
		w := rng.Uint64()
		for range rng.IntN(4) {
			w &= rng.Uint64() // sparser
		}
		words = append(words, w)
	}
	for _, w := range words {
		r := uint64(0)
		for i := range uint64(64) {
			if w>>i&1 == 0 {
				continue
			}
			if got := selectInWord(w, r); got != i {
				t.Fatalf("selectInWord(%#x, %d) = %d, want %d", w, r, got, i)
			}
			r++
		}
	}
}
