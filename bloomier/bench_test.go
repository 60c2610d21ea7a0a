package bloomier

import (
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

const benchN = 1 << 20

// benchEntries returns the hashes of benchN keys, 8-bit values, and the
// hashes of benchN other keys.
func benchEntries() (hs []hashing.Hash128, values []uint64, others []hashing.Hash128) {
	keys, values := entries(benchN, 8, 13)
	for i, k := range keys {
		hs = append(hs, hashing.SumString(k))
		others = append(others, hashing.SumString(key(benchN+i)))
	}
	return hs, values, others
}

func perKey(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
}

func BenchmarkBuild(b *testing.B) {
	hs, values, _ := benchEntries()
	for _, c := range []Config{{ValueBits: 8, CheckBits: 8}, {ValueBits: 8, CheckBits: 8, Updatable: true}} {
		name := map[bool]string{false: "static", true: "updatable"}[c.Updatable]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildHashes(c, hs, values); err != nil {
					b.Fatal(err)
				}
			}
			perKey(b, benchN)
		})
	}
}

func BenchmarkGet(b *testing.B) {
	hs, values, others := benchEntries()
	for _, c := range []Config{{ValueBits: 8, CheckBits: 8}, {ValueBits: 8, CheckBits: 8, Updatable: true}} {
		f, err := BuildHashes(c, hs, values)
		if err != nil {
			b.Fatal(err)
		}
		name := map[bool]string{false: "static", true: "updatable"}[c.Updatable]
		for kind, q := range map[string][]hashing.Hash128{"hit": hs, "miss": others} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				i := 0
				for b.Loop() {
					f.GetHash(q[i&(benchN-1)])
					i++
				}
			})
		}
	}
}
