package fpset

import (
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// benchHashes returns the hashes of n members and n non-members.
func benchHashes(n int) (members, others []hashing.Hash128) {
	for i := range n {
		members = append(members, hashing.SumString(key(i)))
		others = append(others, hashing.SumString(key(n+i)))
	}
	return members, others
}

func BenchmarkAdd(b *testing.B) {
	members, _ := benchHashes(1 << 16)
	for b.Loop() {
		s := MustNew(Config{N: 1 << 16, Bits: 32})
		for _, h := range members {
			s.AddHash(h)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(members)), "ns/key")
}

func BenchmarkContains(b *testing.B) {
	const n = 1 << 20
	members, others := benchHashes(n)
	s := MustNew(Config{N: n, Bits: 32})
	for _, h := range members {
		s.AddHash(h)
	}
	sorted := s.Sorted()
	c := sorted.Compress()
	for name, f := range map[string]func(hashing.Hash128) bool{
		"set": s.ContainsHash, "sorted": sorted.ContainsHash, "compressed": c.ContainsHash,
	} {
		for kind, hs := range map[string][]hashing.Hash128{"hit": members, "miss": others} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				i := 0
				for b.Loop() {
					f(hs[i&(n-1)])
					i++
				}
			})
		}
	}
}
