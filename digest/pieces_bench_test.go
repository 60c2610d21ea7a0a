package digest

import (
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// BenchmarkViewContains measures a receiver that holds a k = 1 digest
// (m/n = 92, the seed's 8-bits-per-element example) coded in pieces: the
// message's size against the whole stream's, the bytes the receiver holds
// (the coded pieces and one decoded piece), and the time of a query whose
// piece is in the cache and of one whose piece must be decoded.
//
//	go test ./digest -run '^$' -bench ViewContains -benchtime 20000x
func BenchmarkViewContains(b *testing.B) {
	const n = 10000
	f := bloomWith(b, bloom.Config{Layout: bloom.Classic, M: 92 * n, K: 1, Seed: 1}, 0, n)
	whole, _ := Encode(&Digest{Bloom: f}, Arith)
	for _, size := range []int{1 << 10, 4 << 10, 16 << 10, 128 << 10} {
		msg, err := EncodePieces(&Digest{Bloom: f}, Arith, size)
		if err != nil {
			b.Fatal(err)
		}
		for _, cached := range []bool{true, false} {
			name := fmt.Sprintf("piece=%dKiB/cached=%v", size>>10, cached)
			b.Run(name, func(b *testing.B) {
				v, err := DecodePieces(msg, envelope.Limits{}, 1)
				if err != nil {
					b.Fatal(err)
				}
				// Keys of the same piece (cached), or of two pieces in
				// turn with a one-piece cache (decoded every time).
				var keys [2][]byte
				bitsPer := uint64(8 * v.PieceBytes())
				var buf [64]uint64
				for i := 0; keys[1] == nil; i++ {
					k := key(n + i)
					p := v.Geometry().Positions(v.Geometry().Hash(k), &buf)[0] / bitsPer
					switch {
					case keys[0] == nil && p == 0:
						keys[0] = k
					case keys[0] != nil && (cached && p == 0 || !cached && p != 0) && v.Pieces() > 1:
						keys[1] = k
					case keys[0] != nil && v.Pieces() == 1:
						keys[1] = k
					}
				}
				v.Contains(keys[0])
				b.ResetTimer()
				for i := range b.N {
					v.Contains(keys[i&1])
				}
				b.ReportMetric(float64(len(msg)), "msg-bytes")
				b.ReportMetric(float64(len(whole)), "whole-bytes")
				b.ReportMetric(float64(v.MemoryBytes()), "held-bytes")
				b.ReportMetric(float64(8*len(f.Words())), "decoded-bytes")
			})
		}
	}
}
