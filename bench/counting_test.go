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
// BenchmarkCountingNoView does the same for bloomcast's counters-only
// mode (counting.Config.NoBitView), which spends 4 bits per position as
// BoomFilters does:
//
//	go test -run '^$' -bench CountingNoView -benchtime 3000000x
//
// One op is one key: an Add, a Remove, or a Contains of a member (hit) or
// of a key never added (miss); the -batch contenders of
// BenchmarkCountingNoView hash 256 keys and pass them to one batch call. Every sub-benchmark also reports bits/key,
// the memory of the structure per member key (bloomcast: counters and
// bit view, or counters alone for the -noview contenders, built with
// counting.Config.NoBitView), and the miss benchmarks report found/key,
// the measured false-positive rate.

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/hashing"
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
	// Counters only (no bit view): 4 bits per position, as BoomFilters.
	// Sized by bloomcast for p = 1% like the others: the classic layout
	// needs 9.593 counters per key at k = 7, the blocked one ~9.92 at
	// k = 6 (the block loads vary).
	{"bloomcast-blocked-noview", func(n int) countingSet {
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Blocked, N: uint64(n), P: countingP, NoBitView: true})}
	}},
	{"bloomcast-classic-noview", func(n int) countingSet {
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, N: uint64(n), P: countingP, NoBitView: true})}
	}},
	// Counters only in BoomFilters' own shape: its k = OptimalK(p) = 7 and
	// its m = OptimalM(n, p) counters, rounded down to whole 64-bit words
	// (16 counters), so the memory is at most BoomFilters' and the
	// nominal false-positive rate the same as its: (1 − e^(−7n/m))^7 =
	// 1.004% (OptimalM is the optimum for a real k = 6.64; with k = 7 it
	// falls short of 1% by a hair, which bloomcast's own sizing does not).
	{"bloomcast-classic-noview-boomshape", func(n int) countingSet {
		m := boom.OptimalM(uint(n), countingP) &^ 15
		k := int(boom.OptimalK(countingP))
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, M: uint64(m), K: k, NoBitView: true})}
	}},
	// Counters only in the blocked layout at BoomFilters' memory: its m
	// counters rounded down to whole 512-counter blocks, k chosen by
	// bloomcast for n keys in that space (params.BestK). The blocked
	// layout sized for p = 1% needs 3.5% more; at this memory its
	// predicted rate is about 1.15%.
	{"bloomcast-blocked-noview-boommem", func(n int) countingSet {
		m := boom.OptimalM(uint(n), countingP) &^ 511
		return &bcCounting{counting.MustNew(counting.Config{Layout: bloom.Blocked, M: uint64(m), N: uint64(n), NoBitView: true})}
	}},
	{"boom", func(n int) countingSet {
		return &boomCounting{boom.NewDefaultCountingBloomFilter(uint(n), countingP)}
	}},
}

// batchContenders use bloomcast's batch API: the caller hashes a run of
// keys, then passes the hashes to AddBatch, RemoveBatch or ContainsBatch,
// which prefetch the counters of one group of keys while they work on the
// group before. With the hashing out of the way, the CPU overlaps the
// memory misses of many keys. BoomFilters has no such
// API, so these are a different way of calling, reported apart from the
// key-at-a-time figures; only the interleaved benchmarks run them.
var batchContenders = []countingContender{
	{"bloomcast-blocked-noview-batch", func(n int) countingSet {
		return &bcBatch{bcCounting: bcCounting{counting.MustNew(counting.Config{Layout: bloom.Blocked, N: uint64(n), P: countingP, NoBitView: true})}}
	}},
	{"bloomcast-classic-noview-batch", func(n int) countingSet {
		return &bcBatch{bcCounting: bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, N: uint64(n), P: countingP, NoBitView: true})}}
	}},
	// The batch API in BoomFilters' shape: memory at most its (see
	// bloomcast-classic-noview-boomshape).
	{"bloomcast-classic-noview-boomshape-batch", func(n int) countingSet {
		m := boom.OptimalM(uint(n), countingP) &^ 15
		k := int(boom.OptimalK(countingP))
		return &bcBatch{bcCounting: bcCounting{counting.MustNew(counting.Config{Layout: bloom.Classic, M: uint64(m), K: k, NoBitView: true})}}
	}},
}

type bcCounting struct{ f *counting.Filter }

func (s *bcCounting) add(key []byte)           { s.f.Add(key) }
func (s *bcCounting) remove(key []byte)        { _ = s.f.Remove(key) }
func (s *bcCounting) contains(key []byte) bool { return s.f.Contains(key) }
func (s *bcCounting) bytes() int               { return s.f.SizeBytes() }

// batcher is a countingSet that also takes a run of keys, [from, to), at
// once.
type batcher interface {
	countingSet
	addKeys(keys flatKeys, from, to int)
	removeKeys(keys flatKeys, from, to int)
	containsKeys(keys flatKeys, from, to int) (found int)
}

// batchKeys is how many keys bcBatch hashes before handing them to a
// batch call: a caller's buffer, small enough to stay in L1.
const batchKeys = 256

// bcBatch calls bloomcast's batch API: it hashes up to batchKeys keys
// into a buffer (timed: the hashing is part of the op) and passes them to
// AddBatch, RemoveBatch or ContainsBatch.
type bcBatch struct {
	bcCounting
	hs  [batchKeys]hashing.Hash128
	out [batchKeys]bool
}

func (s *bcBatch) each(keys flatKeys, from, to int, do func(hs []hashing.Hash128)) {
	for from < to {
		hs := s.hs[:min(to-from, batchKeys)]
		for i := range hs {
			hs[i] = s.f.Hash(keys.key(from + i))
		}
		do(hs)
		from += len(hs)
	}
}

func (s *bcBatch) addKeys(keys flatKeys, from, to int) {
	s.each(keys, from, to, s.f.AddBatch)
}

func (s *bcBatch) removeKeys(keys flatKeys, from, to int) {
	s.each(keys, from, to, func(hs []hashing.Hash128) { _, _ = s.f.RemoveBatch(hs) })
}

func (s *bcBatch) containsKeys(keys flatKeys, from, to int) (found int) {
	s.each(keys, from, to, func(hs []hashing.Hash128) {
		out := s.out[:len(hs)]
		s.f.ContainsBatch(hs, out)
		for _, in := range out {
			if in {
				found++
			}
		}
	})
	return found
}

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

// contender returns the contender called name.
func contender(name string) countingContender {
	for _, c := range slices.Concat(countingContenders, batchContenders) {
		if c.name == name {
			return c
		}
	}
	panic("no contender " + name)
}

// contenders returns the contenders called names.
func contenders(names ...string) []countingContender {
	cs := make([]countingContender, len(names))
	for i, name := range names {
		cs[i] = contender(name)
	}
	return cs
}

// BenchmarkCountingVersus measures the same operations as
// BenchmarkCounting, but takes turns: each contender does a chunk of
// chunkOps operations on the same keys, then the next, round after round,
// so that a shared machine's changing load falls on all of them alike.
// It reports each contender's ns/op, its speedup over BoomFilters (boom
// ns/op ÷ its ns/op; and medspeedup, the median over rounds of the
// round's ratio, which a stretch when another process had the core
// spoils less) and its bits/key:
//
//	go test -run '^$' -bench CountingVersus -benchtime 3000000x
func BenchmarkCountingVersus(b *testing.B) {
	versus := contenders("bloomcast-blocked", "bloomcast-classic", "boom") // boom last: the reference
	for _, n := range []int{100_000, 10_000_000} {
		members, others := countingKeys(n)
		for _, op := range []string{"add", "remove", "contains-hit", "contains-miss"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, op), func(b *testing.B) {
				benchVersus(b, versus, op, n, members, others)
			})
		}
	}
}

// BenchmarkCountingNoView is BenchmarkCountingVersus for the
// counters-only mode, in four groups of three filters taking turns (as
// many as BenchmarkCountingVersus has, so that the caches are shared
// alike): "single", both layouts sized for p = 1%, key at a time;
// "boomshape", at most BoomFilters' memory: the classic layout in its own
// shape (m, k) and the blocked layout in its m counters; "batch",
// both layouts through the batch API; "boomshape-batch", BoomFilters'
// shape through the batch API beside it key at a time. Each reports ns/op, speedup over
// BoomFilters and bits/key per contender (and found/key for misses):
//
//	go test -run '^$' -bench CountingNoView -benchtime 3000000x
func BenchmarkCountingNoView(b *testing.B) {
	groups := []struct {
		name   string
		versus []countingContender
	}{
		{"single", contenders("bloomcast-blocked-noview", "bloomcast-classic-noview", "boom")},
		{"boomshape", contenders("bloomcast-classic-noview-boomshape", "bloomcast-blocked-noview-boommem", "boom")},
		{"batch", contenders("bloomcast-blocked-noview-batch", "bloomcast-classic-noview-batch", "boom")},
		{"boomshape-batch", contenders("bloomcast-classic-noview-boomshape-batch", "bloomcast-classic-noview-boomshape", "boom")},
	}
	for _, n := range []int{100_000, 10_000_000} {
		members, others := countingKeys(n)
		for _, g := range groups {
			for _, op := range []string{"add", "remove", "contains-hit", "contains-miss"} {
				b.Run(fmt.Sprintf("n=%d/%s/%s", n, g.name, op), func(b *testing.B) {
					benchVersus(b, g.versus, op, n, members, others)
				})
			}
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
	ops := 0               // per contender
	var ratios [][]float64 // per round, boom's time over each contender's
	turn := make([]time.Duration, len(cs))
	b.ResetTimer()
	for done := 0; done < b.N; done += chunkOps {
		from := done % n
		if from == 0 && done > 0 && (op == "add" || op == "remove") {
			prepare() // start over below the load n (add) or with a full filter (remove)
		}
		to := min(from+chunkOps, n)
		ops += to - from
		for r := range cs {
			i := (r + done/chunkOps) % len(cs) // rotate who goes first
			s := sets[i]
			start := time.Now()
			bs, batch := s.(batcher)
			switch {
			case batch && op == "add":
				bs.addKeys(members, from, to)
			case batch && op == "remove":
				bs.removeKeys(members, from, to)
			case batch && op == "contains-hit":
				found[i] += bs.containsKeys(members, from, to)
			case batch && op == "contains-miss":
				found[i] += bs.containsKeys(others, from, to)
			case op == "add":
				for j := from; j < to; j++ {
					s.add(members.key(j))
				}
			case op == "remove":
				for j := from; j < to; j++ {
					s.remove(members.key(j))
				}
			default: // contains-hit, contains-miss
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
			turn[i] = time.Since(start)
			elapsed[i] += turn[i]
		}
		round := make([]float64, len(cs))
		for i := range cs {
			round[i] = float64(turn[len(cs)-1]) / float64(max(turn[i], 1))
		}
		ratios = append(ratios, round)
	}
	boom := float64(elapsed[len(cs)-1]) / float64(ops)
	for i, c := range cs {
		ns := float64(elapsed[i]) / float64(ops)
		b.ReportMetric(ns, c.name+"-ns/op")
		if i < len(cs)-1 {
			b.ReportMetric(boom/ns, c.name+"-speedup")
			// The median over rounds of the round's ratio: a stretch when
			// another process had the core spoils one round's ratio, not
			// the total.
			r := make([]float64, len(ratios))
			for j := range ratios {
				r[j] = ratios[j][i]
			}
			slices.Sort(r)
			b.ReportMetric(r[len(r)/2], c.name+"-medspeedup")
		}
		b.ReportMetric(float64(8*sets[i].bytes())/float64(n), c.name+"-bits/key")
		if op == "contains-miss" {
			b.ReportMetric(float64(found[i])/float64(ops), c.name+"-found/key")
		}
	}
}
