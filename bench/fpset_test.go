package bench_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	xorfilter "github.com/FastFilter/xorfilter"
	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/zeebo/xxh3"
)

// fpsetN and fpsetQ are the members and non-members of the space
// comparison.
const (
	fpsetN = 1 << 20
	fpsetQ = 1 << 20
)

// TestFPSetSpace compares, at equal false-positive rates, the bits per key
// of the Golomb–Rice coded fingerprint set with log2(1/f), the entropy of
// the fingerprint set, a classic Bloom filter sized for the same rate, and
// (at 2^-8) FastFilter's binary fuse 8, on 2^20 keys, with each rate
// measured on 2^20 other keys. Run with -v to see the table:
//
//	go test -run TestFPSetSpace -v
func TestFPSetSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds filters of 2^20 keys")
	}
	members, others := compare.Keys(0, fpsetN), compare.Keys(fpsetN, fpsetQ)
	var out strings.Builder
	fmt.Fprintln(&out, "| target f | bits b | fpset f measured | log2(1/f) | entropy | Rice model | Rice measured | sorted | Bloom (classic) | Bloom f measured | binary fuse 8 | fuse f measured |")
	fmt.Fprintln(&out, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, target := range []float64{1.0 / 256, 1e-2, 1e-3, 1e-4, 1e-6, 1e-9} {
		b, err := fpset.BitsFor(fpsetN, target)
		if err != nil {
			t.Fatal(err)
		}
		set := fpset.MustNew(fpset.Config{N: fpsetN, Bits: b, Seed: 1})
		for _, k := range members {
			set.AddString(k)
		}
		c := set.Compress()
		for _, k := range members[:1000] {
			if !c.ContainsString(k) {
				t.Fatalf("compressed set lost %q", k)
			}
		}
		f := measured(others, set.ContainsString)
		model, _ := fpset.OfBits(fpsetN, b)
		if sigma := math.Sqrt(model.FalsePositive / fpsetQ); math.Abs(f-model.FalsePositive) > 5*sigma+1e-12 {
			t.Errorf("b = %d: measured rate %.3g, model %.3g", b, f, model.FalsePositive)
		}
		if c.BitsPerKey() > model.MinimumBitsPerKey+1.6 {
			t.Errorf("b = %d: %.3f bits per key, more than log2(1/f) + 1.6", b, c.BitsPerKey())
		}
		bloomBits, bloomF := bloomAt(t, members, others, model.FalsePositive)
		fuseBits, fuseF := "-", "-"
		if target == 1.0/256 {
			bits, rate := fuse8(t, members, others)
			fuseBits, fuseF = fmt.Sprintf("%.3f", bits), fmt.Sprintf("%.3g", rate)
		}
		fmt.Fprintf(&out, "| %.3g | %d | %.3g | %.3f | %.3f | %.3f | **%.3f** | %d | %.3f | %.3g | %s | %s |\n",
			target, b, f, model.MinimumBitsPerKey, model.EntropyBitsPerKey, model.CompressedBitsPerKey,
			c.BitsPerKey(), b, bloomBits, bloomF, fuseBits, fuseF)
	}
	t.Log("\n" + out.String())
}

// measured returns the fraction of keys that contains reports present.
func measured(keys []string, contains func(string) bool) float64 {
	hits := 0
	for _, k := range keys {
		if contains(k) {
			hits++
		}
	}
	return float64(hits) / float64(len(keys))
}

// bloomAt builds the smallest classic Bloom filter with rate at most p and
// returns its bits per key and measured rate.
func bloomAt(t *testing.T, members, others []string, p float64) (float64, float64) {
	f, err := bloom.New(bloom.Config{Layout: bloom.Classic, N: uint64(len(members)), P: p, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range members {
		f.AddString(k)
	}
	return float64(f.M()) / float64(len(members)), measured(others, f.ContainsString)
}

// fuse8 builds FastFilter's binary fuse 8 and returns its bits per key and
// measured rate.
func fuse8(t *testing.T, members, others []string) (float64, float64) {
	hs := make([]uint64, len(members))
	for i, k := range members {
		hs[i] = xxh3.HashString(k)
	}
	f, err := xorfilter.PopulateBinaryFuse8(hs)
	if err != nil {
		t.Fatal(err)
	}
	rate := measured(others, func(k string) bool { return f.Contains(xxh3.HashString(k)) })
	return float64(8*len(f.Fingerprints)) / float64(len(members)), rate
}

// BenchmarkFPSet times the three forms on 2^20 keys with 28-bit
// fingerprints (f ≈ 2^-8): adds, and queries of members and non-members.
func BenchmarkFPSet(b *testing.B) {
	members, others := compare.Keys(0, fpsetN), compare.Keys(fpsetN, fpsetQ)
	hm, ho := hashAll(members), hashAll(others)
	b.Run("add", func(b *testing.B) {
		for b.Loop() {
			s := fpset.MustNew(fpset.Config{N: fpsetN, Bits: 28})
			for _, h := range hm {
				s.AddHash(h)
			}
		}
		reportPerKey(b, fpsetN)
	})
	s := fpset.MustNew(fpset.Config{N: fpsetN, Bits: 28})
	for _, h := range hm {
		s.AddHash(h)
	}
	sorted := s.Sorted()
	c := sorted.Compress()
	for _, form := range []struct {
		name     string
		contains func(hashing.Hash128) bool
	}{{"set", s.ContainsHash}, {"sorted", sorted.ContainsHash}, {"compressed", c.ContainsHash}} {
		for _, q := range []struct {
			name string
			hs   []hashing.Hash128
		}{{"hit", hm}, {"miss", ho}} {
			b.Run(form.name+"/"+q.name, func(b *testing.B) {
				for b.Loop() {
					for _, h := range q.hs {
						form.contains(h)
					}
				}
				reportPerKey(b, len(q.hs))
			})
		}
	}
}

func hashAll(keys []string) []hashing.Hash128 {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumString(k)
	}
	return hs
}
