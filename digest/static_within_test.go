package digest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/ribbon"
)

// staticWithinRun drives a StaticPublisher's PublishWithin and a
// compressed Bloom digest (classic, m/n bits per key of its capacity, k
// hash functions, coded fast: its whole frame, then its deltas; its
// capacity the first set's size) over 40
// publications of the same set of n0 keys changing by a fixed-seed
// pattern: "adds" (up to n0/10 keys added each time, the Bloom digest's
// capacity doubled and the digest sent whole when the set outgrows it,
// as a node grows its summary: node.growSummaries), "mixed" (as many,
// each an addition or a removal) or "heavy" (n0/3 changes each time,
// mixed). It returns the Bloom frames' bytes, the static frames', the
// publisher's Saved after each publication, the publications that
// sent a whole frame (with a new ribbon, or without one), and the means
// over the publications of the receiver's predicted rate
// (StaticView.FalsePositiveRate), of the rate at which it hides a
// present key (the removed filter's or the one filter's share of bits
// set; none beside an empty ribbon, where the one filter holds the set)
// and of the Bloom digest's rate, and the bits its deltas spend to say
// which of the two filters each flip is in (withinRun.directionBits).
func staticWithinRun(t *testing.T, form StaticForm, n0 int, mn uint64, k int, pattern string) withinRun {
	t.Helper()
	var run withinRun
	rng := rand.New(rand.NewPCG(uint64(n0), 7))
	set := staticKeys("w", 0, n0)
	next := n0
	p, err := NewStaticPublisher(StaticConfig{Rate: 1.0 / 256, Seed: staticSeed, Codec: Fast, Form: form})
	if err != nil {
		t.Fatal(err)
	}
	var prev *Digest
	var view *StaticView
	capacity := uint64(n0)
	inRibbon := map[hashing.Hash128]bool{} // the keys of the ribbon the receiver holds
	for seq := uint64(1); seq <= 40; seq++ {
		// The changes of this publication that flip a bit of the added
		// filter (additions, and removals of keys added since the
		// ribbon) and of the removed one.
		var toAdded, toRemoved int
		if seq > 1 {
			c := 1 + rng.IntN(max(1, n0/10))
			if pattern == "heavy" {
				c = n0 / 3
			}
			for range c {
				if pattern != "adds" && rng.IntN(2) == 0 && len(set) > 1 {
					i := rng.IntN(len(set))
					if inRibbon[set[i]] {
						toRemoved++
					}
					set[i] = set[len(set)-1]
					set = set[:len(set)-1]
				} else {
					set = append(set, staticKeys("w", next, next+1)...)
					next++
				}
			}
			toAdded = c - toRemoved
		}
		// The Bloom digest of the set, as a node's counting filter
		// holds it after the same adds and removes. A set of steady
		// size wanders above its first size; its digest keeps that
		// size, the strictest comparison (a node of that capacity
		// would grow it once and send it whole).
		for pattern == "adds" && uint64(len(set)) > capacity {
			capacity *= 2
			prev = nil
		}
		bf, err := bloom.New(bloom.Config{Layout: bloom.Classic, M: mn * capacity, K: k, Seed: staticSeed})
		if err != nil {
			t.Fatal(err)
		}
		bf.AddBatch(set)
		cur := &Digest{Sequence: seq, Bloom: bf}
		var b []byte
		if prev == nil {
			b, err = Encode(cur, Fast)
		} else {
			b, err = AppendDiff(nil, prev, cur, Fast)
		}
		if err != nil {
			t.Fatal(err)
		}
		prev = cur
		frame, full, err := p.PublishWithin(seq, append([]hashing.Hash128(nil), set...), len(b))
		if err != nil {
			t.Fatal(err)
		}
		// The frames still bring a receiver to the set.
		view = mustApply(t, view, frame)
		switch {
		case full:
			clear(inRibbon)
			if view.static.Len() > 0 {
				for _, h := range set {
					inRibbon[h] = true
				}
			}
		case form == StaticAddedRemoved:
			run.directionBits += directionBits(toAdded, toRemoved)
		}
		for _, h := range set[:min(len(set), 50)] {
			if parts := view.parts(); !view.ContainsHash(h) && !parts[len(parts)-1].containsHash(h) {
				t.Fatalf("n0 %d seq %d: a key of the set reported absent", n0, seq)
			}
		}
		run.bloomBytes += len(b)
		run.staticBytes += len(frame)
		run.saved = append(run.saved, p.Saved())
		run.wholes = append(run.wholes, full)
		if int64(run.bloomBytes-run.staticBytes) != p.Saved() {
			t.Fatalf("Saved %d, frames %d against %d", p.Saved(), run.staticBytes, run.bloomBytes)
		}
		run.staticRate += view.FalsePositiveRate() / 40
		if parts := view.parts(); view.static.Len() > 0 || form != StaticXOR {
			run.hideRate += parts[len(parts)-1].fill() / 40
		}
		run.bloomRate += bf.FalsePositiveRate() / 40
	}
	return run
}

// withinRun is what staticWithinRun measures.
type withinRun struct {
	bloomBytes, staticBytes int     // the frames' bytes in all
	saved                   []int64 // the publisher's Saved after each publication
	wholes                  []bool  // the publications that sent a whole frame
	// The means over the publications of the receiver's predicted rate,
	// of the rate at which it hides a present key, and of the Bloom
	// digest's rate.
	staticRate, hideRate, bloomRate float64
	// directionBits is, for the two filters, the sum over the delta
	// publications of directionBits(a, r), a the bits the delta flips in
	// the added filter and r in the removed one (a key of the ribbon
	// removed): what a delta beside a ribbon spends to say which filter
	// each flip is in, and a Bloom delta of one hash function over the
	// whole set need not (a flipped bit says it: set, an addition;
	// cleared, a removal). 0 for StaticXOR.
	directionBits float64
}

// directionBits returns (a+r)·H(a/(a+r)), the least bits that tell which
// a of a+r flips are in one filter and which r in the other.
func directionBits(a, r int) float64 {
	if a == 0 || r == 0 {
		return 0
	}
	n := float64(a + r)
	pa, pr := float64(a)/n, float64(r)/n
	return -n * (pa*math.Log2(pa) + pr*math.Log2(pr))
}

// TestStaticPublishWithinBloomBytes compares a static publisher held to
// a compressed Bloom digest's bytes with that digest, publication by
// publication, at 100 to 10^4 keys and ε = 1/256. The static frames sum
// to no more than the Bloom digest's of k = 2, m/n 31 (1/256), for a set
// of steady size, as a full cache's (mixed and heavy changes), with no
// whole frame after the first sent unpaid, and for a set that only grows
// (adds: about three times its size after 40 publications), whose
// Bloom digest is sent whole at each doubling of its capacity. They do
// so after every publication, not only at the end: the static frames
// sent so far never exceed the Bloom digest's by more than the first
// frame did (the bytes saved, Saved, never fall below the lesser of zero
// and their value after the first frame).
//
// Against the smallest Bloom digest at that rate (k = 1, m/n 256, as
// large as the static digest's delta filters), a removal costs a
// StaticAddedRemoved delta beside a ribbon about one bit more than the
// Bloom delta (which of the two filters; logged), and with one ribbon
// the static frames' excess over that digest's is those direction bits
// less what the first frame saved (checkDirectionAccounts). A StaticXOR
// delta does not pay that bit, and its frames sum to no more than that
// digest's for additions and for mixed changes, after every publication
// (asserted); under heavy churn its one filter, holding additions and
// removals together, outgrows its size twice as fast and forces ribbons
// the saved bytes do not pay for (logged). Each line logs the receivers'
// mean predicted rate beside the Bloom digest's.
func TestStaticPublishWithinBloomBytes(t *testing.T) {
	sizes := []int{100, 300, 1000, 2000, 10000}
	if testing.Short() {
		sizes = sizes[:4]
	}
	for _, ref := range []struct {
		mn        uint64
		k         int
		within    map[string]bool // patterns asserted within the Bloom bytes
		xorWithin map[string]bool // and for StaticXOR besides
	}{
		{31, 2, map[string]bool{"adds": true, "mixed": true, "heavy": true}, nil},
		{256, 1, map[string]bool{}, map[string]bool{"adds": true, "mixed": true}},
	} {
		for _, form := range []StaticForm{StaticAddedRemoved, StaticXOR} {
			for _, pattern := range []string{"adds", "mixed", "heavy"} {
				for _, n0 := range sizes {
					run := staticWithinRun(t, form, n0, ref.mn, ref.k, pattern)
					bloomBytes, staticBytes, saved := run.bloomBytes, run.staticBytes, run.saved
					wholeFrames, least := 0, int64(0)
					for i, s := range saved {
						if run.wholes[i] {
							wholeFrames++
							if i > 0 && s < 0 && ref.within[pattern] {
								t.Errorf("k %d m/n %d %s n0 %d: publication %d sent a whole frame unpaid (saved %d)", ref.k, ref.mn, pattern, n0, i+1, s)
							}
						}
						least = min(least, s)
					}
					t.Logf("%-13v Bloom k = %d, m/n %3d, %-5s %5d keys: static %6d bytes, Bloom %6d (%.3f); first frame %+d; least saved %d; %d whole frames; mean rates ×256: static %.2f (hiding %.2f), Bloom %.2f; direction bits %.0f bytes",
						form, ref.k, ref.mn, pattern, n0, staticBytes, bloomBytes, float64(staticBytes)/float64(bloomBytes), saved[0], least, wholeFrames,
						256*run.staticRate, 256*run.hideRate, 256*run.bloomRate, run.directionBits/8)
					if ref.k == 1 && form == StaticAddedRemoved && wholeFrames == 1 && run.directionBits > 0 {
						checkDirectionAccounts(t, pattern, n0, run)
					}
					if !ref.within[pattern] && (form != StaticXOR || !ref.xorWithin[pattern]) {
						continue
					}
					if staticBytes > bloomBytes {
						t.Errorf("k %d m/n %d %s n0 %d: static %d bytes, Bloom %d", ref.k, ref.mn, pattern, n0, staticBytes, bloomBytes)
					}
					// After every publication, not only at the end: the
					// static frames sent so far exceed the Bloom digest's by
					// no more than the first frame did.
					if floor := min(0, saved[0]); least < floor {
						t.Errorf("k %d m/n %d %s n0 %d: %v behind the Bloom digest by %d bytes at one publication, by %d after the first", ref.k, ref.mn, pattern, n0, form, -least, -floor)
					}
				}
			}
		}
	}
}

// checkDirectionAccounts checks, for a run of the two filters against
// the Bloom digest of one hash function with one ribbon and removals of
// its keys, that the static frames' excess over the Bloom digest's is
// what the direction bits cost less what the first frame saved: each
// flip otherwise costs both digests the same gap code, in filters of the
// same bits. The rest, the frames' own bytes and the coders' rounding,
// stays within 20% of the direction bits (or 64 bytes).
func checkDirectionAccounts(t *testing.T, pattern string, n0 int, run withinRun) {
	t.Helper()
	excess := float64(run.staticBytes - run.bloomBytes)
	predicted := run.directionBits/8 - float64(run.saved[0])
	if off := math.Abs(excess - predicted); off > max(64, 0.2*run.directionBits/8) {
		t.Errorf("%s n0 %d: static frames %.0f bytes over the Bloom digest's; direction bits %.0f bytes less the first frame's saving %d predict %.0f",
			pattern, n0, excess, run.directionBits/8, run.saved[0], predicted)
	}
}

// TestStaticPublishWithinUnpaidBuildsNoRibbon: a publication whose
// changes have outgrown the filters, but which the bytes saved cannot
// pay a whole frame for, is sent as a delta without building the ribbon
// it would not send (StaticFullSize, a whole frame's least length, says
// so first): it allocates less than building that ribbon alone does.
func TestStaticPublishWithinUnpaidBuildsNoRibbon(t *testing.T) {
	const n, share = 50000, 0.01
	cfg := StaticConfig{Rate: 1.0 / 256, Seed: staticSeed, DeltaShare: share}
	p, err := NewStaticPublisher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, full, err := p.PublishWithin(1, staticKeys("u", 0, n), 0); err != nil || !full {
		t.Fatalf("first publication: full %v, %v", full, err)
	}
	// More additions than the filters hold (share·n), fewer than twice
	// that, and a Bloom delta of one byte: the ribbon is not paid for.
	changed := append(staticKeys("u", 0, n), staticKeys("v", 0, n*share*3/2)...)
	unpaid := allocated(func() {
		if _, full, err := p.PublishWithin(2, changed, 1); err != nil || full {
			t.Fatalf("unpaid publication: full %v, %v", full, err)
		}
	})
	ribbonOnly := allocated(func() {
		if _, err := ribbon.BuildHashes(ribbon.Config{Rate: cfg.Rate, Seed: cfg.Seed}, sortedKeys(changed)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("the unpaid delta allocated %d bytes; building the ribbon of its set alone, %d", unpaid, ribbonOnly)
	if unpaid >= ribbonOnly {
		t.Errorf("the unpaid delta allocated %d bytes, building the ribbon alone %d: was the ribbon built?", unpaid, ribbonOnly)
	}
}
