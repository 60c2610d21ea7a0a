package digest

import (
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// TestPeerViewsPatchMemory applies a delta of 100 keys added to a digest
// of 10^6 (blocked, 16 bits per key, k = 11: a node's digest) to each form
// a node holds a peer's Bloom digest in, for each delta codec a peer
// sends, and checks what a patch allocates against the bits it changes:
// the decoded form (Patcher) at most 32 bytes per bit changed, the
// compressed form (Pieces, fast-coded pieces of 1 KiB as a node holds
// them) at most the pieces the delta touches coded again, two pieces'
// words and 32 bytes per bit changed — neither a copy of the 2 MB array
// nor of the coded view. Patch, which returns a new digest, allocates the
// array.
func TestPeerViewsPatchMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a filter of 10^6 keys")
	}
	const n, pieceBytes = 1000000, 1024
	c := bloom.Config{Layout: bloom.Blocked, M: 16 * n, K: 11, Seed: 1}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, n)}
	array := uint64(8 * len(base.Bloom.Words()))
	next := &Digest{Sequence: 2, Bloom: base.Bloom.Clone()}
	for i := n; i < n+100; i++ {
		next.Bloom.Add(key(i))
	}
	full, err := Encode(base, Fast)
	if err != nil {
		t.Fatal(err)
	}
	for _, dc := range []Codec{Raw, Arith, Fast} {
		delta, err := Diff(base, next, dc)
		if err != nil {
			t.Fatal(err)
		}
		dd, _ := DecodeDelta(delta, envelope.Limits{})
		changed := dd.Changed()

		p, err := NewPatcher(&Digest{Sequence: 1, Bloom: base.Bloom.Clone()})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.RWMutex
		var patchErr error
		decoded := allocated(func() { patchErr = p.Patch(delta, envelope.Limits{}, &mu) })
		if patchErr != nil || !p.Digest().Bloom.Equal(next.Bloom) {
			t.Fatalf("delta %v: Patcher.Patch: %v", dc, patchErr)
		}

		v, err := PiecesOf(full, envelope.Limits{}, Fast, pieceBytes, 0)
		if err != nil {
			t.Fatal(err)
		}
		before := pieceStreams(v)
		compressed := allocated(func() { patchErr = v.Patch(delta, envelope.Limits{}) })
		if patchErr != nil {
			t.Fatalf("delta %v: Pieces.Patch: %v", dc, patchErr)
		}
		if g, _ := v.Filter(); !g.Equal(next.Bloom) {
			t.Fatalf("delta %v: the patched view differs", dc)
		}
		touched := 0
		for i, s := range pieceStreams(v) {
			if string(s) != string(before[i]) {
				touched++
			}
		}

		copied := allocated(func() { _, patchErr = Patch(base, delta, envelope.Limits{}) })
		t.Logf("delta %v (%v, %d B, %d bits changed): array %d B, coded view %d B; Patcher.Patch allocated %d B, Pieces.Patch %d B (%d of %d pieces coded again), Patch %d B",
			dc, envelope.Codec(delta[7]), len(delta), changed, array, v.MemoryBytes(), decoded, compressed, touched, len(before), copied)
		if decoded > 32*changed {
			t.Errorf("delta %v: Patcher.Patch allocated %d B for %d bits changed", dc, decoded, changed)
		}
		if bound := uint64(touched)*2*pieceBytes + 2*pieceBytes + 32*changed; compressed > bound {
			t.Errorf("delta %v: Pieces.Patch allocated %d B for %d pieces coded again and %d bits changed (bound %d)", dc, compressed, touched, changed, bound)
		}
		if copied < array {
			t.Errorf("delta %v: Patch allocated %d B, less than the array", dc, copied)
		}
	}
}

// TestStaticViewApplyMemory applies a static delta of 100 keys added to a
// view of 10^5 keys (a node's rate) that already holds 10^4 keys added
// since its ribbon. Apply shares the ribbon with the view before, and
// copies the changed filter's arrays with the delta's bits flipped (a
// view does not change): it allocates in proportion to the ones the
// filters hold after it, at most 8 bytes each (4 for the one, 4 for its
// bucket's start at the least dense) and 8 per one the delta changes.
func TestStaticViewApplyMemory(t *testing.T) {
	v, last := viewBeforeDelta(t)
	var w *StaticView
	var applyErr error
	bytes := allocated(func() { w, applyErr = v.Apply(last, envelope.Limits{}) })
	if applyErr != nil {
		t.Fatal(applyErr)
	}
	if w.static != v.static {
		t.Fatal("Apply copied the ribbon")
	}
	ribbonBytes := w.static.SizeBits() / 8
	held := w.added.bits.ones() + w.removed.bits.ones()
	changed := held - v.added.bits.ones() - v.removed.bits.ones()
	t.Logf("delta of %d B (%d ones more): ribbon %d B shared; filters hold %d ones; Apply allocated %d B", len(last), changed, ribbonBytes, held, bytes)
	if bound := 8*held + 8*changed + 4096; bytes > bound {
		t.Errorf("Apply allocated %d B for filters of %d ones (bound %d) beside a ribbon of %d B", bytes, held, bound, ribbonBytes)
	}
}

// viewBeforeDelta returns a view of 10^5 keys (a node's rate) holding
// 10^4 keys added since its ribbon, and the delta that adds 100 more.
func viewBeforeDelta(tb testing.TB) (v *StaticView, delta []byte) {
	tb.Helper()
	const n = 100000
	p, err := NewStaticPublisher(StaticConfig{Rate: nodeRate, Seed: staticSeed})
	if err != nil {
		tb.Fatal(err)
	}
	for i, added := range []int{0, n / 10, n/10 + 100} {
		frame, full, err := p.Publish(uint64(i+1), staticKeys("v", 0, n+added))
		if err != nil || full != (i == 0) {
			tb.Fatalf("publication %d: full %v, %v", i, full, err)
		}
		if i < 2 {
			if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
				tb.Fatal(err)
			}
		}
		delta = frame
	}
	return v, delta
}
