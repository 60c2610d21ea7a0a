package digest

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

// pieceStreams returns a copy of each piece's coded stream.
func pieceStreams(v *Pieces) [][]byte {
	st, _ := v.state()
	v.rw.RLock()
	defer v.rw.RUnlock()
	out := make([][]byte, len(st.pieces))
	for i := range out {
		out[i] = bytes.Clone(st.pieces[i])
	}
	return out
}

// TestViewPatchPieces applies a chain of deltas (every delta codec) to
// views coded with each piece codec: after each, the view decodes to
// what Patch then EncodePieces give, bit for bit; its coded bytes are
// those of EncodePieces of the patched filter; the pieces the delta does
// not touch keep their bytes; and its checksum is the patched filter's.
func TestViewPatchPieces(t *testing.T) {
	for _, c := range pieceLayouts {
		for _, inner := range []Codec{Arith, Fast} {
			for _, dc := range []Codec{Raw, Arith, Fast} {
				base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 5000)}
				b, _ := EncodePieces(base, inner, 64)
				v, err := DecodePieces(b, envelope.Limits{}, 2)
				if err != nil {
					t.Fatal(err)
				}
				for step := range 3 {
					next := &Digest{Sequence: base.Sequence + 1, Bloom: base.Bloom.Clone()}
					for i := 5000 + 4*step; i < 5004+4*step; i++ {
						next.Bloom.Add(key(i))
					}
					delta, err := Diff(base, next, dc)
					if err != nil {
						t.Fatal(err)
					}
					dd, _ := DecodeDelta(delta, envelope.Limits{})
					before := pieceStreams(v)
					v.Contains(key(5000 + 4*step)) // a cached piece the delta changes
					if err := v.Patch(delta, envelope.Limits{}); err != nil {
						t.Fatalf("%v %v %v step %d: %v", c.Layout, inner, dc, step, err)
					}
					want, _ := EncodePieces(next, inner, 64)
					got, _ := v.AppendBinary(nil)
					if !bytes.Equal(got, want) {
						t.Fatalf("%v %v %v step %d: the patched view's frame differs from EncodePieces of the patched filter", c.Layout, inner, dc, step)
					}
					g, err := v.Filter()
					if err != nil || !g.Equal(next.Bloom) {
						t.Fatalf("%v %v %v: decoded view differs: %v", c.Layout, inner, dc, err)
					}
					after := pieceStreams(v)
					wpp := v.PieceBytes() / 8
					touched := 0
					for i := range after {
						lo := i * wpp
						hi := min(lo+wpp, len(dd.XOR))
						if !slices.ContainsFunc(dd.XOR[lo:hi], func(w uint64) bool { return w != 0 }) {
							if !bytes.Equal(before[i], after[i]) {
								t.Fatalf("%v: untouched piece %d was recoded", c.Layout, i)
							}
						} else {
							touched++
						}
					}
					if touched == 0 || touched == len(after) {
						t.Fatalf("%v: the delta touched %d of %d pieces", c.Layout, touched, len(after))
					}
					if ones, err := v.SetBits(); err != nil || ones != next.Bloom.SetBits() {
						t.Fatalf("%v: view has %d bits set, the filter %d (%v)", c.Layout, ones, next.Bloom.SetBits(), err)
					}
					crc, err := v.Checksum()
					if want, _ := Checksum(next); err != nil || crc != want {
						t.Fatalf("%v: view checksum %08x, the filter's %08x (%v)", c.Layout, crc, want, err)
					}
					for i := 4990; i < 5200; i++ {
						if in, err := v.Contains(key(i)); err != nil || in != next.Bloom.Contains(key(i)) {
							t.Fatalf("%v: key %d after the patch: %v", c.Layout, i, err)
						}
					}
					base = next
				}
			}
		}
	}
}

// TestViewPatchMemory: patching a view of a compressible digest (k = 1,
// m/n = 92: the coded pieces are about a tenth of the array) allocates a
// fraction of the decoded array — the new coded pieces and two pieces'
// words — where patching the decoded digest allocates the array and the
// XOR.
func TestViewPatchMemory(t *testing.T) {
	const n = 50000
	f := bloomWith(t, bloom.Config{Layout: bloom.Classic, M: 92 * n, K: 1, Seed: 1}, 0, n)
	array := 8 * len(f.Words())
	base := &Digest{Sequence: 1, Bloom: f}
	next := &Digest{Sequence: 2, Bloom: f.Clone()}
	for i := n; i < n+200; i++ {
		next.Bloom.Add(key(i))
	}
	for _, dc := range []Codec{Raw, Arith, Fast} {
		delta, _ := Diff(base, next, dc)
		full, _ := Encode(base, Arith)
		v, err := PiecesOf(full, envelope.Limits{}, Arith, 4096, 1)
		if err != nil {
			t.Fatal(err)
		}
		var patchErr error
		viewBytes := allocated(func() { patchErr = v.Patch(delta, envelope.Limits{}) })
		if patchErr != nil {
			t.Fatal(patchErr)
		}
		fullBytes := allocated(func() { _, patchErr = Patch(base, delta, envelope.Limits{}) })
		t.Logf("delta %v: array %d bytes, view holds %d; Pieces.Patch allocated %d bytes, Patch of the decoded digest %d",
			dc, array, v.MemoryBytes(), viewBytes, fullBytes)
		if viewBytes > uint64(array)/4 || fullBytes < uint64(array) {
			t.Errorf("delta %v: Pieces.Patch allocated %d bytes for a %d-byte array (Patch: %d)", dc, viewBytes, array, fullBytes)
		}
		if g, _ := v.Filter(); !g.Equal(next.Bloom) {
			t.Fatalf("delta %v: patched view differs", dc)
		}
	}
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestPiecesOf: a digest sent as one stream (raw, arith, fast) is coded
// again in pieces one piece at a time: the result is EncodePieces' frame,
// and a frame already in pieces is read as it is.
func TestPiecesOf(t *testing.T) {
	for _, c := range pieceLayouts {
		d := &Digest{Sequence: 9, Bloom: bloomWith(t, c, 0, 4000)}
		crc, _ := Checksum(d)
		for _, sent := range []Codec{Raw, Arith, Fast} {
			frame, _ := Encode(d, sent)
			for _, inner := range []Codec{Arith, Fast} {
				v, err := PiecesOf(frame, envelope.Limits{}, inner, 1000, 0)
				if err != nil {
					t.Fatalf("%v from %v: %v", c.Layout, sent, err)
				}
				want, _ := EncodePieces(d, inner, 1000)
				if got, _ := v.AppendBinary(nil); !bytes.Equal(got, want) {
					t.Fatalf("%v from %v: PiecesOf differs from EncodePieces", c.Layout, sent)
				}
				if got, err := v.SetBits(); err != nil || got != d.Bloom.SetBits() {
					t.Fatalf("%v: %d bits set, want %d", c.Layout, got, d.Bloom.SetBits())
				}
				if got, err := v.Checksum(); err != nil || got != crc {
					t.Fatalf("%v: checksum %08x, want %08x", c.Layout, got, crc)
				}
				again, err := PiecesOf(want, envelope.Limits{}, Fast, 8, 0)
				if err != nil || again.PieceBytes() != v.PieceBytes() || again.Codec() != inner {
					t.Fatalf("a frame in pieces was not kept as it is: %v", err)
				}
			}
		}
	}
	cf, _ := Encode(&Digest{Counting: countingWith(t, counting.Config{M: 1024, K: 3}, 0, 10)}, Fast)
	if _, err := PiecesOf(cf, envelope.Limits{}, Fast, 64, 0); !errors.Is(err, ErrCodec) {
		t.Errorf("a counting filter: %v", err)
	}
	d := &Digest{Bloom: bloomWith(t, bloom.Config{Layout: bloom.Classic, M: 4096, K: 2, Seed: 1}, 0, 100)}
	frame, _ := Encode(d, Arith)
	if _, err := PiecesOf(frame, envelope.Limits{MaxPayload: 100}, Fast, 1024, 0); err == nil {
		t.Error("a 512-byte piece under a 100-byte limit")
	}
	var zero Pieces
	if _, err := zero.Contains(key(1)); !errors.Is(err, ErrEmpty) {
		t.Errorf("zero Pieces: %v", err)
	}
	if err := zero.Patch(frame, envelope.Limits{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("zero Pieces patched: %v", err)
	}
}

// TestViewConcurrent runs lookups while the view is patched; run with
// -race. Keys the deltas do not change keep their answers throughout.
func TestViewConcurrent(t *testing.T) {
	c := bloom.Config{Layout: bloom.Blocked, N: 5000, P: 0.01, Seed: 3}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 5000)}
	b, _ := EncodePieces(base, Fast, 256)
	v, err := DecodePieces(b, envelope.Limits{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var deltas [][]byte
	final := base
	for step := range 20 {
		next := &Digest{Sequence: final.Sequence + 1, Bloom: final.Bloom.Clone()}
		for i := 10000 + 10*step; i < 10010+10*step; i++ {
			next.Bloom.Add(key(i))
		}
		d, _ := Diff(final, next, Fast)
		deltas = append(deltas, d)
		final = next
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 300 {
				i := (g*7919 + r*31) % 5000
				if in, err := v.Contains(key(i)); err != nil || !in {
					t.Errorf("stored key %d: %v %v", i, in, err)
					return
				}
			}
		}()
	}
	for _, d := range deltas {
		if err := v.Patch(d, envelope.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if g, _ := v.Filter(); !g.Equal(final.Bloom) {
		t.Fatal("view after concurrent patches differs")
	}
}

// FuzzViewPatch: any bytes given to Patch as a delta either are refused,
// leaving the view as it was, or patch it as Patch patches the decoded
// digest.
func FuzzViewPatch(f *testing.F) {
	c := bloom.Config{Layout: bloom.Classic, M: 2048, K: 2, Seed: 5}
	base := &Digest{Sequence: 1, Bloom: bloomWith(f, c, 0, 60)}
	next := &Digest{Sequence: 2, Bloom: bloomWith(f, c, 0, 70)}
	for _, dc := range []Codec{Raw, Arith, Fast} {
		d, _ := Diff(base, next, dc)
		f.Add(d)
	}
	frame, _ := EncodePieces(base, Fast, 64)
	f.Fuzz(func(t *testing.T, delta []byte) {
		v, err := DecodePieces(frame, fuzzLimits, 2)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := Patch(base, delta, fuzzLimits)
		if err := v.Patch(delta, fuzzLimits); err != nil {
			if got, _ := v.Filter(); !got.Equal(base.Bloom) || v.Sequence() != 1 {
				t.Fatal("a refused delta changed the view")
			}
			return
		}
		if werr != nil {
			t.Fatalf("Pieces.Patch applied a delta Patch refuses: %v", werr)
		}
		if got, _ := v.Filter(); !got.Equal(want.Bloom) || v.Sequence() != want.Sequence {
			t.Fatal("Pieces.Patch and Patch differ")
		}
	})
}

// FuzzPiecesOf: PiecesOf reads what Decode reads, to the same filter.
func FuzzPiecesOf(f *testing.F) {
	for _, b := range goldenDigests(f) {
		f.Add(b)
	}
	stream, pieces := claimedBits(f)
	f.Add(stream)
	f.Add(pieces)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := PiecesOf(data, fuzzLimits, Fast, 64, 1)
		d, derr := Decode(data, fuzzLimits)
		if err != nil {
			return
		}
		if derr != nil {
			t.Fatalf("PiecesOf reads what Decode refuses: %v", derr)
		}
		if got, err := v.Filter(); err == nil && !got.Equal(d.Bloom) {
			t.Fatal("PiecesOf and Decode differ")
		}
	})
}

// TestPiecesPatchGapsMemory: a gap-coded delta of 100 keys to a view of a
// filter of 10^6 keys (pieces of 1 KiB, as a node holds its peers')
// allocates the pieces it touches, coded again, and in proportion to the
// delta — not the array, the coded payload or an index of every piece.
func TestPiecesPatchGapsMemory(t *testing.T) {
	const n, pieceBytes = 1000000, 1024
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, bloom.Config{Layout: bloom.Blocked, M: 16 * n, K: 11, Seed: 1}, 0, n)}
	array := 8 * len(base.Bloom.Words())
	next := &Digest{Sequence: 2, Bloom: base.Bloom.Clone()}
	for i := n; i < n+100; i++ {
		next.Bloom.Add(key(i))
	}
	delta, _ := Diff(base, next, Auto)
	if delta[7] != byte(envelope.CodecGaps) {
		t.Fatalf("the delta is coded with %v, not gaps", envelope.Codec(delta[7]))
	}
	full, _ := Encode(base, Fast)
	v, err := PiecesOf(full, envelope.Limits{}, Fast, pieceBytes, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := pieceStreams(v)
	var patchErr error
	got := allocated(func() { patchErr = v.Patch(delta, envelope.Limits{}) })
	if patchErr != nil {
		t.Fatal(patchErr)
	}
	touched, recoded := 0, 0
	for i, s := range pieceStreams(v) {
		if !bytes.Equal(s, before[i]) {
			touched++
			recoded += len(s)
		}
	}
	t.Logf("array %d bytes, coded %d, delta %d bytes: Pieces.Patch allocated %d bytes, %d pieces (%d bytes) coded again",
		array, v.CodedBytes(), len(delta), got, touched, recoded)
	if touched == 0 || touched > 100 || got > uint64(2*recoded+32*len(delta)+2*pieceBytes) || got > uint64(v.CodedBytes())/4 {
		t.Errorf("Pieces.Patch allocated %d bytes for %d pieces coded again (%d bytes) and a %d-byte delta", got, touched, recoded, len(delta))
	}
	if g, _ := v.Filter(); !g.Equal(next.Bloom) {
		t.Fatal("the patched view differs")
	}
	if crc, _ := Checksum(next); crc != must(v.Checksum()) {
		t.Fatal("the view's checksum is not the patched filter's")
	}
}

func must[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}
