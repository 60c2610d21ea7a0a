package counting

import (
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// BenchmarkOps times single-key operations by precomputed hash, over n
// distinct keys, in filters sized for n at p = 1%, with a bit view and
// without (noview: Config.NoBitView).
func BenchmarkOps(b *testing.B) {
	for _, n := range []int{100_000, 10_000_000} {
		hs := make([]hashing.Hash128, n)
		for i := range hs {
			hs[i] = hashing.Hash128{Lo: uint64(i) * 0x9E3779B97F4A7C15, Hi: uint64(i) * 0xC2B2AE3D27D4EB4F}
		}
		for _, mode := range []string{"view", "noview"} {
			for _, l := range []bloom.Layout{bloom.Classic, bloom.Blocked} {
				benchOps(b, fmt.Sprintf("n=%d/%v/%s", n, l, mode),
					mustNew(b, Config{Layout: l, N: uint64(n), P: 0.01, NoBitView: mode == "noview"}), hs)
			}
		}
	}
}

func benchOps(b *testing.B, name string, f *Filter, hs []hashing.Hash128) {
	n := len(hs)
	b.Run(name+"/add", func(b *testing.B) {
		for i := range b.N {
			if i%n == 0 {
				b.StopTimer()
				f.Clear() // keep the load at n keys at most
				b.StartTimer()
			}
			f.AddHash(hs[i%n])
		}
	})
	b.Run(name+"/contains", func(b *testing.B) {
		for i := range b.N {
			f.ContainsHash(hs[i%n])
		}
	})
	b.Run(name+"/count", func(b *testing.B) {
		for i := range b.N {
			f.CountHash(hs[i%n])
		}
	})
	b.Run(name+"/remove", func(b *testing.B) {
		for i := range b.N {
			_ = f.RemoveHash(hs[i%n])
		}
	})
	b.Run(name+"/add-batch", func(b *testing.B) {
		for i := 0; i < b.N; i += 1024 {
			j := i % n
			if j == 0 {
				b.StopTimer()
				f.Clear()
				b.StartTimer()
			}
			f.AddBatch(hs[j:min(j+1024, n)])
		}
	})
	b.Run(name+"/count-batch", func(b *testing.B) {
		out := make([]uint64, 1024)
		for i := 0; i < b.N; i += 1024 {
			j := i % n
			f.CountBatch(hs[j:min(j+1024, n)], out)
		}
	})
}

// BenchmarkKeyHash64 compares the key routines of counters-only blocked
// filters (4-bit counters) under the two key hashes: scheme 1, XXH3-128
// (blockCountersKey), and scheme 3, XXH3-64 with a word derived from it
// (blockCountersKey64), by 45-byte URL-like key at p = 1%, in cache
// (n = 10^5) and out of it (n = 10^7): members (hit) and non-members
// (miss). Each scheme has its own filter of the same shape holding the
// same n keys; queries cycle over at most 10^6 keys laid out one after
// the other. Five rounds, each running both schemes in turn.
//
//	go test -run '^$' -bench KeyHash64 -benchtime 1000000x ./counting
func BenchmarkKeyHash64(b *testing.B) {
	if !hasAVX512 {
		b.Skip("no AVX-512 on this machine, or a purego build: the routines are not assembled")
	}
	const keyLen = 45
	keys := func(from, count int) []byte {
		flat := make([]byte, 0, count*keyLen)
		for i := from; i < from+count; i++ {
			flat = fmt.Appendf(flat, "http://example.com/objects/%018d", i)
		}
		return flat
	}
	for _, n := range []int{100_000, 10_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := Config{Layout: bloom.Blocked, N: uint64(n), P: 0.01, NoBitView: true}
			f1 := mustNew(b, c)
			c.Scheme = hashing.Fast64
			f3 := mustNew(b, c)
			if f1.blockKeys == nil || f3.blockKeys64 == nil {
				b.Fatal("the filters do not take the key routines")
			}
			var buf []byte
			for i := range n {
				buf = fmt.Appendf(buf[:0], "http://example.com/objects/%018d", i)
				f1.Add(buf)
				f3.Add(buf)
			}
			q := min(n, 1_000_000)
			sets := map[string][]byte{"hit": keys(0, q), "miss": keys(n, q)}
			schemes := []struct {
				name string
				f    *Filter
			}{{"xxh3-128", f1}, {"xxh3-64", f3}}
			for round := 1; round <= 5; round++ {
				for _, op := range []string{"hit", "miss"} {
					for _, s := range schemes {
						b.Run(fmt.Sprintf("%s/%s/round=%d", op, s.name, round), func(b *testing.B) {
							flat := sets[op]
							i, found := 0, 0
							for b.Loop() {
								if s.f.Contains(flat[i : i+keyLen]) {
									found++
								}
								if i += keyLen; i == len(flat) {
									i = 0
								}
							}
							b.ReportMetric(float64(found)/float64(b.N), "hit-rate")
						})
					}
				}
			}
		})
	}
}
