package digest

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

func TestDiffPatchBloom(t *testing.T) {
	const n = 20000
	for _, l := range []bloom.Layout{bloom.Classic, bloom.Partitioned, bloom.Blocked, bloom.Paged} {
		c := bloom.Config{Layout: l, M: 16 * n, K: 4, Seed: 9}
		// 1% churn: the next version drops the first n/100 keys and adds
		// n/100 new ones.
		base := &Digest{Sequence: 7, Bloom: bloomWith(t, c, 0, n)}
		next := &Digest{Sequence: 8, Bloom: bloomWith(t, c, n/100, n+n/100)}
		full, err := Encode(next, Auto)
		if err != nil {
			t.Fatal(err)
		}
		for _, codec := range allCodecs {
			delta, err := Diff(base, next, codec)
			if err != nil {
				t.Fatalf("%v %v: %v", l, codec, err)
			}
			got, err := Patch(base, delta, envelope.Limits{})
			if err != nil {
				t.Fatalf("%v %v: patch: %v", l, codec, err)
			}
			if !got.Bloom.Equal(next.Bloom) || got.Sequence != 8 || got.Bloom.Count() != next.Bloom.Count() {
				t.Fatalf("%v %v: patched filter differs from next", l, codec)
			}
			if codec != Raw && len(delta) >= len(full)/2 {
				t.Errorf("%v %v: delta of %d bytes at 1%% churn, full digest %d", l, codec, len(delta), len(full))
			}
		}
	}
}

func TestDiffPatchCounting(t *testing.T) {
	for _, width := range []int{4, 8, 16} {
		c := counting.Config{M: 8192, K: 3, Width: width, Seed: 2}
		base := &Digest{Sequence: 1, Counting: countingWith(t, c, 0, 500)}
		next := &Digest{Sequence: 5, Counting: countingWith(t, c, 20, 520)}
		for _, codec := range allCodecs {
			delta, err := Diff(base, next, codec)
			if err != nil {
				t.Fatalf("width %d %v: %v", width, codec, err)
			}
			got, err := Patch(base, delta, envelope.Limits{})
			if err != nil {
				t.Fatalf("width %d %v: %v", width, codec, err)
			}
			if !got.Filter().Equal(next.Filter()) || got.Counting.Len() != next.Counting.Len() ||
				string(u64bytes(got.Counting.Counters())) != string(u64bytes(next.Counting.Counters())) {
				t.Fatalf("width %d %v: patched filter differs", width, codec)
			}
		}
	}
}

// TestDiffPatchCountersOnly: counting filters built without a bit view
// (counting.Config.NoBitView) diff and patch as others do; the patched
// filter, decoded, has a view.
func TestDiffPatchCountersOnly(t *testing.T) {
	c := counting.Config{M: 8192, K: 3, Seed: 2, NoBitView: true}
	base := &Digest{Sequence: 1, Counting: countingWith(t, c, 0, 500)}
	next := &Digest{Sequence: 2, Counting: countingWith(t, c, 20, 520)}
	if base.Filter() != nil {
		t.Fatal("Filter of a counters-only digest is not nil")
	}
	for _, codec := range allCodecs {
		delta, err := Diff(base, next, codec)
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		got, err := Patch(base, delta, envelope.Limits{})
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		if !got.Counting.Equal(next.Counting) || got.Counting.Len() != next.Counting.Len() || got.Filter() == nil {
			t.Fatalf("%v: patched filter differs", codec)
		}
	}
	other := &Digest{Sequence: 2, Counting: countingWith(t, counting.Config{M: 8192, K: 4, Seed: 2, NoBitView: true}, 0, 10)}
	if _, err := Diff(base, other, Fast); !errors.Is(err, ErrBase) {
		t.Fatalf("diff against another shape: %v", err)
	}
}

func TestPatchRefusesOtherBase(t *testing.T) {
	c := bloom.Config{M: 1 << 14, K: 3, Seed: 1}
	base := &Digest{Sequence: 3, Bloom: bloomWith(t, c, 0, 1000)}
	next := &Digest{Sequence: 4, Bloom: bloomWith(t, c, 10, 1010)}
	delta, err := Diff(base, next, Fast)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*Digest{
		"another sequence":          {Sequence: 2, Bloom: base.Bloom},
		"same sequence, other bits": {Sequence: 3, Bloom: bloomWith(t, c, 0, 999)},
		"another seed":              {Sequence: 3, Bloom: bloomWith(t, bloom.Config{M: 1 << 14, K: 3, Seed: 2}, 0, 1000)},
		"another size":              {Sequence: 3, Bloom: bloomWith(t, bloom.Config{M: 1 << 15, K: 3, Seed: 1}, 0, 1000)},
		"a counting filter":         {Sequence: 3, Counting: countingWith(t, counting.Config{M: 1 << 14, K: 3, Seed: 1}, 0, 1000)},
		"the next itself":           next,
	}
	for name, b := range cases {
		if _, err := Patch(b, delta, envelope.Limits{}); !errors.Is(err, ErrBase) {
			t.Errorf("%s: %v, want ErrBase", name, err)
		}
	}
	// The right base still works, and was not modified by the attempts.
	got, err := Patch(base, delta, envelope.Limits{})
	if err != nil || !got.Bloom.Equal(next.Bloom) {
		t.Fatalf("right base: %v", err)
	}
	if !base.Bloom.Equal(bloomWith(t, c, 0, 1000)) {
		t.Fatal("Patch modified its base")
	}
}

func TestDiffErrors(t *testing.T) {
	c := bloom.Config{M: 1 << 12, K: 3}
	a := &Digest{Sequence: 5, Bloom: bloomWith(t, c, 0, 10)}
	b := &Digest{Sequence: 5, Bloom: bloomWith(t, c, 0, 20)}
	if _, err := Diff(a, b, Fast); !errors.Is(err, ErrSequence) {
		t.Errorf("equal sequences: %v", err)
	}
	b.Sequence = 6
	other := &Digest{Sequence: 6, Bloom: bloomWith(t, bloom.Config{M: 1 << 13, K: 3}, 0, 20)}
	if _, err := Diff(a, other, Fast); !errors.Is(err, ErrBase) {
		t.Errorf("other shapes: %v", err)
	}
	delta, _ := Diff(a, b, Fast)
	if _, err := Decode(delta, envelope.Limits{}); !errors.Is(err, ErrDelta) {
		t.Errorf("Decode of a delta: %v, want ErrDelta", err)
	}
	full, _ := Encode(b, Fast)
	if _, err := Patch(a, full, envelope.Limits{}); !errors.Is(err, ErrDelta) {
		t.Errorf("Patch with a full digest: %v, want ErrDelta", err)
	}
	if _, err := Patch(a, delta, envelope.Limits{MaxPayload: 64}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Patch over the limit: %v, want ErrTooLarge", err)
	}
	dh, _, err := ParseDelta(delta, envelope.Limits{})
	if err != nil || dh.BaseSequence != 5 || dh.Sequence != 6 || dh.Target != envelope.TypeBloom {
		t.Errorf("ParseDelta: %+v %v", dh, err)
	}
	if crc, _ := Checksum(a); crc != dh.BaseChecksum {
		t.Errorf("checksum %08x, delta names %08x", crc, dh.BaseChecksum)
	}
}

func TestDecodeDelta(t *testing.T) {
	c := bloom.Config{M: 1 << 14, K: 3, Seed: 4}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 1000)}
	// 5% of the keys replaced: about 1.5% of the bits change, a sparse
	// XOR coded as gaps; 50%: a dense one, coded as asked.
	for _, tc := range []struct {
		from  int
		codec envelope.Codec
	}{{50, envelope.CodecGaps}, {500, envelope.CodecArith}} {
		next := &Digest{Sequence: 2, Bloom: bloomWith(t, c, tc.from, 1000+tc.from)}
		delta, err := Diff(base, next, Arith)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeDelta(delta, envelope.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var want uint64
		for i, w := range base.Bloom.Words() {
			x := w ^ next.Bloom.Words()[i]
			for ; x != 0; x &= x - 1 {
				want++
			}
		}
		if d.Changed() != want || d.Bits != 1<<14 || d.Codec != tc.codec {
			t.Fatalf("changed %d bits of %d with %v, want %d of %d with %v", d.Changed(), d.Bits, d.Codec, want, 1<<14, tc.codec)
		}
		// Independent changes: both codes are within a few bytes of the
		// entropy.
		if over := float64(8*d.PayloadBytes) - d.EntropyBits(); over < -8*16 || over > 8*16 {
			t.Errorf("%v delta %d bytes, entropy %.0f bits", d.Codec, d.PayloadBytes, d.EntropyBits())
		}
	}
}

func TestAppendDeltaXOR(t *testing.T) {
	c := bloom.Config{M: 1 << 14, K: 3, Seed: 4}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 1000)}
	next := &Digest{Sequence: 2, Bloom: bloomWith(t, c, 50, 1050)}
	want, _ := Diff(base, next, Fast)
	xor := make([]uint64, len(base.Bloom.Words()))
	for i := range xor {
		xor[i] = base.Bloom.Words()[i] ^ next.Bloom.Words()[i]
	}
	crc, _ := Checksum(base)
	got, err := AppendDeltaXOR(nil, next, 1, crc, xor, Fast)
	if err != nil || string(got) != string(want) {
		t.Fatalf("AppendDeltaXOR differs from Diff (%v)", err)
	}
	if _, err := AppendDeltaXOR(nil, next, 1, crc, xor[1:], Fast); !errors.Is(err, ErrBase) {
		t.Errorf("short XOR: %v", err)
	}
	if _, err := AppendDeltaXOR(nil, next, 2, crc, xor, Fast); !errors.Is(err, ErrSequence) {
		t.Errorf("same sequence: %v", err)
	}
}

// TestDiffPatchEstimatedCount: a delta to a filter whose count is
// estimated (format version 2) is a version-2 frame, and patching gives
// back the estimated count, marked; full digests keep it under every codec.
func TestDiffPatchEstimatedCount(t *testing.T) {
	c := bloom.Config{Layout: bloom.Blocked, M: 1 << 16, K: 5}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 2000)}
	u := base.Bloom.Clone()
	if err := u.Union(bloomWith(t, c, 1000, 3000)); err != nil {
		t.Fatal(err)
	}
	next := &Digest{Sequence: 2, Bloom: u}
	for _, codec := range allCodecs {
		full, err := Encode(next, codec)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := Decode(full, envelope.Limits{}); err != nil || !g.Bloom.CountEstimated() || g.Bloom.Count() != u.Count() {
			t.Fatalf("%v: full digest: %v", codec, err)
		}
		delta, err := Diff(base, next, codec)
		if err != nil {
			t.Fatal(err)
		}
		if h, _, err := envelope.Parse(delta, envelope.Limits{}); err != nil || h.Version != 2 {
			t.Fatalf("%v: delta frame version %d, %v; want 2", codec, h.Version, err)
		}
		got, err := Patch(base, delta, envelope.Limits{})
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		if !got.Bloom.Equal(u) || !got.Bloom.CountEstimated() || got.Bloom.Count() != u.Count() {
			t.Fatalf("%v: patched: count %d (estimated %t), want %d estimated", codec, got.Bloom.Count(), got.Bloom.CountEstimated(), u.Count())
		}
	}
}

// TestGoldenDeltasPatch: the pinned deltas, the fast-coded one that
// writers before the gap code wrote for this change among them, still
// patch their base to the next version, and the gap-coded one decodes to
// the same XOR.
func TestGoldenDeltasPatch(t *testing.T) {
	c := bloom.Config{M: 4096, K: 2, Seed: 11}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 150)}
	next := bloomWith(t, c, 5, 155)
	var xor []uint64
	for _, name := range []string{"delta-fast", "delta-gaps", "delta-raw"} {
		b, err := os.ReadFile("testdata/golden-" + name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Patch(base, b, envelope.Limits{})
		if err != nil || !got.Bloom.Equal(next) || got.Sequence != 2 {
			t.Fatalf("%s: %v", name, err)
		}
		d, err := DecodeDelta(b, envelope.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if xor != nil && !slices.Equal(xor, d.XOR) {
			t.Errorf("%s: XOR differs from the others'", name)
		}
		xor = d.XOR
		want := map[string]envelope.Codec{"delta-fast": envelope.CodecFast, "delta-gaps": envelope.CodecGaps, "delta-raw": envelope.CodecRaw}[name]
		if d.Codec != want {
			t.Errorf("%s: codec %v", name, d.Codec)
		}
	}
}

// TestAppendDeltaWords: from the changed words alone, the delta is byte
// for byte Diff's, sparse (gaps) and dense (as asked) alike.
func TestAppendDeltaWords(t *testing.T) {
	c := bloom.Config{M: 1 << 14, K: 3, Seed: 4}
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, c, 0, 1000)}
	crc, _ := Checksum(base)
	for _, from := range []int{0, 20, 500} {
		next := &Digest{Sequence: 2, Bloom: bloomWith(t, c, from, 1000+from)}
		var changes []counting.WordChange
		for i, w := range base.Bloom.Words() {
			if n := next.Bloom.Words()[i]; n != w {
				changes = append(changes, counting.WordChange{Index: uint64(i), Old: w, New: n})
			}
		}
		for _, codec := range allCodecs {
			want, err := Diff(base, next, codec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendDeltaWords(nil, next, 1, crc, changes, codec)
			if err != nil || string(got) != string(want) {
				t.Fatalf("%d keys replaced, %v: differs from Diff (%v)", from, codec, err)
			}
		}
		if len(changes) >= 2 {
			swapped := slices.Clone(changes)
			swapped[0], swapped[1] = swapped[1], swapped[0]
			if _, err := AppendDeltaWords(nil, next, 1, crc, swapped, Fast); !errors.Is(err, ErrBase) {
				t.Errorf("changes out of order: %v", err)
			}
			wrong := slices.Clone(changes)
			wrong[0].New ^= 1
			if _, err := AppendDeltaWords(nil, next, 1, crc, wrong, Fast); !errors.Is(err, ErrBase) {
				t.Errorf("a change that is not next's word: %v", err)
			}
		}
	}
}

// TestXORPositions checks the four-words-at-a-time scan against a bit by
// bit one, at every length around the block of four, with and without b,
// and its refusal past the limit.
func TestXORPositions(t *testing.T) {
	rng := uint64(7)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	for n := range 11 {
		a, b := make([]uint64, n), make([]uint64, n)
		for i := range a {
			if next()%3 == 0 { // some words equal, some not
				a[i], b[i] = next(), next()
			}
		}
		var want, wantA []uint64
		for i := range 64 * n {
			if (a[i/64]^b[i/64])>>(i%64)&1 != 0 {
				want = append(want, uint64(i))
			}
			if a[i/64]>>(i%64)&1 != 0 {
				wantA = append(wantA, uint64(i))
			}
		}
		if got, ok := xorPositions(nil, a, b, 1<<20); !ok || !slices.Equal(got, want) {
			t.Errorf("%d words, a XOR b: %v %t, want %v", n, got, ok, want)
		}
		if got, ok := xorPositions(nil, a, nil, 1<<20); !ok || !slices.Equal(got, wantA) {
			t.Errorf("%d words, a: %v %t, want %v", n, got, ok, wantA)
		}
		if len(want) > 0 {
			if _, ok := xorPositions(nil, a, b, len(want)-1); ok {
				t.Errorf("%d words: %d ones passed a limit of %d", n, len(want), len(want)-1)
			}
			if got, ok := xorPositions(nil, a, b, len(want)); !ok || len(got) != len(want) {
				t.Errorf("%d words: %d ones refused at a limit of %d", n, len(want), len(want))
			}
		}
	}
}

// TestCloneChecksum: the copy Patch makes of a base as it checksums it,
// block by block, is the base and its checksum the whole array's, for
// arrays that end inside, at and past a block.
func TestCloneChecksum(t *testing.T) {
	for _, n := range []int{0, 1, copyBlock - 1, copyBlock, copyBlock + 1, 3*copyBlock + 17} {
		words := make([]uint64, n)
		for i := range words {
			words[i] = uint64(i+1) * 0x9e3779b97f4a7c15
		}
		out, crc := cloneChecksum(words)
		if !slices.Equal(out, words) || crc != wordsChecksum(words) {
			t.Errorf("%d words: copy equal %v, checksum %08x, want %08x", n, slices.Equal(out, words), crc, wordsChecksum(words))
		}
		if n > 0 && &out[0] == &words[0] {
			t.Errorf("%d words: the copy shares the base's array", n)
		}
	}
}
