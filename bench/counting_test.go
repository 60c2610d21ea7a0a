package bench_test

// Counting filters: bloomcast's counting package against tylertreat/
// BoomFilters' CountingBloomFilter, both with 4-bit counters, on the same
// keys (compare.Keys: URL-like, compare.KeyLen bytes), at n = 10^5 and
// 10^7, sized for p = 1%:
//
//	go test -run '^$' -bench '^BenchmarkCounting$' -benchtime 2000000x -count 3 | tee counting.txt
//
// BenchmarkCountingVersus runs the same operations taking turns, for
// ratios that a shared machine's changing load does not skew.
//
// One op is one key: an Add, a Remove, or a Contains of a member (hit) or
// of a key never added (miss). Every sub-benchmark also reports bits/key,
// the memory of the structure per member key (bloomcast: counters and
// bit view), and the miss benchmarks report found/key, the measured
// false-positive rate.

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	boom "github.com/tylertreat/BoomFilters"
)

const countingP = 0.01

// countingSet is one counting filter under test.
type countingSet interface {
	add(key []byte)
	remove(key []byte)
	contains(key []byte) bool
	bytes() int
}

type countingContender struct {
	name string
	make func(n int) countingSet
}

var countingContenders = []countingContender{
	{"bloomcast-blocked", func(n int) countingSet {
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Blocked, N: uint64(n), P: countingP})}
	}},
	{"bloomcast-classic", func(n int) countingSet {
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, N: uint64(n), P: countingP})}
	}},
	// The same memory as BoomFilters' filter: bloomcast spends 5 bits per
	// position (a 4-bit counter and the bit view), so 4/5 of its
	// positions, at a higher false-positive rate.
	{"bloomcast-classic-samemem", func(n int) countingSet {
		m := boom.OptimalM(uint(n), countingP) * 4 / 5
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, M: uint64(m), N: uint64(n)})}
	}},
	{"boom", func(n int) countingSet {
		return &boomCounting{boom.NewDefaultCountingBloomFilter(uint(n), countingP)}
	}},
}

type bcCounting struct{ f *counting.Filter }

func (s *bcCounting) add(key []byte)           { s.f.Add(key) }
func (s *bcCounting) remove(key []byte)        { _ = s.f.Remove(key) }
func (s *bcCounting) contains(key []byte) bool { return s.f.Contains(key) }
func (s *bcCounting) bytes() int               { return s.f.SizeBytes() }

type boomCounting struct{ f *boom.CountingBloomFilter }

func (s *boomCounting) add(key []byte)           { s.f.Add(key) }
func (s *boomCounting) remove(key []byte)        { s.f.TestAndRemove(key) }
func (s *boomCounting) contains(key []byte) bool { return s.f.Test(key) }

// bytes is the bucket array: m counters of 4 bits.
func (s *boomCounting) bytes() int { return int(s.f.Capacity()*4+7) / 8 }

// flatKeys holds count keys of compare.KeyLen bytes back to back, so that
// both libraries get []byte keys without a conversion per op.
type flatKeys []byte

func (k flatKeys) key(i int) []byte {
	return k[i*compare.KeyLen : (i+1)*compare.KeyLen]
}

func makeFlatKeys(from, count int) flatKeys {
	flat := make(flatKeys, 0, count*compare.KeyLen)
	for done := 0; done < count; {
		chunk := min(count-done, 1<<16)
		for _, s := range compare.Keys(from+done, chunk) {
			flat = append(flat, s...)
		}
		done += chunk
	}
	return flat
}

// countingKeys returns n members and n non-members, built once per n.
var countingKeys = func() func(n int) (flatKeys, flatKeys) {
	var mu sync.Mutex
	cache := map[int][2]flatKeys{}
	return func(n int) (flatKeys, flatKeys) {
		mu.Lock()
		defer mu.Unlock()
		if k, ok := cache[n]; ok {
			return k[0], k[1]
		}
		k := [2]flatKeys{makeFlatKeys(0, n), makeFlatKeys(n, n)}
		cache[n] = k
		return k[0], k[1]
	}
}()

func BenchmarkCounting(b *testing.B) {
	for _, n := range []int{100_000, 10_000_000} {
		members, others := countingKeys(n)
		for _, c := range countingContenders {
			prefix := fmt.Sprintf("n=%d/%s", n, c.name)
			b.Run(prefix+"/add", func(b *testing.B) { benchCountingAdd(b, c, n, members) })
			b.Run(prefix+"/remove", func(b *testing.B) { benchCountingRemove(b, c, n, members) })
			// Filled once, when a contains benchmark first runs.
			full := sync.OnceValue(func() countingSet { return filled(c, n, members) })
			b.Run(prefix+"/contains-hit", func(b *testing.B) { benchCountingContains(b, full(), n, members) })
			b.Run(prefix+"/contains-miss", func(b *testing.B) { benchCountingContains(b, full(), n, others) })
		}
	}
}

func filled(c countingContender, n int, members flatKeys) countingSet {
	s := c.make(n)
	for i := range n {
		s.add(members.key(i))
	}
	return s
}

func reportBitsPerKey(b *testing.B, s countingSet, n int) {
	b.ReportMetric(float64(8*s.bytes())/float64(n), "bits/key")
}

// emptied returns an empty filter whose memory has been written once: the
// members added and removed again. A fresh array's pages are mapped on
// first touch, and at n = 10^7 those page faults would cost more than the
// adds being timed.
func emptied(c countingContender, n int, members flatKeys) countingSet {
	s := filled(c, n, members)
	for i := range n {
		s.remove(members.key(i))
	}
	return s
}

// benchCountingAdd adds the members in order to an empty filter, starting
// over with an emptied one (off the clock) after every n adds, so the load
// never passes n.
func benchCountingAdd(b *testing.B, c countingContender, n int, members flatKeys) {
	s := emptied(c, n, members)
	b.ResetTimer()
	for i := range b.N {
		j := i % n
		if j == 0 && i > 0 {
			b.StopTimer()
			s = emptied(c, n, members)
			b.StartTimer()
		}
		s.add(members.key(j))
	}
	reportBitsPerKey(b, s, n)
}

// benchCountingRemove removes the members of a full filter in order,
// refilling it (off the clock) after every n removals.
func benchCountingRemove(b *testing.B, c countingContender, n int, members flatKeys) {
	b.StopTimer()
	s := filled(c, n, members)
	b.ResetTimer()
	b.StartTimer()
	for i := range b.N {
		j := i % n
		if j == 0 && i > 0 {
			b.StopTimer()
			s = filled(c, n, members)
			b.StartTimer()
		}
		s.remove(members.key(j))
	}
	reportBitsPerKey(b, s, n)
}

func benchCountingContains(b *testing.B, s countingSet, n int, keys flatKeys) {
	found := 0
	b.ResetTimer()
	for i := range b.N {
		if s.contains(keys.key(i % n)) {
			found++
		}
	}
	reportBitsPerKey(b, s, n)
	b.ReportMetric(float64(found)/float64(b.N), "found/key")
}

// BenchmarkCountingVersus measures the same operations as
// BenchmarkCounting, but takes turns: each contender does a chunk of
// chunkOps operations on the same keys, then the next, round after round,
// so that a shared machine's changing load falls on all of them alike.
// It reports each contender's ns/op and its speedup over BoomFilters
// (boom ns/op ÷ its ns/op):
//
//	go test -run '^$' -bench CountingVersus -benchtime 2000000x
func BenchmarkCountingVersus(b *testing.B) {
	versus := []countingContender{countingContenders[0], countingContenders[1], countingContenders[3]}
	for _, n := range []int{100_000, 10_000_000} {
		members, others := countingKeys(n)
		for _, op := range []string{"add", "remove", "contains-hit", "contains-miss"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, op), func(b *testing.B) {
				benchVersus(b, versus, op, n, members, others)
			})
		}
	}
}

const chunkOps = 10_000

func benchVersus(b *testing.B, cs []countingContender, op string, n int, members, others flatKeys) {
	sets := make([]countingSet, len(cs))
	prepare := func() {
		for i, c := range cs {
			sets[i] = nil // let the old one go before building the next
			if op == "add" {
				sets[i] = emptied(c, n, members)
			} else {
				sets[i] = filled(c, n, members)
			}
		}
	}
	prepare()
	elapsed := make([]time.Duration, len(cs))
	found := make([]int, len(cs))
	b.ResetTimer()
	for done := 0; done < b.N; done += chunkOps {
		from := done % n
		if from == 0 && done > 0 && (op == "add" || op == "remove") {
			prepare() // start over below the load n (add) or with a full filter (remove)
		}
		to := min(from+chunkOps, n)
		for r := range cs {
			i := (r + done/chunkOps) % len(cs) // rotate who goes first
			s := sets[i]
			start := time.Now()
			switch op {
			case "add":
				for j := from; j < to; j++ {
					s.add(members.key(j))
				}
			case "remove":
				for j := from; j < to; j++ {
					s.remove(members.key(j))
				}
			case "contains-hit", "contains-miss":
				keys := members
				if op == "contains-miss" {
					keys = others
				}
				for j := from; j < to; j++ {
					if s.contains(keys.key(j)) {
						found[i]++
					}
				}
			}
			elapsed[i] += time.Since(start)
		}
	}
	ops := float64(b.N+chunkOps-1) / chunkOps * chunkOps
	boom := float64(elapsed[len(cs)-1]) / ops
	for i, c := range cs {
		ns := float64(elapsed[i]) / ops
		b.ReportMetric(ns, c.name+"-ns/op")
		if i < len(cs)-1 {
			b.ReportMetric(boom/ns, c.name+"-speedup")
		}
		b.ReportMetric(float64(8*sets[i].bytes())/float64(n), c.name+"-bits/key")
	}
}
