package node

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
)

// TestNodesCompressedPeerViews: a node holding its peer's digest in
// pieces routes a miss to the peer that holds the object, applies the
// peer's deltas to the pieces, and reports the bytes it holds.
func TestNodesCompressedPeerViews(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	// Manual: only the test publishes and polls, so the counts of full
	// fetches and deltas below are exact.
	a := startNode(t, lnA, nil, NodeConfig{PeerViews: PeerViewsCompressed, Manual: true,
		Peers: []PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}}})
	b := startNode(t, lnB, nil, NodeConfig{Capacity: 100000, Manual: true,
		Peers: []PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}}})
	ctx := context.Background()
	obj := func(i int) string { return fmt.Sprintf("%s/obj/%d", origin.URL, i) }
	for i := range 20 {
		b.get(t, obj(i))
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)

	st := a.Directory().status()[0]
	decoded := int(b.Publisher().view.M()+63) / 64 * 8
	if !st.HasView || st.Form != string(PeerViewsCompressed) || st.HeldBytes <= 0 || st.HeldBytes > decoded/10 {
		t.Fatalf("a's view of b: %+v (decoded: %d bytes)", st, decoded)
	}
	if got := a.metric(t, `bloomcast_peer_view_bytes{form="compressed",peer="b"}`); got != strconv.Itoa(st.HeldBytes) {
		t.Fatalf("bloomcast_peer_view_bytes: %q, status %d", got, st.HeldBytes)
	}
	if body, _ := a.get(t, obj(3)); body != "object /obj/3" || origin.count("/obj/3") != 1 {
		t.Fatalf("peer hit: body %q, origin asked %d times", body, origin.count("/obj/3"))
	}
	if !strings.Contains(a.log.String(), "CD_SIBLING_HIT/b") {
		t.Fatalf("access log of a:\n%s", a.log)
	}
	// A miss that b does not hold goes to the origin, not to b.
	if body, _ := a.get(t, obj(100)); body != "object /obj/100" || a.metric(t, `bloomcast_peer_requests_total{peer="b",result="false_hit"}`) != "" {
		t.Fatalf("a miss: %q", body)
	}

	// b publishes more; a patches its pieces with the delta.
	for i := 20; i < 25; i++ {
		b.get(t, obj(i))
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)
	st = a.Directory().status()[0]
	if st.Full != 1 || st.Delta != 1 || st.Sequence != b.Publisher().stats().Sequence || st.Form != string(PeerViewsCompressed) {
		t.Fatalf("a's view of b after a delta: %+v", st)
	}
	if body, _ := a.get(t, obj(22)); body != "object /obj/22" || origin.count("/obj/22") != 1 {
		t.Fatal("object published in a delta not fetched from b")
	}
	if got := a.metric(t, `bloomcast_requests_total{outcome="peer_hit"}`); got != "2" {
		t.Fatalf("peer hits: %q", got)
	}
	// b's own view of a is decoded.
	b.Directory().Refresh(ctx)
	if st := b.Directory().status()[0]; st.Form != string(PeerViewsDecoded) || st.HeldBytes != 2000 {
		t.Fatalf("b's view of a: %+v", st)
	}
}

func TestPeerViewsConfig(t *testing.T) {
	if _, err := NewNode(NodeConfig{PeerViews: "zipped"}); !errors.Is(err, cache.ErrConfig) || !strings.Contains(err.Error(), "peer views") {
		t.Fatalf("PeerViews zipped: %v", err)
	}
	if _, err := newDirectory(directoryConfig{PeerViews: "zipped"}); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("directoryConfig.PeerViews zipped: %v", err)
	}
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{})
	restart, err := n.Reconfigure(NodeConfig{Listen: n.cfg.Listen, Name: n.cfg.Name, PeerViews: PeerViewsCompressed,
		PollInterval: n.cfg.PollInterval, MemoryBytes: n.cfg.MemoryBytes, Capacity: n.cfg.Capacity})
	if err != nil || len(restart) != 1 || restart[0] != "PeerViews" {
		t.Fatalf("Reconfigure to compressed views: restart %v, %v", restart, err)
	}
}

// peerViewBench is a peer publishing a digest of n keys, and a directory
// that holds it in the given form.
func peerViewBench(tb testing.TB, filter counting.Config, n int, form PeerViews) (dir *Directory, allocated, retained uint64) {
	pub, err := newPublisher(publisherConfig{Filter: filter, Codec: 0})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		pub.Stored("http://example.com/obj/" + strconv.Itoa(i))
	}
	if err := pub.Publish(); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(pub.serveHTTP))
	defer srv.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dir, err = newDirectory(directoryConfig{PeerViews: form, Peers: []PeerConfig{{Name: "p", Proxy: srv.URL}}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := dir.RefreshPeer(context.Background(), dir.Peers()[0]); err != nil {
		tb.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated = after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	return dir, allocated, retained
}

// BenchmarkPeerViews compares a receiver holding a peer's digest decoded
// and compressed: the bytes the view holds (bloomcast_peer_view_bytes),
// the heap the fetch allocated and kept, and the time of a lookup
// (Directory.Candidates) of keys half stored, half not. Two digests of
// 10^5 keys: the node's default (16 bits per key, k = 11: it hardly
// compresses) and one shaped to compress (48 bits per key, k = 3,
// Mitzenmacher's example). Two rounds, the forms in turn.
//
//	go test ./cache -run '^$' -bench PeerViews -benchtime 20000x
func BenchmarkPeerViews(b *testing.B) {
	const n = 100000
	for round := 1; round <= 2; round++ {
		for _, shape := range []struct {
			name string
			cfg  counting.Config
		}{
			{"m/n=16,k=11", counting.Config{M: 16 * n, K: 11}},
			{"m/n=48,k=3", counting.Config{M: 48 * n, K: 3}},
		} {
			for _, form := range []PeerViews{PeerViewsDecoded, PeerViewsCompressed} {
				b.Run(fmt.Sprintf("%s/%s/round=%d", shape.name, form, round), func(b *testing.B) {
					dir, allocated, retained := peerViewBench(b, shape.cfg, n, form)
					keys := make([]string, 1024)
					for i := range keys {
						keys[i] = "http://example.com/obj/" + strconv.Itoa(i*197%(2*n))
					}
					b.ResetTimer()
					for i := range b.N {
						dir.Candidates(keys[i%len(keys)])
					}
					b.StopTimer()
					st := dir.status()[0]
					b.ReportMetric(float64(st.HeldBytes), "held-bytes")
					b.ReportMetric(float64(st.Bytes), "msg-bytes")
					b.ReportMetric(float64(allocated), "fetch-alloc-bytes")
					b.ReportMetric(float64(retained), "retained-bytes")
				})
			}
		}
	}
}

// TestPeerViewsConcurrent looks up keys in compressed and decoded views
// while deltas patch them, the decoded ones in place (run with -race).
func TestPeerViewsConcurrent(t *testing.T) {
	for _, form := range []PeerViews{PeerViewsCompressed, PeerViewsDecoded} {
		t.Run(string(form), func(t *testing.T) { testPeerViewsConcurrent(t, form) })
	}
}

func testPeerViewsConcurrent(t *testing.T, form PeerViews) {
	pub, err := newPublisher(publisherConfig{Filter: counting.Config{M: 1 << 16, K: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		pub.Stored("k" + strconv.Itoa(i))
	}
	pub.Publish()
	srv := httptest.NewServer(http.HandlerFunc(pub.serveHTTP))
	defer srv.Close()
	dir, err := newDirectory(directoryConfig{PeerViews: form, Peers: []PeerConfig{{Name: "p", Proxy: srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dir.RefreshPeer(ctx, dir.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if k := (g*31 + i) % 200; len(dir.Candidates("k"+strconv.Itoa(k))) != 1 {
					t.Errorf("stored key %d: not a candidate", k)
					return
				}
			}
		}()
	}
	for round := range 10 {
		for i := 200 + 10*round; i < 210+10*round; i++ {
			pub.Stored("k" + strconv.Itoa(i))
		}
		pub.Publish()
		if err := dir.RefreshPeer(ctx, dir.Peers()[0]); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	st := dir.status()[0]
	if st.Delta != 10 || st.Resync != 0 {
		t.Fatalf("after 10 publications: %+v", st)
	}
	for i := range 300 {
		if len(dir.Candidates("k"+strconv.Itoa(i))) != 1 {
			t.Fatalf("key k%d stored before the last publication is no candidate", i)
		}
	}
}
