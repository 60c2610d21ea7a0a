package node

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// peerHitObjects is the number of objects the peer holds in
// BenchmarkNodePeerHit.
const peerHitObjects = 100

// BenchmarkNodePeerHit is one peer hit through a front node's handler:
// the front stores nothing (its MaxObjectBytes is below the objects'
// size), finds the object in its view of its peer's digest and fetches
// it from the peer, a node serving on loopback that holds every object
// (cd bench && go run ./cmd/hits -peer measures the same path through
// real processes). allocs/op are the front's and the peer's together.
func BenchmarkNodePeerHit(b *testing.B) {
	origin := newRawOrigin(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	peer, err := NewNode(NodeConfig{Name: "peer", MemoryBytes: 64 << 20, Capacity: 1000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- peer.Serve(ctx, ln, nil) }()
	b.Cleanup(func() { cancel(); <-done })
	front, err := NewNode(NodeConfig{Name: "front", MemoryBytes: 64 << 20, MaxObjectBytes: missBenchBytes - 1,
		Capacity: 1000, Manual: true, Logger: slog.New(slog.DiscardHandler),
		Peers: []PeerConfig{{Name: "peer", Proxy: "http://" + ln.Addr().String()}}})
	if err != nil {
		b.Fatal(err)
	}
	addr := origin.ln.Addr().String()
	w := testutil.NewDiscardWriter()
	serve := func(h http.Handler, i int) {
		clear(w.Hdr)
		w.Status, w.N = 0, 0
		h.ServeHTTP(w, newMissRequest(addr, i%peerHitObjects))
		if w.Status != http.StatusOK || w.N != missBenchBytes {
			b.Fatalf("status %d, %d bytes", w.Status, w.N)
		}
	}
	for i := range peerHitObjects {
		serve(peer.Handler(), i)
	}
	if err := peer.Publisher().Publish(); err != nil {
		b.Fatal(err)
	}
	front.Directory().Refresh(ctx)
	h := front.Handler()
	serve(h, 0)
	before := front.stats()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		serve(h, i)
	}
	b.StopTimer()
	after := front.stats()
	if hits := after.PeerHits - before.PeerHits; hits != uint64(b.N) || after.Misses != before.Misses {
		b.Fatalf("%d peer hits of %d requests, %d misses", hits, b.N, after.Misses-before.Misses)
	}
}
