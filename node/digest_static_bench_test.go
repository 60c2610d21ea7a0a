package node

import (
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/hashing"
)

// BenchmarkStaticPublication is one static publication of a node of
// 10^5 objects, 5% of them changed since the last (serve's default
// threshold), in its parts: "keys", the store's keys hashed, as the node
// takes them at each publication; "set", the same hashes gathered from a
// set of hashed keys kept current from the store's events, the other
// way to feed a StaticPublisher; and "publish", the StaticPublisher's
// delta, which both pay.
func BenchmarkStaticPublication(b *testing.B) {
	const objects, changed = 100000, 5000
	n, err := NewNode(NodeConfig{Name: "bench", MemoryBytes: 256 << 20, Capacity: objects, Manual: true,
		FullDigests: FullDigestsStatic, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	put := func(i int) {
		if err := n.Store().Put(&cache.Entry{URL: fmt.Sprintf("http://origin.test/obj-%d", i), Status: http.StatusOK,
			Header: http.Header{}, Body: []byte("x"), RequestTime: now, ResponseTime: now}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range objects {
		put(i)
	}
	hashKeys := func() []hashing.Hash128 {
		keys := n.Store().Keys()
		hs := make([]hashing.Hash128, len(keys))
		for i, k := range keys {
			hs[i] = hashing.SumStringSeed(k, staticSeed)
		}
		return hs
	}
	b.Run("keys-only", func(b *testing.B) {
		for b.Loop() {
			n.Store().Keys()
		}
	})
	b.Run("keys", func(b *testing.B) {
		for b.Loop() {
			hashKeys()
		}
	})
	b.Run("set", func(b *testing.B) {
		set := make(map[hashing.Hash128]struct{}, objects)
		for _, h := range hashKeys() {
			set[h] = struct{}{}
		}
		b.ResetTimer()
		var hs []hashing.Hash128
		for b.Loop() {
			hs = make([]hashing.Hash128, 0, len(set))
			for h := range set {
				hs = append(hs, h)
			}
		}
		if len(hs) != objects {
			b.Fatalf("%d hashes", len(hs))
		}
	})
	b.Run("publish", func(b *testing.B) {
		s := n.static
		base := hashKeys()
		// The same set with its first changed keys replaced by new ones.
		next := hashKeys()[changed:]
		for i := range changed {
			next = append(next, hashing.SumStringSeed(fmt.Sprintf("http://origin.test/new-%d", i), staticSeed))
		}
		seq := uint64(1)
		for b.Loop() {
			b.StopTimer()
			if _, _, err := s.sp.Publish(seq, base); err != nil {
				b.Fatal(err)
			}
			seq++
			b.StartTimer()
			if _, full, err := s.sp.Publish(seq, next); err != nil || full {
				b.Fatal(full, err)
			}
			seq++
		}
	})
}
