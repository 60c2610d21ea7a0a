package ribbon

import (
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

const benchN = 1 << 20

func perKey(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
}

func BenchmarkBuild(b *testing.B) {
	hs := hashes(0, benchN, 0)
	for _, c := range []Config{{Bits: 8}, {Rate: 0.01}} {
		name := map[bool]string{true: "r8", false: "p0.01"}[c.Bits == 8]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildHashes(c, hs); err != nil {
					b.Fatal(err)
				}
			}
			perKey(b, benchN)
		})
	}
}

func BenchmarkContains(b *testing.B) {
	hs := hashes(0, benchN, 0)
	f := mustBuild(b, Config{Rate: 0.01}, hs)
	others := hashes(benchN, benchN, 0)
	for name, q := range map[string][]hashing.Hash128{"present": hs, "absent": others} {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				f.ContainsHash(q[i&(benchN-1)])
				i++
			}
		})
	}
}
