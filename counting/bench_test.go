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
