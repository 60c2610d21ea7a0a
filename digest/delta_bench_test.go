package digest

import (
	"flag"
	"fmt"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

var largeDeltas = flag.Bool("delta.large", false, "BenchmarkDiff and BenchmarkPatch also at 10^7 keys")

// deltaPair is a blocked filter of n keys at 16 bits per key, k = 11, and
// its next version with changed keys more.
type deltaPair struct{ base, next *Digest }

var deltaPairs = map[[2]int]deltaPair{}

func deltaPairFor(b *testing.B, n, changed int) deltaPair {
	if p, ok := deltaPairs[[2]int{n, changed}]; ok {
		return p
	}
	base, ok := deltaPairs[[2]int{n, 0}]
	if !ok {
		c := bloom.Config{Layout: bloom.Blocked, M: uint64(16 * n), K: 11, Seed: 1}
		base = deltaPair{base: &Digest{Sequence: 1, Bloom: bloomWith(b, c, 0, n)}}
		deltaPairs[[2]int{n, 0}] = base
	}
	next := base.base.Bloom.Clone()
	for i := n; i < n+changed; i++ {
		next.Add(key(i))
	}
	p := deltaPair{base.base, &Digest{Sequence: 2, Bloom: next}}
	deltaPairs[[2]int{n, changed}] = p
	return p
}

// deltaSizes are the benchmarks' filter sizes: 10^4 to 10^6 keys (10^4
// and 10^5 under -short), 10^7 with -delta.large.
func deltaSizes() []int {
	sizes := []int{1e4, 1e5}
	if !testing.Short() {
		sizes = append(sizes, 1e6)
	}
	if *largeDeltas {
		sizes = append(sizes, 1e7)
	}
	return sizes
}

// BenchmarkDiff measures Diff of a blocked filter (16 bits per key, k =
// 11) and its next version with 1 to 10^4 keys added, per codec asked
// for; delta-bytes is the delta's size and codec-N the codec written
// (envelope.Codec).
//
//	go test ./digest -run '^$' -bench 'Diff|Patch' -benchtime 20x -args -delta.large
func BenchmarkDiff(b *testing.B) {
	for _, n := range deltaSizes() {
		for _, changed := range []int{1, 100, 1e4} {
			for _, c := range []Codec{Raw, Arith, Fast, Auto} {
				b.Run(fmt.Sprintf("keys=%d/changed=%d/%v", n, changed, c), func(b *testing.B) {
					p := deltaPairFor(b, n, changed)
					var delta []byte
					for range b.N {
						var err error
						if delta, err = Diff(p.base, p.next, c); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(delta)), "delta-bytes")
					b.ReportMetric(float64(delta[7]), "codec")
				})
			}
		}
	}
}

// patched holds BenchmarkPatch's last result until the next, as a
// receiver holds its patched view: a result dropped at once measures the
// runtime returning its 2 MB to the system and faulting it back in.
var patched *Digest

// BenchmarkPatch measures Patch of the deltas of BenchmarkDiff;
// cpu-ms/op is the process's CPU time per patch on Linux, the collector's
// work on the arrays Patch allocates included.
func BenchmarkPatch(b *testing.B) {
	for _, n := range deltaSizes() {
		for _, changed := range []int{1, 100, 1e4} {
			for _, c := range []Codec{Raw, Arith, Fast, Auto} {
				b.Run(fmt.Sprintf("keys=%d/changed=%d/%v", n, changed, c), func(b *testing.B) {
					p := deltaPairFor(b, n, changed)
					delta, err := Diff(p.base, p.next, c)
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					cpu0, ok := processCPU()
					for range b.N {
						if patched, err = Patch(p.base, delta, envelope.Limits{}); err != nil {
							b.Fatal(err)
						}
					}
					if cpu1, ok1 := processCPU(); ok && ok1 {
						b.ReportMetric(float64(cpu1-cpu0)/1e6/float64(b.N), "cpu-ms/op")
					}
				})
			}
		}
	}
}

// BenchmarkPatchInPlace measures Patcher.Patch, a receiver's in-place
// patch, of the deltas of BenchmarkDiff: each iteration applies the next
// of a chain of deltas that alternate between the two versions.
func BenchmarkPatchInPlace(b *testing.B) {
	for _, n := range deltaSizes() {
		for _, changed := range []int{1, 100, 1e4} {
			for _, c := range []Codec{Raw, Arith, Fast, Auto} {
				b.Run(fmt.Sprintf("keys=%d/changed=%d/%v", n, changed, c), func(b *testing.B) {
					pair := deltaPairFor(b, n, changed)
					versions := [2]*bloom.Filter{pair.base.Bloom, pair.next.Bloom}
					deltas := make([][]byte, b.N)
					for i := range deltas {
						from := &Digest{Sequence: uint64(i + 1), Bloom: versions[i%2]}
						to := &Digest{Sequence: uint64(i + 2), Bloom: versions[(i+1)%2]}
						var err error
						if deltas[i], err = Diff(from, to, c); err != nil {
							b.Fatal(err)
						}
					}
					p, err := NewPatcher(&Digest{Sequence: 1, Bloom: pair.base.Bloom.Clone()})
					if err != nil {
						b.Fatal(err)
					}
					var mu sync.RWMutex
					b.ResetTimer()
					for i := range b.N {
						if err := p.Patch(deltas[i], envelope.Limits{}, &mu); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkPatchPieces measures Pieces.Patch, a receiver's compressed
// view (fast-coded pieces of 1 KiB, as a node holds its peers'), on the
// chain of deltas of BenchmarkPatchInPlace.
func BenchmarkPatchPieces(b *testing.B) {
	for _, n := range deltaSizes() {
		for _, changed := range []int{1, 100, 1e4} {
			for _, c := range []Codec{Raw, Auto} {
				b.Run(fmt.Sprintf("keys=%d/changed=%d/%v", n, changed, c), func(b *testing.B) {
					pair := deltaPairFor(b, n, changed)
					versions := [2]*bloom.Filter{pair.base.Bloom, pair.next.Bloom}
					deltas := make([][]byte, b.N)
					for i := range deltas {
						from := &Digest{Sequence: uint64(i + 1), Bloom: versions[i%2]}
						to := &Digest{Sequence: uint64(i + 2), Bloom: versions[(i+1)%2]}
						var err error
						if deltas[i], err = Diff(from, to, c); err != nil {
							b.Fatal(err)
						}
					}
					full, err := Encode(pair.base, Fast)
					if err != nil {
						b.Fatal(err)
					}
					v, err := PiecesOf(full, envelope.Limits{}, Fast, 1024, 0)
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for i := range b.N {
						if err := v.Patch(deltas[i], envelope.Limits{}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
