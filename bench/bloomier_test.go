package bench_test

import (
	"testing"

	xorfilter "github.com/FastFilter/xorfilter"
	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/zeebo/xxh3"
)

// bloomierN is the number of keys of the Bloomier benchmarks.
const bloomierN = 1 << 20

// bloomierConfigs are the filters measured: a 1-bit function with an
// 8-bit check (the nearest to a binary fuse 8 filter, which is a Bloomier
// filter with no value), 8-bit values, and the same updatable.
var bloomierConfigs = []struct {
	name string
	c    bloomier.Config
}{
	{"r1c8", bloomier.Config{ValueBits: 1, CheckBits: 8}},
	{"r8c8", bloomier.Config{ValueBits: 8, CheckBits: 8}},
	{"r8c8-updatable", bloomier.Config{ValueBits: 8, CheckBits: 8, Updatable: true}},
}

// BenchmarkBloomierBuild times construction from pre-hashed keys, against
// FastFilter's binary fuse 8 built from pre-hashed keys, and reports bits
// per key:
//
//	go test -run '^$' -bench Bloomier -benchtime 5x
func BenchmarkBloomierBuild(b *testing.B) {
	keys := compare.Keys(0, bloomierN)
	hs := hashAll(keys)
	values := make([]uint64, len(keys))
	for _, bc := range bloomierConfigs {
		for i := range values {
			values[i] = uint64(i) & (1<<bc.c.ValueBits - 1)
		}
		b.Run(bc.name, func(b *testing.B) {
			var f *bloomier.Filter
			for b.Loop() {
				var err error
				if f, err = bloomier.BuildHashes(bc.c, hs, values); err != nil {
					b.Fatal(err)
				}
			}
			reportPerKey(b, bloomierN)
			b.ReportMetric(f.BitsPerKey(), "bits/key")
		})
	}
	h64 := make([]uint64, len(keys))
	for i, k := range keys {
		h64[i] = xxh3.HashString(k)
	}
	b.Run("fuse8", func(b *testing.B) {
		var f *xorfilter.BinaryFuse8
		for b.Loop() {
			var err error
			if f, err = xorfilter.PopulateBinaryFuse8(h64); err != nil {
				b.Fatal(err)
			}
		}
		reportPerKey(b, bloomierN)
		b.ReportMetric(float64(8*len(f.Fingerprints))/bloomierN, "bits/key")
	})
}

// BenchmarkBloomierGet times lookups of members and non-members, one pass
// over 2^20 pre-hashed keys per op.
func BenchmarkBloomierGet(b *testing.B) {
	keys, others := compare.Keys(0, bloomierN), compare.Keys(bloomierN, bloomierN)
	hs, ho := hashAll(keys), hashAll(others)
	values := make([]uint64, len(keys))
	for _, bc := range bloomierConfigs {
		f, err := bloomier.BuildHashes(bc.c, hs, values)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name+"/hit", func(b *testing.B) {
			for b.Loop() {
				for _, h := range hs {
					f.GetHash(h)
				}
			}
			reportPerKey(b, bloomierN)
		})
		b.Run(bc.name+"/miss", func(b *testing.B) {
			for b.Loop() {
				for _, h := range ho {
					f.GetHash(h)
				}
			}
			reportPerKey(b, bloomierN)
		})
	}
	h64, o64 := make([]uint64, len(keys)), make([]uint64, len(others))
	for i := range keys {
		h64[i], o64[i] = xxh3.HashString(keys[i]), xxh3.HashString(others[i])
	}
	f, err := xorfilter.PopulateBinaryFuse8(h64)
	if err != nil {
		b.Fatal(err)
	}
	for name, q := range map[string][]uint64{"hit": h64, "miss": o64} {
		b.Run("fuse8/"+name, func(b *testing.B) {
			for b.Loop() {
				for _, h := range q {
					f.Contains(h)
				}
			}
			reportPerKey(b, bloomierN)
		})
	}
}
