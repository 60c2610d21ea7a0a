package digest

import (
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

var staticFigures = flag.Bool("static.figures", false, "TestStaticMemoryFigures prints the memory of static views and publishers at 10^5 and 10^6 keys")

// nodeRate is a node's default digest rate (16 bits per entry, k = 11),
// the rate of its static digests.
const nodeRate = 4.6e-4

// denseBytes is what a view's or publisher's two filters held decoded,
// as before they were held as their ones: ⌈m/64⌉ words each.
func denseBytes(m uint64) int { return 2 * 8 * int((m+63)/64) }

// TestStaticMemoryFigures prints, for 10^5 and 10^6 keys at ε = 1/256
// and at a node's default rate, the bytes a view and its publisher hold
// after the whole frame and after deltas of 1% and 10% of the keys
// changed (as many added as removed), beside what they held with the
// filters decoded. Run with -static.figures; it checks that the view is
// within the ribbon plus 8 bytes a bit set.
func TestStaticMemoryFigures(t *testing.T) {
	if !*staticFigures {
		t.Skip("-static.figures not set")
	}
	for _, n := range []int{100000, 1000000} {
		for _, rate := range []float64{1.0 / 256, nodeRate} {
			p, err := NewStaticPublisher(StaticConfig{Rate: rate, Seed: staticSeed})
			if err != nil {
				t.Fatal(err)
			}
			var v *StaticView
			for i, changed := range []int{0, n / 100, n / 10} {
				set := staticKeys("f", changed/2, n+changed/2) // changed/2 removed, changed/2 added
				frame, full, err := p.Publish(uint64(i+1), set)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				v = mustApply(t, v, frame)
				applied := time.Since(start)
				_, m := v.Sizes()
				ribbonBytes := int(v.static.SizeBits() / 8)
				set1 := v.added.bits.ones() + v.removed.bits.ones()
				if v.MemoryBytes() > ribbonBytes+8*int(set1)+2*4*258 {
					t.Errorf("view of %d bytes: ribbon %d and %d bits set", v.MemoryBytes(), ribbonBytes, set1)
				}
				t.Logf("n %d, ε %.3g, %d changed (frame %d B, whole %v, applied in %v): filters of %d bits, %d set; view %d B (before %d B), publisher %d B (before %d B); within 64 MiB: %v",
					n, rate, changed, len(frame), full, applied.Round(time.Microsecond), m, set1,
					v.MemoryBytes(), ribbonBytes+denseBytes(m),
					p.MemoryBytes(), 16*len(p.base)+len(p.ribbon)+denseBytes(m),
					v.MemoryBytes() <= 64<<20)
			}
			// A receiver that missed deltas takes the whole frame, its
			// filters coded whole, under a node's default --max-digest.
			whole, err := p.Whole()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			w, err := (*StaticView)(nil).Apply(whole, envelope.Limits{MaxPayload: 64 << 20})
			if err != nil {
				t.Fatalf("the whole frame under 64 MiB: %v", err)
			}
			if w.MemoryBytes() != v.MemoryBytes() {
				t.Errorf("the whole frame's view holds %d bytes, the deltas' %d", w.MemoryBytes(), v.MemoryBytes())
			}
			t.Logf("n %d, ε %.3g: whole frame after the deltas %d B, applied under a 64 MiB limit in %v",
				n, rate, len(whole), time.Since(start).Round(time.Microsecond))
		}
	}
}

// staticBench is a view of n keys at a node's default rate after a delta
// of 1% of them changed, with the two filters also decoded as Bloom
// filters, as views held them before.
type staticBench struct {
	v              *StaticView
	added, removed *bloom.Filter
	probe          []hashing.Hash128 // 1% members, the rest absent
}

var (
	staticBenchOnce sync.Once
	staticBenches   map[int]*staticBench
)

func staticBenchView(b testing.TB, n int) *staticBench {
	staticBenchOnce.Do(func() {
		staticBenches = map[int]*staticBench{}
		for _, n := range []int{100000, 1000000} {
			p, err := NewStaticPublisher(StaticConfig{Rate: nodeRate, Seed: staticSeed})
			if err != nil {
				b.Fatal(err)
			}
			var v *StaticView
			for i, set := range [][]hashing.Hash128{staticKeys("q", 0, n), staticKeys("q", n/200, n+n/200)} {
				frame, _, err := p.Publish(uint64(i+1), set)
				if err != nil {
					b.Fatal(err)
				}
				if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			s := &staticBench{v: v}
			for i, f := range []*staticFilter{v.added, v.removed} {
				bf, err := bloom.FromWords(f.header(), f.bits.words())
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					s.added = bf
				} else {
					s.removed = bf
				}
			}
			s.probe = append(staticKeys("absent", 0, 1<<16-1<<16/100), staticKeys("q", 0, 1<<16/100)...)
			staticBenches[n] = s
		}
	})
	return staticBenches[n]
}

// BenchmarkStaticViewQuery: ContainsHash of a view ("sparse": the
// filters held as their ones) against the same query on the filters
// decoded ("dense": as views answered before), at 10^5 and 10^6 keys,
// ε = 4.6·10^-4, after a delta of 1% of the keys changed; 99% of the
// keys queried absent. Each -count round runs all four, interleaved.
func BenchmarkStaticViewQuery(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		s := staticBenchView(b, n)
		b.Run(fmt.Sprintf("n=%d/sparse", n), func(b *testing.B) {
			hits := 0
			for i := 0; b.Loop(); i++ {
				if s.v.ContainsHash(s.probe[i&(len(s.probe)-1)]) {
					hits++
				}
			}
			sinkHits = hits
		})
		b.Run(fmt.Sprintf("n=%d/dense", n), func(b *testing.B) {
			hits := 0
			v := s.v
			for i := 0; b.Loop(); i++ {
				h := s.probe[i&(len(s.probe)-1)]
				if (v.static.ContainsHash(h) || s.added.ContainsHash(h)) && !s.removed.ContainsHash(h) {
					hits++
				}
			}
			sinkHits = hits
		})
	}
}

var sinkHits int

// TestStaticQueryInterleaved times the queries of BenchmarkStaticViewQuery
// in one run, the two forms alternating round by round (21 rounds of 2^20
// queries each), and prints each form's median ns per query. Run with
// -static.figures.
func TestStaticQueryInterleaved(t *testing.T) {
	if !*staticFigures {
		t.Skip("-static.figures not set")
	}
	const rounds, queries = 21, 1 << 20
	for _, n := range []int{100000, 1000000} {
		s := staticBenchView(t, n)
		v, mask := s.v, len(s.probe)-1
		var sparse, dense []float64
		hits := [2]int{}
		for range rounds {
			start := time.Now()
			for i := range queries {
				if v.ContainsHash(s.probe[i&mask]) {
					hits[0]++
				}
			}
			sparse = append(sparse, float64(time.Since(start).Nanoseconds())/queries)
			start = time.Now()
			for i := range queries {
				h := s.probe[i&mask]
				if (v.static.ContainsHash(h) || s.added.ContainsHash(h)) && !s.removed.ContainsHash(h) {
					hits[1]++
				}
			}
			dense = append(dense, float64(time.Since(start).Nanoseconds())/queries)
		}
		if hits[0] != hits[1] {
			t.Fatalf("n %d: %d hits held as ones, %d decoded", n, hits[0], hits[1])
		}
		slices.Sort(sparse)
		slices.Sort(dense)
		t.Logf("n %d, ε %.3g, 1%% changed: ContainsHash median %.1f ns held as ones (%.1f–%.1f), %.1f ns decoded (%.1f–%.1f); ratio %.2f",
			n, nodeRate, sparse[rounds/2], sparse[0], sparse[rounds-1], dense[rounds/2], dense[0], dense[rounds-1], sparse[rounds/2]/dense[rounds/2])
	}
}

// BenchmarkStaticViewApply applies viewBeforeDelta's delta, as
// TestStaticViewApplyMemory does: the work of Apply beside the ones its
// filters hold.
func BenchmarkStaticViewApply(b *testing.B) {
	v, last := viewBeforeDelta(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Apply(last, envelope.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
