package bloom

import (
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// benchFilter returns a filter holding n keys, the member hashes and as
// many non-member hashes.
func benchFilter(b *testing.B, l Layout, n int) (*Filter, []hashing.Hash128, []hashing.Hash128) {
	b.Helper()
	f := mustNew(b, Config{Layout: l, N: uint64(n), P: 0.01})
	in, out := make([]hashing.Hash128, n), make([]hashing.Hash128, n)
	for i := range in {
		in[i] = f.HashString(key(i))
		out[i] = f.HashString(key(i + n))
		f.AddHash(in[i])
	}
	return f, in, out
}

// BenchmarkContainsHash measures queries by precomputed hash, members
// ("hit") and non-members ("miss"), single and batched, in cache (n = 10^5,
// ~120 KB) and out of it (n = 4·10^6, ~5 MB). Each filter is built only if
// a sub-benchmark of it was selected.
func BenchmarkContainsHash(b *testing.B) {
	for _, n := range []int{100_000, 4_000_000} {
		for _, l := range layouts {
			b.Run(fmt.Sprintf("n=%d/%v", n, l), func(b *testing.B) {
				f, in, out := benchFilter(b, l, n)
				benchQueries(b, f, "hit", in)
				benchQueries(b, f, "miss", out)
			})
		}
	}
}

func benchQueries(b *testing.B, f *Filter, name string, hs []hashing.Hash128) {
	b.Run(name, func(b *testing.B) {
		i, found := 0, 0
		for b.Loop() {
			if f.ContainsHash(hs[i]) {
				found++
			}
			if i++; i == len(hs) {
				i = 0
			}
		}
		_ = found
	})
	b.Run(name+"-batch", func(b *testing.B) {
		res := make([]bool, 1024)
		i := 0
		for b.Loop() {
			if i+1024 > len(hs) {
				i = 0
			}
			f.ContainsBatch(hs[i:i+1024], res)
			i += 1024
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1024), "ns/key")
	})
}

func BenchmarkAddString(b *testing.B) {
	for _, l := range layouts {
		b.Run(l.String(), func(b *testing.B) {
			f := mustNew(b, Config{Layout: l, N: 100_000, P: 0.01})
			keys := make([]string, 100_000)
			for i := range keys {
				keys[i] = key(i)
			}
			i := 0
			for b.Loop() {
				f.AddString(keys[i])
				if i++; i == len(keys) {
					i = 0
				}
			}
		})
	}
}

func BenchmarkConcurrentAdd(b *testing.B) {
	c, err := NewConcurrent(Config{Layout: Blocked, N: 1_000_000, P: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := uint64(0)
		for pb.Next() {
			c.AddHash(hashing.Hash128{Lo: i * 0x9E3779B97F4A7C15, Hi: i * 0xC2B2AE3D27D4EB4F})
			i++
		}
	})
}

// BenchmarkBlockForms compares the three forms of the blocked query by
// precomputed hash, members and non-members, from in cache to far out of
// it (docs/BENCHMARKS.md, "Why the blocked query looks as it does"). It is the
// measurement behind containsBlocked's choice; the string-key side of it
// is cmd/compare's blocked rows.
//
//	go test -run '^$' -bench BlockForms -count 5 ./bloom
func BenchmarkBlockForms(b *testing.B) {
	forms := []struct {
		name string
		has  func(w *[8]uint64, h hashing.Hash128, k int) bool
	}{
		{"early-exit", blockHas},
		{"branch-free", blockAllSet},
		{"avx512", func(w *[8]uint64, h hashing.Hash128, k int) bool {
			return blockAllSetAVX512(w, h.Lo, h.Hi, k)
		}},
	}
	for _, n := range []int{100_000, 1_000_000, 20_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f, in, out := benchFilter(b, Blocked, n)
			for _, set := range []struct {
				name string
				hs   []hashing.Hash128
			}{{"hit", in[:min(n, 2_000_000)]}, {"miss", out[:min(n, 2_000_000)]}} {
				for _, form := range forms {
					if form.name == "avx512" && !hasAVX512 {
						continue
					}
					b.Run(set.name+"/"+form.name, func(b *testing.B) {
						i, found := 0, 0
						for b.Loop() {
							h := set.hs[i]
							if form.has(f.block(h), h, f.k) {
								found++
							}
							if i++; i == len(set.hs) {
								i = 0
							}
						}
						_ = found
					})
				}
			}
		})
	}
}

// BenchmarkBlockSetForms compares the two forms of the blocked insert by
// precomputed hash, the scalar loop and AVX-512, in cache and out of it:
// the measurement behind addBlockedHash's choice.
//
//	go test -run '^$' -bench BlockSetForms -count 5 ./bloom
func BenchmarkBlockSetForms(b *testing.B) {
	forms := []struct {
		name string
		set  func(w *[8]uint64, h hashing.Hash128, k int)
	}{
		{"scalar", blockSet},
		{"avx512", func(w *[8]uint64, h hashing.Hash128, k int) { blockSetAVX512(w, h.Lo, h.Hi, k) }},
	}
	for _, n := range []int{100_000, 20_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f, in, _ := benchFilter(b, Blocked, n)
			for _, form := range forms {
				if form.name == "avx512" && !hasAVX512 {
					continue
				}
				b.Run(form.name, func(b *testing.B) {
					i := 0
					for b.Loop() {
						h := in[i]
						form.set(f.block(h), h, f.k)
						if i++; i == len(in) {
							i = 0
						}
					}
				})
			}
		})
	}
}

// BenchmarkKeyHash64 compares the blocked layout's key routines under the
// two key hashes, XXH3-128 (blockAllSetKey, blockSetKey) and XXH3-64 with
// a word derived from it (blockAllSetKey64, blockSetKey64), by 45-byte
// URL-like string key at p = 1%, in cache (n = 10^5) and far out of it (n
// = 2·10^7): members (hit), non-members (miss) and adds of members. Each
// hash has its own filter of the same size holding the same n keys.
// Queries and adds cycle over at most 2·10^6 keys, laid out one after
// the other in memory, so that the key's own load costs little and the
// time is the hash's and the block's. Seven rounds, each running both
// hashes in turn; hit-rate is the fraction of keys found.
//
//	go test -run '^$' -bench KeyHash64 ./bloom
func BenchmarkKeyHash64(b *testing.B) {
	if !hasAVX512 {
		b.Skip("no AVX-512 on this machine, or a purego build: the routines are not assembled")
	}
	const keyLen = 45
	for _, n := range []int{100_000, 20_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f128 := mustNew(b, Config{Layout: Blocked, N: uint64(n), P: 0.01})
			f64 := mustNew(b, Config{Layout: Blocked, N: uint64(n), P: 0.01})
			var buf [keyLen]byte
			for i := range n {
				k := string(urlKey(&buf, i))
				f128.blockSetKeyString(k)
				f64.blockSetKey64String(k)
			}
			q := min(n, 2_000_000)
			members := urlKeys(0, q)
			sets := map[string][]string{"hit": members, "miss": urlKeys(n, q), "add": members}
			type hashForm struct {
				name string
				has  func(string) bool
				add  func(string)
			}
			forms := []hashForm{
				{"xxh3-128", f128.blockAllSetKeyString, f128.blockSetKeyString},
				{"xxh3-64", f64.blockAllSetKey64String, f64.blockSetKey64String},
			}
			for round := 1; round <= 7; round++ {
				for _, op := range []string{"hit", "miss", "add"} {
					for _, form := range forms {
						b.Run(fmt.Sprintf("%s/%s/round=%d", op, form.name, round), func(b *testing.B) {
							keys := sets[op]
							i, found := 0, 0
							if op == "add" {
								for b.Loop() {
									form.add(keys[i])
									if i++; i == len(keys) {
										i = 0
									}
								}
								return
							}
							for b.Loop() {
								if form.has(keys[i]) {
									found++
								}
								if i++; i == len(keys) {
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

// urlKey writes into buf the 45-byte key of i < 10^12:
// http://hostHH.example.com/object/IIIIIIIIIIII, HH = i mod 97.
func urlKey(buf *[45]byte, i int) []byte {
	copy(buf[:], "http://host00.example.com/object/000000000000")
	b := buf[:]
	b[11], b[12] = '0'+byte(i%97/10), '0'+byte(i%97%10)
	for j := len(b) - 1; i > 0; j-- {
		b[j] = '0' + byte(i%10)
		i /= 10
	}
	return b
}

// urlKeys returns the keys of from .. from+count−1, held in one string.
func urlKeys(from, count int) []string {
	var buf [45]byte
	all := make([]byte, 0, 45*count)
	for i := range count {
		all = append(all, urlKey(&buf, from+i)...)
	}
	s := string(all)
	keys := make([]string, count)
	for i := range keys {
		keys[i] = s[45*i : 45*i+45]
	}
	return keys
}
