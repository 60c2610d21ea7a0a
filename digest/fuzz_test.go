package digest

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

// fuzzLimits keeps every decoded array small.
var fuzzLimits = envelope.Limits{MaxPayload: 1 << 16}

func FuzzDecode(f *testing.F) {
	for _, b := range goldenDigests(f) {
		f.Add(b)
	}
	// Frames that claim half the limit and break early.
	for _, b := range claimFrames(f, 8*fuzzLimits.MaxPayload/2) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data, fuzzLimits)
		if err != nil {
			return
		}
		// What decodes re-encodes with its codec to a digest that decodes
		// to the same structure.
		b, err := Encode(d, codecFor(d.Codec))
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		d2, err := Decode(b, fuzzLimits)
		if err != nil {
			t.Fatalf("decoding the re-encoding: %v", err)
		}
		if d.Scalable != nil {
			if !d2.Scalable.Equal(d.Scalable) || d2.Scalable.Count() != d.Scalable.Count() {
				t.Fatal("re-encoding changed the scalable filter")
			}
			return
		}
		if !d2.Filter().Equal(d.Filter()) {
			t.Fatal("re-encoding changed the filter")
		}
	})
}

func codecFor(c envelope.Codec) Codec {
	switch c {
	case envelope.CodecArith:
		return Arith
	case envelope.CodecFast:
		return Fast
	}
	return Raw
}

func FuzzPatch(f *testing.F) {
	c := bloom.Config{M: 4096, K: 2, Seed: 11}
	base := &Digest{Sequence: 1, Bloom: bloomWith(f, c, 0, 150)}
	want := append([]uint64(nil), base.Bloom.Words()...)
	for name, b := range goldenDigests(f) {
		if bytes.HasPrefix([]byte(name), []byte("delta")) {
			f.Add(b)
		}
	}
	// The fast-coded delta earlier writers wrote for the gap-coded one.
	if b, err := os.ReadFile("testdata/golden-delta-fast.bin"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, delta []byte) {
		d, err := Patch(base, delta, fuzzLimits)
		for i, w := range base.Bloom.Words() {
			if w != want[i] {
				t.Fatal("Patch modified its base")
			}
		}
		// A Patcher applies in place what Patch applies, and refuses
		// what it refuses, unchanged.
		p, perr := NewPatcher(&Digest{Sequence: base.Sequence, Bloom: base.Bloom.Clone()})
		if perr != nil {
			t.Fatal(perr)
		}
		perr = p.Patch(delta, fuzzLimits, nil)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Patch: %v, Patcher.Patch: %v", err, perr)
		}
		if err != nil {
			if !p.Digest().Bloom.Equal(base.Bloom) || p.Digest().Sequence != base.Sequence {
				t.Fatal("a refused delta changed the Patcher's digest")
			}
			return
		}
		if !p.Digest().Bloom.Equal(d.Bloom) || p.Digest().Sequence != d.Sequence || p.Digest().Bloom.Count() != d.Bloom.Count() {
			t.Fatal("Patcher.Patch and Patch differ")
		}
		if crc, _ := Checksum(d); crc != p.Checksum() {
			t.Fatal("the Patcher's checksum is not the patched digest's")
		}
		if d.Sequence <= base.Sequence || d.Bloom.M() != base.Bloom.M() {
			t.Fatalf("patched to sequence %d, %d bits", d.Sequence, d.Bloom.M())
		}
	})
}

// FuzzPatchCounting is FuzzPatch for a counting filter digest: Patch
// never modifies its base, and a Patcher applies in place what Patch
// applies (counters, bit view, key count, saturation, checksum) and
// refuses, unchanged, what it refuses.
func FuzzPatchCounting(f *testing.F) {
	c := counting.Config{M: 4096, K: 3, Width: 4, Seed: 11}
	base := &Digest{Sequence: 1, Counting: countingWith(f, c, 0, 150)}
	want := slices.Clone(base.Counting.Counters())
	next := &Digest{Sequence: 2, Counting: countingWith(f, c, 3, 160)}
	for range 20 {
		next.Counting.Add(key(-3)) // a saturated counter
	}
	for _, codec := range allCodecs {
		if b, err := Diff(base, next, codec); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, delta []byte) {
		d, err := Patch(base, delta, fuzzLimits)
		if !slices.Equal(base.Counting.Counters(), want) {
			t.Fatal("Patch modified its base")
		}
		p, perr := NewPatcher(&Digest{Sequence: base.Sequence, Counting: base.Counting.Clone()})
		if perr != nil {
			t.Fatal(perr)
		}
		perr = p.Patch(delta, fuzzLimits, nil)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Patch: %v, Patcher.Patch: %v", err, perr)
		}
		got := p.Digest().Counting
		if err != nil {
			if !slices.Equal(got.Counters(), want) || p.Digest().Sequence != base.Sequence {
				t.Fatal("a refused delta changed the Patcher's digest")
			}
			return
		}
		w := d.Counting
		if !slices.Equal(got.Counters(), w.Counters()) || !slices.Equal(got.BitView().Words(), w.BitView().Words()) ||
			got.Len() != w.Len() || got.Saturated() != w.Saturated() || p.Digest().Sequence != d.Sequence {
			t.Fatal("Patcher.Patch and Patch differ")
		}
		if crc, _ := Checksum(d); crc != p.Checksum() {
			t.Fatal("the Patcher's checksum is not the patched digest's")
		}
	})
}
