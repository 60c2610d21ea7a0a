package digest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

var pieceLayouts = []bloom.Config{
	{Layout: bloom.Classic, N: 5000, P: 0.01, Seed: 3},
	{Layout: bloom.Partitioned, N: 5000, P: 0.01, Seed: 3},
	{Layout: bloom.Blocked, N: 5000, P: 0.01, Seed: 3},
	{Layout: bloom.Paged, N: 5000, P: 0.01, BlockBits: 4096, Seed: 3},
}

func TestPiecesRoundTrip(t *testing.T) {
	for _, c := range pieceLayouts {
		f := bloomWith(t, c, 0, 5000)
		for _, codec := range []Codec{Arith, Fast, Auto} {
			for _, size := range []int{1, 1024, 1 << 20} {
				b, err := EncodePieces(&Digest{Sequence: 7, Bloom: f}, codec, size)
				if err != nil {
					t.Fatalf("%v %v %d: %v", c.Layout, codec, size, err)
				}
				d, err := Decode(b, envelope.Limits{})
				if err != nil || !d.Bloom.Equal(f) || d.Sequence != 7 || d.Codec != envelope.CodecPieces {
					t.Fatalf("%v %v %d: decoding: %v", c.Layout, codec, size, err)
				}
				v, err := DecodePieces(b, envelope.Limits{}, 1)
				if err != nil {
					t.Fatal(err)
				}
				if want := PieceBytes(f.Shape(), size); v.PieceBytes() != want || want%8 != 0 {
					t.Fatalf("piece bytes %d, want %d", v.PieceBytes(), want)
				}
				if c.Layout == bloom.Blocked || c.Layout == bloom.Paged {
					if v.PieceBytes()%int(f.BlockBits()/8) != 0 {
						t.Fatalf("%v: piece of %d bytes splits blocks", c.Layout, v.PieceBytes())
					}
				}
				for i := 4500; i < 5500; i++ {
					before := v.Decoded()
					in, err := v.Contains(key(i))
					if err != nil || in != f.Contains(key(i)) {
						t.Fatalf("%v %v %d: key %d: view says %v (%v)", c.Layout, codec, size, i, in, err)
					}
					// One piece per key in the blocked and paged layouts:
					// with a one-piece cache, at most one decoding.
					if (c.Layout == bloom.Blocked || c.Layout == bloom.Paged) && v.Decoded()-before > 1 {
						t.Fatalf("%v: a query decoded %d pieces", c.Layout, v.Decoded()-before)
					}
				}
				g, err := v.Filter()
				if err != nil || !g.Equal(f) {
					t.Fatalf("Pieces.Filter: %v", err)
				}
				again, _ := v.AppendBinary(nil)
				if !bytes.Equal(again, b) {
					t.Fatal("Pieces.AppendBinary differs from the frame read")
				}
			}
		}
	}
}

// TestPiecesSizes: smaller pieces cost more bytes, and the whole-stream
// size is the limit for one piece.
func TestPiecesSizes(t *testing.T) {
	f := bloomWith(t, bloom.Config{Layout: bloom.Classic, M: 1 << 18, K: 1, Seed: 1}, 0, 10000)
	whole, _ := Encode(&Digest{Bloom: f}, Arith)
	prev := 0
	for _, size := range []int{256, 1024, 4096, 1 << 15} {
		b, err := EncodePieces(&Digest{Bloom: f}, Arith, size)
		if err != nil {
			t.Fatal(err)
		}
		if prev != 0 && len(b) >= prev {
			t.Errorf("pieces of %d bytes: %d bytes, not fewer than the smaller pieces' %d", size, len(b), prev)
		}
		prev = len(b)
		t.Logf("piece %6d bytes: %d bytes (whole stream %d)", size, len(b), len(whole))
	}
	if prev < len(whole) || prev > len(whole)+64 {
		t.Errorf("one piece: %d bytes, whole stream %d", prev, len(whole))
	}
}

func TestViewPatch(t *testing.T) {
	for _, c := range pieceLayouts {
		base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 5000)}
		next := &Digest{Sequence: 2, Bloom: bloomWith(t, c, 0, 5000)}
		for i := 5000; i < 5020; i++ {
			next.Bloom.Add(key(i))
		}
		delta, err := Diff(base, next, Fast)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := EncodePieces(base, Fast, 512)
		v, err := DecodePieces(b, envelope.Limits{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		v.Contains(key(5001)) // cache a piece that the delta may change
		before := bytes.Clone(v.st.x.streams)
		beforePieces := slices.Clone(v.st.pieces)
		if err := v.Patch(delta, envelope.Limits{}); err != nil {
			t.Fatalf("%v: %v", c.Layout, err)
		}
		if v.Sequence() != 2 {
			t.Errorf("sequence %d after the patch", v.Sequence())
		}
		g, err := v.Filter()
		if err != nil || !g.Equal(next.Bloom) || g.Count() != next.Bloom.Count() {
			t.Fatalf("%v: patched view differs from next: %v", c.Layout, err)
		}
		for i := 4990; i < 5030; i++ {
			if in, _ := v.Contains(key(i)); in != next.Bloom.Contains(key(i)) {
				t.Fatalf("%v: key %d after the patch", c.Layout, i)
			}
		}
		// Twenty keys touch at most 20k pieces; the others' streams are
		// the same bytes.
		same := 0
		for i := range v.Pieces() {
			if p := v.st.pieces[i]; bytes.Contains(before, p) && unsafe.SliceData(p) == unsafe.SliceData(beforePieces[i]) {
				same++ // the same bytes, where they were
			}
		}
		if same < v.Pieces()-20*g.K() {
			t.Errorf("%v: only %d of %d pieces kept their streams", c.Layout, same, v.Pieces())
		}
		// The same delta again: the base is gone.
		if err := v.Patch(delta, envelope.Limits{}); !errors.Is(err, ErrBase) {
			t.Errorf("a second application: %v, want ErrBase", err)
		}
	}
}

func TestPiecesHostile(t *testing.T) {
	f := bloomWith(t, bloom.Config{Layout: bloom.Classic, M: 4096, K: 2, Seed: 1}, 0, 100)
	good, _ := EncodePieces(&Digest{Bloom: f}, Fast, 64)
	h, body, err := envelope.Parse(good, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	refr := func(edit func(h *envelope.Header, body []byte) []byte) []byte {
		hh := h
		hh.Params = bytes.Clone(h.Params)
		b := edit(&hh, bytes.Clone(body))
		out, _ := envelope.AppendHeader(nil, &hh, uint64(len(b)))
		return envelope.AppendTrailer(append(out, b...), 0)
	}
	cases := map[string][]byte{
		"piece size 0":  refr(func(_ *envelope.Header, b []byte) []byte { binary.LittleEndian.PutUint32(b, 0); return b }),
		"piece size 12": refr(func(_ *envelope.Header, b []byte) []byte { binary.LittleEndian.PutUint32(b, 12); return b }),
		"inner raw":     refr(func(_ *envelope.Header, b []byte) []byte { b[4] = 0; return b }),
		"reserved":      refr(func(_ *envelope.Header, b []byte) []byte { b[6] = 1; return b }),
		"short index":   refr(func(_ *envelope.Header, b []byte) []byte { return b[:20] }),
		"end past":      refr(func(_ *envelope.Header, b []byte) []byte { b[8] = 0xff; b[9] = 0xff; return b }),
		"bad stream":    refr(func(_ *envelope.Header, b []byte) []byte { b[len(b)-1] ^= 0x55; b[8+4*8] = 9; return b }),
		"huge m": refr(func(h *envelope.Header, b []byte) []byte {
			binary.LittleEndian.PutUint64(h.Params[8:], 1<<40)
			return b
		}),
	}
	for name, b := range cases {
		if _, err := Decode(b, envelope.Limits{}); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// A frame that claims 2^40 bits in pieces of 8 bytes needs a 2^35-entry
	// index: refused from the payload's length, before allocating.
	huge := cases["huge m"]
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := DecodePieces(huge, envelope.Limits{}, 0); err == nil {
			t.Fatal("huge m: view built")
		}
	})
	if allocs > 10 {
		t.Errorf("refusing 2^40 bits made %v allocations", allocs)
	}
	if _, err := Decode(huge, envelope.Limits{MaxPayload: 1 << 60}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("huge m with a large limit: %v, want ErrCorrupt", err)
	}
	if _, err := EncodePieces(&Digest{Counting: countingWith(t, counting.Config{M: 1024, K: 3}, 0, 10)}, Fast, 64); !errors.Is(err, ErrCodec) {
		t.Errorf("counting filter in pieces: %v", err)
	}
}

func FuzzDecodePieces(f *testing.F) {
	for name, b := range goldenDigests(f) {
		if bytes.Contains([]byte(name), []byte("pieces")) {
			f.Add(b)
		}
	}
	_, pieces := claimedBits(f)
	f.Add(pieces)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodePieces(data, fuzzLimits, 2)
		if err != nil {
			if _, derr := Decode(data, fuzzLimits); derr == nil && bytes.Equal(data[7:8], []byte{3}) {
				t.Fatalf("Decode reads what DecodePieces refuses: %v", err)
			}
			return
		}
		full, derr := Decode(data, fuzzLimits)
		for i := range 50 {
			in, err := v.Contains(key(i))
			if err == nil && derr == nil && in != full.Bloom.Contains(key(i)) {
				t.Fatalf("key %d: view %v, decoded %v", i, in, !in)
			}
		}
	})
}

// claimedBits returns frames of an empty filter that claim 2^40 bits in a
// few hundred bytes: one constant stream, and 128 constant pieces of 2^30
// bytes.
func claimedBits(t testing.TB) (stream, pieces []byte) {
	empty := &Digest{Bloom: bloomWith(t, bloom.Config{Layout: bloom.Classic, M: 4096, K: 2, Seed: 1}, 0, 0)}
	huge := func(h *envelope.Header, body []byte) []byte {
		binary.LittleEndian.PutUint64(h.Params[8:], 1<<40)
		return body
	}
	one, err := Encode(empty, Fast)
	if err != nil {
		t.Fatal(err)
	}
	inPieces, err := EncodePieces(empty, Fast, 512)
	if err != nil {
		t.Fatal(err)
	}
	x, err := parsePieces(payloadOf(t, inPieces), 4096)
	if err != nil {
		t.Fatal(err)
	}
	constant := x.streams[:x.ends[0]]
	pieces = reframed(t, inPieces, func(h *envelope.Header, body []byte) []byte {
		huge(h, body)
		const n = 128
		out := binary.LittleEndian.AppendUint32(nil, MaxPieceBytes)
		out = append(out, body[4:piecesHead]...)
		for i := range n {
			out = binary.LittleEndian.AppendUint32(out, uint32((i+1)*len(constant)))
		}
		return append(out, bytes.Repeat(constant, n)...)
	})
	return reframed(t, one, huge), pieces
}

// TestPiecesClaimedBits checks that the readers of pieces refuse the
// frames of claimedBits: the array's decoded size is checked against the
// limit, as Decode checks it, before the view is built. Coding the one
// stream in pieces asked for 11.8 GB at once; the frame in pieces was
// read, and its first lookup decoded a piece of 1 GiB.
func TestPiecesClaimedBits(t *testing.T) {
	stream, pieces := claimedBits(t)
	cases := []struct {
		name  string
		frame []byte
	}{
		{"one stream", stream},
		{"pieces of 2^30 bytes", pieces},
	}
	for _, c := range cases {
		var err error
		n := minAlloc(func() { _, err = PiecesOf(c.frame, envelope.Limits{}, Fast, 512, 0) })
		if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "digest: ") {
			t.Errorf("%s: PiecesOf: %v, want ErrTooLarge", c.name, err)
		}
		if n > 64*uint64(len(c.frame)) {
			t.Errorf("%s: PiecesOf allocated %d bytes for a frame of %d", c.name, n, len(c.frame))
		}
	}
	if _, err := DecodePieces(pieces, envelope.Limits{}, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("DecodePieces: %v, want ErrTooLarge", err)
	}
}

// payloadOf returns a valid frame's payload.
func payloadOf(t testing.TB, frame []byte) []byte {
	t.Helper()
	_, body, err := envelope.Parse(frame, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// reframed frames again a valid frame whose header and payload (copies)
// edit changed, with a valid checksum.
func reframed(t testing.TB, frame []byte, edit func(h *envelope.Header, body []byte) []byte) []byte {
	t.Helper()
	h, body, err := envelope.Parse(frame, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params = bytes.Clone(h.Params)
	body = edit(&h, bytes.Clone(body))
	out, err := envelope.AppendHeader(nil, &h, uint64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	return envelope.AppendTrailer(append(out, body...), 0)
}

// minAlloc returns the fewest bytes f allocated in three calls.
func minAlloc(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}
