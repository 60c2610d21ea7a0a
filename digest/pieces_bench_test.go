package digest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
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

// BenchmarkPiecesLookup measures a lookup in a compressed view as a node
// holds a peer's digest (PiecesOf, fast, 1 KiB pieces, the default cache)
// at m/n 48, k 3, n = 10^5, on 1024 present keys (hit) and 1024 absent
// ones (miss) in turn, against the same view read the way it was before
// BitsTable: every piece outside a four-piece cache decoded whole with
// DecodeBits, which builds the piece's decoding table each time. Two
// rounds, interleaved; held-bytes is the view's MemoryBytes after the
// lookups, decoded-bytes the bit array's size.
//
//	go test ./digest -run '^$' -bench PiecesLookup -benchtime 20000x
func BenchmarkPiecesLookup(b *testing.B) {
	const n = 100000
	f := bloomWith(b, bloom.Config{Layout: bloom.Classic, M: 48 * n, K: 3, Seed: 1}, 0, n)
	msg, err := Encode(&Digest{Bloom: f}, Fast)
	if err != nil {
		b.Fatal(err)
	}
	keys := map[string][][]byte{}
	for i := range 1024 {
		keys["hit"] = append(keys["hit"], key(i*97%n))
		keys["miss"] = append(keys["miss"], key(n+i))
	}
	for round := 1; round <= 2; round++ {
		for _, kind := range []string{"hit", "miss"} {
			for _, form := range []string{"whole", "tables"} {
				b.Run(fmt.Sprintf("%s/%s/round=%d", kind, form, round), func(b *testing.B) {
					v, err := PiecesOf(msg, envelope.Limits{}, Fast, 1<<10, 0)
					if err != nil {
						b.Fatal(err)
					}
					lookup := v.Contains
					if form == "whole" {
						lookup = (&wholePieces{v: v}).contains
					}
					ks := keys[kind]
					want := kind == "hit"
					b.ResetTimer()
					for i := range b.N {
						if got, err := lookup(ks[i%len(ks)]); err != nil || (want && !got) {
							b.Fatalf("lookup: %v, %v", got, err)
						}
					}
					b.StopTimer()
					b.ReportMetric(float64(v.MemoryBytes()), "held-bytes")
					b.ReportMetric(float64(8*len(f.Words())), "decoded-bytes")
				})
			}
		}
	}
}

// wholePieces reads a Pieces the way it was read before BitsTable: a
// four-piece LRU cache of pieces decoded whole by DecodeBits.
type wholePieces struct {
	v     *Pieces
	mu    sync.Mutex
	cache [DefaultPieceCache]struct {
		piece, used uint64
		words       []uint64
	}
	clock uint64
}

func (w *wholePieces) contains(key []byte) (bool, error) {
	st := w.v.st
	w.v.rw.RLock()
	defer w.v.rw.RUnlock()
	var buf [params.MaxK]uint64
	bitsPer := 8 * st.x.pieceBytes
	for _, p := range w.v.geo.Positions(w.v.geo.Hash(key), &buf) {
		i, q := p/bitsPer, p%bitsPer
		w.mu.Lock()
		w.clock++
		lru := &w.cache[0]
		var words []uint64
		for j := range w.cache {
			c := &w.cache[j]
			if c.words != nil && c.piece == i {
				c.used, words = w.clock, c.words
				break
			}
			if c.used < lru.used {
				lru = c
			}
		}
		w.mu.Unlock()
		if words == nil {
			words = make([]uint64, w.v.pieceWords)
			if err := st.decodePiece(words[:(pieceBits(w.v.m, st.x.pieceBytes, i)+63)/64], w.v.m, i); err != nil {
				return false, err
			}
			w.mu.Lock()
			*lru = struct {
				piece, used uint64
				words       []uint64
			}{i, w.clock, words}
			w.mu.Unlock()
		}
		if words[q/64]>>(q%64)&1 == 0 {
			return false, nil
		}
	}
	return true, nil
}
