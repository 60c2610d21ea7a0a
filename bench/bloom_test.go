// Package bench_test has go test benchmarks of the same contenders as
// cmd/compare at n = 10^5, p = 1%, for benchstat:
//
//	go test -run '^$' -bench . -count 10 | tee new.txt
//	benchstat old.txt new.txt
//
// One benchmark op is a whole pass over the keys; the ns/key metric is the
// per-key cost that cmd/compare reports.
package bench_test

import (
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bench/compare"
)

const (
	benchN = 100_000
	benchP = 0.01
	benchQ = 1_000_000 // non-members, as cmd/compare uses at this n
	group  = 1024      // batch group, as cmd/compare's default
)

// benchKeys builds the members and non-members once for every benchmark.
var benchKeys = sync.OnceValues(func() ([]string, []string) {
	return compare.Keys(0, benchN), compare.Keys(benchN, benchQ)
})

// built returns a contender filled with the members.
func built(b *testing.B, c compare.Contender) compare.Set {
	b.Helper()
	members, _ := benchKeys()
	s, err := c.New(benchN, benchP)
	if err == nil {
		err = s.AddAll(members)
	}
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// reportPerKey adds the ns/key metric: the op is a pass over keys keys.
func reportPerKey(b *testing.B, keys int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(keys), "ns/key")
}

func BenchmarkAdd(b *testing.B) {
	members, _ := benchKeys()
	for _, c := range compare.Contenders() {
		b.Run(c.Short, func(b *testing.B) {
			for range b.N {
				// A fresh structure per pass, built off the clock, as
				// cmd/compare does.
				b.StopTimer()
				s, err := c.New(benchN, benchP)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := s.AddAll(members); err != nil {
					b.Fatal(err)
				}
			}
			reportPerKey(b, len(members))
		})
	}
}

func BenchmarkContains(b *testing.B) {
	members, others := benchKeys()
	for _, c := range compare.Contenders() {
		b.Run(c.Short, func(b *testing.B) {
			s := built(b, c)
			b.Run("hit", func(b *testing.B) { benchQuery(b, members, s.CountHits) })
			b.Run("miss", func(b *testing.B) { benchQuery(b, others, s.CountHits) })
		})
	}
}

func BenchmarkContainsBatch(b *testing.B) {
	members, others := benchKeys()
	for _, c := range compare.Contenders() {
		b.Run(c.Short, func(b *testing.B) {
			s, ok := built(b, c).(compare.Batcher)
			if !ok {
				b.Skip("no batch API")
			}
			count := func(keys []string) int { return s.CountHitsBatch(keys, group) }
			b.Run("hit", func(b *testing.B) { benchQuery(b, members, count) })
			b.Run("miss", func(b *testing.B) { benchQuery(b, others, count) })
		})
	}
}

// benchQuery times passes of count over keys and also reports the share
// of keys found, which for non-members is the false-positive rate.
func benchQuery(b *testing.B, keys []string, count func([]string) int) {
	hits := 0
	b.ResetTimer()
	for range b.N {
		hits = count(keys)
	}
	reportPerKey(b, len(keys))
	b.ReportMetric(float64(hits)/float64(len(keys)), "found/key")
}
