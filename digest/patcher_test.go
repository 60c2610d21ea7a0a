package digest

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

// TestPatchedChecksum: the checksum updated from the changed words (and
// by ChecksumAfter, from the words before and after) is the checksum of
// the changed array, for changes at the ends, in runs and far
// apart.
func TestPatchedChecksum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nw := range []int{1, 7, 100, 5000} {
		for trial := range 20 {
			words := make([]uint64, nw)
			for i := range words {
				words[i] = rng.Uint64()
			}
			crc := wordsChecksum(words)
			var changes []wordChange
			for i := range nw {
				if trial%5 == 0 || rng.IntN(nw) < 3 || i == nw-1 && trial%2 == 0 {
					changes = append(changes, wordChange{Index: uint64(i), XOR: rng.Uint64() | 1})
				}
			}
			var published []counting.WordChange // the same changes as a publisher tracks them
			for _, c := range changes {
				published = append(published, counting.WordChange{Index: c.Index, Old: words[c.Index], New: words[c.Index] ^ c.XOR})
				words[c.Index] ^= c.XOR
			}
			want := wordsChecksum(words)
			if got := patchedChecksum(crc, uint64(nw), changes); got != want {
				t.Fatalf("%d words, %d changes: checksum %08x, want %08x", nw, len(changes), got, want)
			}
			if got := ChecksumAfter(crc, nw, published); got != want {
				t.Fatalf("ChecksumAfter, %d words, %d changes: %08x, want %08x", nw, len(changes), got, want)
			}
		}
	}
}

// TestPatcher: a chain of deltas of every codec applied in place gives
// what Patch gives, with the checksum kept; a delta for another base or a
// corrupt one is refused and leaves the digest as it was.
func TestPatcher(t *testing.T) {
	for _, c := range []bloom.Config{
		{Layout: bloom.Blocked, M: 16 * 3000, K: 11, Seed: 1},
		{Layout: bloom.Classic, M: 10007, K: 3, Seed: 2},
	} {
		base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 1000)}
		p, err := NewPatcher(&Digest{Sequence: 1, Bloom: base.Bloom.Clone()})
		if err != nil {
			t.Fatal(err)
		}
		cur, n := base, 1000
		for step, codec := range []Codec{Auto, Raw, Arith, Fast, Auto, Auto} {
			next := &Digest{Sequence: cur.Sequence + 1, Bloom: cur.Bloom.Clone()}
			add := 5
			if step == 4 {
				add = 800 // dense: not coded as gaps
			}
			for i := n; i < n+add; i++ {
				next.Bloom.Add(key(i))
			}
			n += add
			delta, err := Diff(cur, next, codec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Patch(cur, delta, envelope.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			if err := p.Patch(delta, envelope.Limits{}, &mu); err != nil {
				t.Fatalf("%v step %d: %v", c.Layout, step, err)
			}
			got := p.Digest()
			if !got.Bloom.Equal(want.Bloom) || got.Sequence != want.Sequence || got.Bloom.Count() != want.Bloom.Count() || got.Codec != want.Codec {
				t.Fatalf("%v step %d: the patched digest differs from Patch's", c.Layout, step)
			}
			if crc, _ := Checksum(got); crc != p.Checksum() {
				t.Fatalf("%v step %d: checksum %08x kept, %08x computed", c.Layout, step, p.Checksum(), crc)
			}
			// The same delta again: its base is gone.
			if err := p.Patch(delta, envelope.Limits{}, nil); !errors.Is(err, ErrBase) {
				t.Fatalf("a delta applied twice: %v", err)
			}
			cur = next
		}
		next := &Digest{Sequence: cur.Sequence + 1, Bloom: cur.Bloom.Clone()}
		next.Bloom.Add(key(-1))
		delta, _ := Diff(cur, next, Auto)
		before := p.Digest().Bloom.Clone()
		for i := len(delta) - 3; i < len(delta); i++ {
			bad := append([]byte(nil), delta...)
			bad[i] ^= 0x5a
			if err := p.Patch(bad, envelope.Limits{}, nil); err == nil {
				continue // a flip the checksum of the frame does not cover is still a valid delta
			}
			if !p.Digest().Bloom.Equal(before) || p.Digest().Sequence != cur.Sequence {
				t.Fatalf("a refused delta changed the digest")
			}
		}
	}
	if err := new(Patcher).Patch(nil, envelope.Limits{}, nil); !errors.Is(err, ErrEmpty) {
		t.Fatalf("the zero Patcher: %v", err)
	}
	both := &Digest{Bloom: bloomWith(t, bloom.Config{M: 1024, K: 3}, 0, 10), Counting: countingWith(t, counting.Config{M: 1024, K: 3}, 0, 10)}
	for _, d := range []*Digest{nil, {}, both} {
		if _, err := NewPatcher(d); !errors.Is(err, ErrBase) {
			t.Fatalf("NewPatcher of %+v: %v", d, err)
		}
	}
}

// TestPatcherCounting: a chain of counting deltas of every codec, with
// keys added and removed and counters saturating, applied in place gives
// the counters, bit view, key count and saturation Patch gives, with the
// checksum kept; a delta for another base or a corrupt one is refused and
// leaves the digest as it was.
func TestPatcherCounting(t *testing.T) {
	for _, c := range []counting.Config{
		{Layout: bloom.Blocked, M: 16 * 3000, K: 7, Width: 4, Seed: 1},
		{Layout: bloom.Classic, M: 10007, K: 3, Width: 8, Seed: 2},
		{Layout: bloom.Partitioned, M: 3 * 4001, K: 3, Width: 16, Seed: 3},
	} {
		base := &Digest{Sequence: 1, Counting: countingWith(t, c, 0, 1000)}
		p, err := NewPatcher(&Digest{Sequence: 1, Counting: countingWith(t, c, 0, 1000)})
		if err != nil {
			t.Fatal(err)
		}
		cur := base
		for step, codec := range []Codec{Auto, Raw, Arith, Fast, Auto, Auto} {
			next := &Digest{Sequence: cur.Sequence + 1, Counting: cur.Counting.Clone()}
			for i := 0; i < 5; i++ {
				next.Counting.Add(key(1000 + 10*step + i))
				next.Counting.Remove(key(5*step + i))
			}
			if step == 4 {
				for range 20 { // saturates 4-bit counters
					next.Counting.Add(key(-7))
				}
			}
			delta, err := Diff(cur, next, codec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Patch(cur, delta, envelope.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			if err := p.Patch(delta, envelope.Limits{}, &mu); err != nil {
				t.Fatalf("%v step %d: %v", c.Layout, step, err)
			}
			got, w := p.Digest().Counting, want.Counting
			if !slices.Equal(got.Counters(), w.Counters()) || !slices.Equal(got.BitView().Words(), w.BitView().Words()) ||
				got.Len() != w.Len() || got.Saturated() != w.Saturated() || p.Digest().Sequence != want.Sequence {
				t.Fatalf("%v step %d: the patched digest differs from Patch's (len %d/%d, saturated %d/%d)",
					c.Layout, step, got.Len(), w.Len(), got.Saturated(), w.Saturated())
			}
			if crc, _ := Checksum(p.Digest()); crc != p.Checksum() {
				t.Fatalf("%v step %d: checksum %08x kept, %08x computed", c.Layout, step, p.Checksum(), crc)
			}
			if err := p.Patch(delta, envelope.Limits{}, nil); !errors.Is(err, ErrBase) {
				t.Fatalf("a delta applied twice: %v", err)
			}
			cur = next
		}
		if c.Width == 4 && p.Digest().Counting.Saturated() == 0 {
			t.Fatal("no counter saturated")
		}
		// A delta between filters of another width is refused.
		oc := c
		oc.Width = map[int]int{4: 8, 8: 16, 16: 4}[c.Width]
		o1 := &Digest{Sequence: cur.Sequence, Counting: countingWith(t, oc, 0, 10)}
		o2 := &Digest{Sequence: cur.Sequence + 1, Counting: countingWith(t, oc, 0, 11)}
		other, _ := Diff(o1, o2, Auto)
		before := slices.Clone(p.Digest().Counting.Counters())
		if err := p.Patch(other, envelope.Limits{}, nil); !errors.Is(err, ErrBase) {
			t.Fatalf("a delta of %d-bit counters to %d-bit ones: %v", oc.Width, c.Width, err)
		}
		next := &Digest{Sequence: cur.Sequence + 1, Counting: cur.Counting.Clone()}
		next.Counting.Add(key(-1))
		delta, _ := Diff(cur, next, Auto)
		for i := len(delta) - 3; i < len(delta); i++ {
			bad := append([]byte(nil), delta...)
			bad[i] ^= 0x5a
			if err := p.Patch(bad, envelope.Limits{}, nil); err == nil {
				continue
			}
			if !slices.Equal(p.Digest().Counting.Counters(), before) || p.Digest().Sequence != cur.Sequence {
				t.Fatalf("a refused delta changed the digest")
			}
		}
	}
}

// TestPatcherCountingMemory: a gap-coded counting delta of 100 keys to a
// filter of 10^5 applied in place allocates in proportion to the delta —
// at most 32 bytes per counter it changes, and a few KiB — where Patch
// allocates the counters again.
func TestPatcherCountingMemory(t *testing.T) {
	const n = 100000
	c := counting.Config{Layout: bloom.Blocked, M: 16 * n, K: 11, Width: 4, Seed: 1}
	base := &Digest{Sequence: 1, Counting: countingWith(t, c, 0, n)}
	array := 8 * len(base.Counting.Counters())
	next := &Digest{Sequence: 2, Counting: base.Counting.Clone()}
	for i := n; i < n+100; i++ {
		next.Counting.Add(key(i))
	}
	delta, _ := Diff(base, next, Auto)
	if delta[7] != byte(envelope.CodecGaps) {
		t.Fatalf("the delta is coded with %v, not gaps", envelope.Codec(delta[7]))
	}
	p, err := NewPatcher(&Digest{Sequence: 1, Counting: base.Counting.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	var patchErr error
	inPlace := allocated(func() { patchErr = p.Patch(delta, envelope.Limits{}, nil) })
	if patchErr != nil {
		t.Fatal(patchErr)
	}
	copied := allocated(func() { _, patchErr = Patch(base, delta, envelope.Limits{}) })
	if patchErr != nil {
		t.Fatal(patchErr)
	}
	t.Logf("counters %d B; in place %d B, Patch %d B", array, inPlace, copied)
	if bound := uint64(32*100*c.K + 4096); inPlace > bound || copied < uint64(array) {
		t.Errorf("in place %d B, Patch %d B, for %d B of counters", inPlace, copied, array)
	}
}

// TestPatcherMemory: a gap-coded delta of 100 keys to a filter of 10^6
// applied in place allocates in proportion to the delta — under a
// hundredth of the array — where Patch allocates the array.
func TestPatcherMemory(t *testing.T) {
	const n = 1000000
	c := bloom.Config{Layout: bloom.Blocked, M: 16 * n, K: 11, Seed: 1}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, n)}
	array := 8 * len(base.Bloom.Words())
	next := &Digest{Sequence: 2, Bloom: base.Bloom.Clone()}
	for i := n; i < n+100; i++ {
		next.Bloom.Add(key(i))
	}
	delta, _ := Diff(base, next, Auto)
	if delta[7] != byte(envelope.CodecGaps) {
		t.Fatalf("the delta is coded with %v, not gaps", envelope.Codec(delta[7]))
	}
	p, err := NewPatcher(&Digest{Sequence: 1, Bloom: base.Bloom.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.RWMutex
	var patchErr error
	inPlace := allocated(func() { patchErr = p.Patch(delta, envelope.Limits{}, &mu) })
	if patchErr != nil {
		t.Fatal(patchErr)
	}
	copied := allocated(func() { _, patchErr = Patch(base, delta, envelope.Limits{}) })
	t.Logf("array %d bytes, delta %d bytes: Patcher.Patch allocated %d bytes, Patch %d", array, len(delta), inPlace, copied)
	if inPlace > uint64(array)/100 || inPlace > 32*uint64(len(delta)) || copied < uint64(array) {
		t.Errorf("Patcher.Patch allocated %d bytes for a %d-byte delta to a %d-byte array (Patch: %d)", inPlace, len(delta), array, copied)
	}
	if !p.Digest().Bloom.Equal(next.Bloom) {
		t.Fatal("the patched digest differs")
	}
}

// TestPatcherRawMemory: a raw delta (the XOR in full, as a peer that
// asks for raw sends it) of 100 keys to a filter of 10^6 is read where it
// lies: Patcher.Patch allocates for the changed words, not a decoded
// copy of the 2 MB XOR.
func TestPatcherRawMemory(t *testing.T) {
	const n = 1000000
	c := bloom.Config{Layout: bloom.Blocked, M: 16 * n, K: 11, Seed: 1}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, n)}
	array := 8 * len(base.Bloom.Words())
	next := &Digest{Sequence: 2, Bloom: base.Bloom.Clone()}
	for i := n; i < n+100; i++ {
		next.Bloom.Add(key(i))
	}
	delta, err := Diff(base, next, Raw)
	if err != nil || delta[7] != byte(envelope.CodecRaw) {
		t.Fatalf("raw delta: %v, codec %v", err, envelope.Codec(delta[7]))
	}
	p, err := NewPatcher(&Digest{Sequence: 1, Bloom: base.Bloom.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	var patchErr error
	inPlace := allocated(func() { patchErr = p.Patch(delta, envelope.Limits{}, nil) })
	if patchErr != nil {
		t.Fatal(patchErr)
	}
	t.Logf("array %d bytes, raw delta %d bytes: Patcher.Patch allocated %d bytes", array, len(delta), inPlace)
	if inPlace > uint64(array)/100 {
		t.Errorf("Patcher.Patch allocated %d bytes for a raw delta of 100 keys to a %d-byte array", inPlace, array)
	}
	if crc, _ := Checksum(next); !p.Digest().Bloom.Equal(next.Bloom) || p.Checksum() != crc {
		t.Fatal("the patched digest or its checksum differs")
	}
}

// TestPatcherConcurrent: lookups under the read lock while deltas are
// applied in place (run with -race).
func TestPatcherConcurrent(t *testing.T) {
	c := bloom.Config{Layout: bloom.Blocked, M: 16 * 2000, K: 7, Seed: 3}
	cur := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 1000)}
	p, err := NewPatcher(&Digest{Sequence: 1, Bloom: cur.Bloom.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	var deltas [][]byte
	for s := range 20 {
		next := &Digest{Sequence: cur.Sequence + 1, Bloom: cur.Bloom.Clone()}
		for i := range 20 {
			next.Bloom.Add(key(1000 + 20*s + i))
		}
		d, _ := Diff(cur, next, Auto)
		deltas, cur = append(deltas, d), next
	}
	var mu sync.RWMutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.RLock()
				in := p.Digest().Bloom.Contains(key(i % 1000))
				mu.RUnlock()
				if !in {
					t.Error("a key of every version is missing")
					return
				}
			}
		}()
	}
	for _, d := range deltas {
		if err := p.Patch(d, envelope.Limits{}, &mu); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if !p.Digest().Bloom.Equal(cur.Bloom) {
		t.Fatal("the patched digest differs")
	}
}
