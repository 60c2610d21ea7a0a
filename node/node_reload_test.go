package node

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/bloomcast/bloomcast/cache"
)

// TestNodeReconfigure: peers, allow-lists and the threshold change in a
// running node; the cache and the views of the peers kept stay.
func TestNodeReconfigure(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB, lnC := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	peerB := PeerConfig{Name: "b", Proxy: "http://" + lnB.Addr().String()}
	peerC := PeerConfig{Name: "c", Proxy: "http://" + lnC.Addr().String()}
	cfgA := NodeConfig{Name: "a", Peers: []PeerConfig{peerB}}
	testNodeDefaults(&cfgA)
	a := startNode(t, lnA, nil, cfgA)
	b := startNode(t, lnB, nil, NodeConfig{Name: "b"})
	startNode(t, lnC, nil, NodeConfig{Name: "c"})
	b.get(t, origin.URL+"/obj/1")
	a.get(t, origin.URL+"/obj/2")
	b.Publisher().Publish()
	a.Directory().Refresh(context.Background())
	viewB := a.Directory().Peers()[0]
	seqB := a.Directory().status()[0].Sequence
	if seqB == 0 {
		t.Fatalf("no view of b before the change: %+v", a.Directory().status()[0])
	}

	// An invalid configuration changes nothing.
	bad := cfgA
	bad.Peers = []PeerConfig{peerB, {Proxy: "ftp://x"}}
	if _, err := a.Reconfigure(bad); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("bad peer: %v", err)
	}
	bad = cfgA
	bad.Threshold = 2
	if _, err := a.Reconfigure(bad); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("bad threshold: %v", err)
	}
	if got := a.Directory().Peers(); len(got) != 1 || got[0] != viewB {
		t.Fatalf("peers after a refused change: %v", got)
	}

	next := cfgA
	next.Peers = []PeerConfig{peerC, peerB}
	next.Threshold = 0.5
	next.MemoryBytes = 16 << 20
	next.AllowClients = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	restart, err := a.Reconfigure(next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(restart, []string{"MemoryBytes"}) {
		t.Fatalf("restart needed for %q", restart)
	}
	peers := a.Directory().Peers()
	if len(peers) != 2 || peers[0].Name() != "c" || peers[1] != viewB {
		t.Fatalf("peers %v", peers)
	}
	// b's view is kept, not refetched from nothing: the directory's own
	// poll loop may fetch b again at any time, so the test asks only that
	// the view is there and its sequence did not go back.
	if st := a.Directory().status(); !st[1].HasView || st[1].Sequence < seqB {
		t.Fatalf("b's view after the change (sequence %d before): %+v", seqB, st[1])
	}
	// The new peer is polled by Run without being asked.
	deadline := time.Now().Add(5 * time.Second)
	for !a.Directory().status()[0].HasView {
		if time.Now().After(deadline) {
			t.Fatalf("c never polled: %+v", a.Directory().status()[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Loopback is no longer a client; the cache is still there.
	if _, resp := a.get(t, origin.URL+"/obj/2"); resp.StatusCode != 403 {
		t.Fatalf("loopback client after the change: %s", resp.Status)
	}
	if a.Store().Len() != 1 {
		t.Fatalf("store holds %d", a.Store().Len())
	}
	next.AllowClients = nil
	if _, err := a.Reconfigure(next); err != nil {
		t.Fatal(err)
	}
	if _, resp := a.get(t, origin.URL+"/obj/2"); resp.Header.Get("X-Cache") != "HIT from a" {
		t.Fatalf("X-Cache %q after allowing loopback again", resp.Header.Get("X-Cache"))
	}
	a.Publisher().mu.Lock()
	th := a.Publisher().cfg.Threshold
	a.Publisher().mu.Unlock()
	if th != 0.5 {
		t.Fatalf("threshold %g", th)
	}
}

// TestReconfigureRemovedPeerPollNotFailure: a reload that removes a peer
// while its digest is being fetched abandons that fetch; the peer did
// not fail, so nothing is logged or counted against it.
func TestReconfigureRemovedPeerPollNotFailure(t *testing.T) {
	arrived, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	peer := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done() // the node gives up on the request
		gone <- struct{}{}
	})}
	lnPeer := listen(t, "127.0.0.1:0")
	go func() { _ = peer.Serve(lnPeer) }()
	t.Cleanup(func() { _ = peer.Close() })

	logs := &syncBuffer{}
	cfg := NodeConfig{Name: "a", Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Peers: []PeerConfig{{Name: "x", Proxy: "http://" + lnPeer.Addr().String()}}}
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, cfg)
	<-arrived // a new peer is polled at once
	next := cfg
	next.Peers = nil
	if _, err := a.Reconfigure(next); err != nil {
		t.Fatal(err)
	}
	<-gone
	a.stop() // waits for the peer's poll to return
	if strings.Contains(logs.String(), "peer digest fetch failed") {
		t.Fatalf("a removed peer's abandoned poll was logged as a failure:\n%s", logs)
	}
	mfs, err := a.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "bloomcast_peer_digest_fetch_failures_total" {
			t.Fatalf("a removed peer's abandoned poll was counted as a failure: %v", mf)
		}
	}
}

// TestReconfigureRemovedPeerReleased: a peer a reload removes, after the
// node asked it for an object, is released with its view: repeated
// reloads that drop and add peers do not make the node grow.
func TestReconfigureRemovedPeerReleased(t *testing.T) {
	origin := newTestOrigin(t)
	lnC := listen(t, "127.0.0.1:0")
	c := startNode(t, lnC, nil, NodeConfig{Name: "c"})
	cfgA := NodeConfig{Name: "a", Peers: []PeerConfig{{Name: "c", Proxy: c.url()}}}
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, cfgA)
	c.get(t, origin.URL+"/obj/1")
	c.Publisher().Publish()
	a.Directory().Refresh(context.Background())
	if _, resp := a.get(t, origin.URL+"/obj/1"); !strings.Contains(resp.Header.Get("X-Cache"), "HIT from c") {
		t.Fatalf("X-Cache %q: want a hit from c", resp.Header.Get("X-Cache"))
	}
	removed := weak.Make(a.Directory().Peers()[0])
	next := cfgA
	next.Peers = nil
	if _, err := a.Reconfigure(next); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the removed peer to be released", func() bool {
		runtime.GC()
		return removed.Value() == nil
	})
}

// TestReconfigureRemovedPeerSeries: a reload that removes peers removes
// their series from /metrics, as it removes them from the status page.
func TestReconfigureRemovedPeerSeries(t *testing.T) {
	origin := newTestOrigin(t)
	c := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "c"})
	down := listen(t, "127.0.0.1:0")
	downURL := "http://" + down.Addr().String()
	_ = down.Close() // a peer that refuses connections: its polls fail
	cfgA := NodeConfig{Name: "a", Peers: []PeerConfig{{Name: "c", Proxy: c.url()}, {Name: "d", Proxy: downURL}}}
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, cfgA)
	c.get(t, origin.URL+"/obj/1")
	c.Publisher().Publish()
	a.Directory().Refresh(context.Background())
	a.get(t, origin.URL+"/obj/1")
	if a.metric(t, `bloomcast_peer_requests_total{peer="c",result="hit"}`) != "1" ||
		a.metric(t, `bloomcast_peer_digest_fetch_failures_total{peer="d"}`) == "" {
		t.Fatal("no series of the peers before the reload")
	}
	next := cfgA
	next.Peers = nil
	if _, err := a.Reconfigure(next); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`bloomcast_peer_requests_total{peer="c",result="hit"}`, `bloomcast_peer_digest_fetch_failures_total{peer="d"}`} {
		if v := a.metric(t, s); v != "" {
			t.Errorf("%s %s after the peer was removed", s, v)
		}
	}
}
