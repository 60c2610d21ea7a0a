package replay

import (
	"fmt"
	"testing"

	bcdigest "github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/hashing"
)

// TestStaticDigestsFrames: the static digests count, for each peer, the
// length of the very frame a publisher of the same configuration emits,
// and each node's view answers as a view that applied those frames.
func TestStaticDigestsFrames(t *testing.T) {
	const nodes, rate = 3, 0.01
	s, err := newStaticDigests(nodes, rate, bcdigest.StaticAddedRemoved)
	if err != nil {
		t.Fatal(err)
	}
	var ref [nodes]*bcdigest.StaticPublisher
	var refViews [nodes]*bcdigest.StaticView
	for i := range ref {
		if ref[i], err = bcdigest.NewStaticPublisher(bcdigest.StaticConfig{Rate: rate, Seed: staticSeed, Codec: bcdigest.Fast}); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(node, lo, hi int) []string {
		var ks []string
		for k := lo; k < hi; k++ {
			ks = append(ks, fmt.Sprintf("http://n%d.example/%d", node, k))
		}
		return ks
	}
	// Each publication is held to 4000 bytes of a Bloom digest: the
	// bytes the deltas save pay for new ribbons.
	const staticBound = 4000
	var want staticCounts
	for seq := uint64(2); seq < 40; seq++ {
		for i := range nodes {
			// Sliding windows of 1000 keys: 2%, 30% and 100% change
			// per publication, so both deltas and new ribbons come.
			lo := int(seq) * []int{20, 300, 1000}[i]
			ks := keys(i, lo, lo+1000)
			if err := s.publish(i, seq, ks, staticBound); err != nil {
				t.Fatal(err)
			}
			hs := make([]hashing.Hash128, len(ks))
			for x, k := range ks {
				hs[x] = hashing.SumStringSeed(k, staticSeed)
			}
			frame, full, err := ref[i].PublishWithin(seq, hs, staticBound)
			if err != nil {
				t.Fatal(err)
			}
			if refViews[i], err = refViews[i].Apply(frame, s.lim); err != nil {
				t.Fatal(err)
			}
			if full {
				want.fullFrames += nodes - 1
				want.fullBytes += (nodes - 1) * uint64(len(frame))
			} else {
				want.deltaFrames += nodes - 1
				want.deltaBytes += (nodes - 1) * uint64(len(frame))
			}
		}
	}
	var r ClusterResult
	if err := s.collect(&r); err != nil {
		t.Fatal(err)
	}
	if r.FullFetches != want.fullFrames || r.DeltaFetches != want.deltaFrames || r.FullDigestBodyBytes != want.fullBytes ||
		r.DeltaBodyBytes != want.deltaBytes || r.DigestBytes != want.fullBytes+want.deltaBytes || want.fullFrames <= 2*nodes || want.deltaFrames == 0 {
		t.Errorf("counted %+v, frames %+v", r, want)
	}
	// Node 1's view of node 0 against the reference view, on keys held,
	// dropped and never held; none of the held keys counts as absent.
	for _, k := range keys(0, 0, 2000) {
		got, wantIn := s.lookup(1, 0)(k), refViews[0].ContainsString(k)
		if got != wantIn {
			t.Fatalf("%s: view says %v, reference %v", k, got, wantIn)
		}
	}
	s.mu.Lock()
	absent := s.counts.absent
	s.mu.Unlock()
	if absent != 1000 { // node 0's last window is [780, 1780)
		t.Errorf("%d absent lookups, want 1000", absent)
	}
}
