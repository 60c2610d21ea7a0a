package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestZeroRoutersRefuse: the routers and the peer fetcher, zero or given
// nil, return cache.ErrConfig rather than panic (internal/apitest checks
// the same of the exported types).
func TestZeroRoutersRefuse(t *testing.T) {
	if _, _, err := (&digestRouter{}).Route(nil); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero digestRouter: %v", err)
	}
	if _, _, err := (&icpRouter{}).Route(nil); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero icpRouter: %v", err)
	}
	if _, o, err := (&peerFetcher{}).Fetch(nil, nil); o != peerOutcomeError || !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero peerFetcher: %v, %v", o, err)
	}
	for o, want := range map[peerOutcome]string{peerOutcomeHit: "hit", peerOutcomeFalseHit: "false_hit", peerOutcomeError: "error"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", o, got, want)
		}
	}
}

// TestFetcherFollowsReconfiguredProxy: a peer reconfigured with another
// proxy under the same name is asked through the new proxy, not through
// a client kept for the old one.
func TestFetcherFollowsReconfiguredProxy(t *testing.T) {
	proxy := func(body string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s
	}
	a, b := proxy("from a"), proxy("from b")
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "p", Proxy: a.URL}}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var pf peerFetcher
	fetch := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://origin.invalid/x", nil)
		resp, outcome, err := pf.Fetch(d.Peers()[0], &cache.Forward{Request: req})
		if err != nil || outcome != peerOutcomeHit {
			t.Fatalf("%v %v", outcome, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	if got := fetch(); got != "from a" {
		t.Fatalf("before: %q", got)
	}
	if err := d.replacePeers([]PeerConfig{{Name: "p", Proxy: b.URL}}); err != nil {
		t.Fatal(err)
	}
	if got := fetch(); got != "from b" {
		t.Fatalf("after the peer's proxy changed: %q", got)
	}
	allocs := testing.AllocsPerRun(20, func() { pf.client(d.Peers()[0]) })
	if allocs != 0 {
		t.Errorf("a known peer's client: %v allocations", allocs)
	}
}

// TestFetcherResponseHeadLimit: a peer's response head over
// originclient.MaxResponseHeaderBytes is an error, as an origin's is: the
// peer is not taken to have answered (peerOutcomeError), and the miss
// goes on to the next peer or the origin. A head of 60 KiB is a hit.
func TestFetcherResponseHeadLimit(t *testing.T) {
	pad := strings.Repeat("p", 1000)
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fields := 60 // of about 1 KiB each
		if r.URL.Path == "/large" {
			fields = 2048
		}
		for i := range fields {
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), pad)
		}
		_, _ = io.WriteString(w, "small")
	}))
	t.Cleanup(peer.Close)
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "p", Proxy: peer.URL}}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var pf peerFetcher
	for path, want := range map[string]peerOutcome{"/large": peerOutcomeError, "/within": peerOutcomeHit} {
		req, _ := http.NewRequest(http.MethodGet, "http://origin.invalid"+path, nil)
		resp, outcome, err := pf.Fetch(d.Peers()[0], &cache.Forward{Request: req})
		if resp != nil {
			resp.Body.Close()
		}
		if outcome != want {
			t.Errorf("%s: %v, %v; want %v", path, outcome, err, want)
		}
	}
}

// TestPeerConnectionsKept: under as many concurrent peer hits as the
// pool keeps idle connections, a front reuses its connections to the
// peer from one burst to the next instead of closing and redialling
// those a smaller pool could not keep.
func TestPeerConnectionsKept(t *testing.T) {
	const concurrent, bursts = 64, 3
	origin := newRawOrigin(t)
	peer, err := NewNode(NodeConfig{Name: "peer", MemoryBytes: 64 << 20, Capacity: 1000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// Digest fetches pass; object requests wait for their burst.
	burst := &testutil.Burst{N: concurrent, Hold: func(r *http.Request) bool { return r.URL.Path != DigestPath }}
	srv := httptest.NewUnstartedServer(burst.Wrap(peer.Handler()))
	srv.Config.ConnState = burst.ConnState
	srv.Start()
	t.Cleanup(srv.Close)
	front, err := NewNode(NodeConfig{Name: "front", MemoryBytes: 64 << 20, MaxObjectBytes: missBenchBytes - 1,
		Capacity: 1000, Manual: true, Logger: slog.New(slog.DiscardHandler),
		Peers: []PeerConfig{{Name: "peer", Proxy: srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	addr := origin.ln.Addr().String()
	for i := range concurrent {
		if w := serveRecorded(peer.Handler(), newMissRequest(addr, i)); w.Code != http.StatusOK {
			t.Fatalf("filling the peer: status %d", w.Code)
		}
	}
	if err := peer.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	front.Directory().Refresh(context.Background())
	before := burst.Connections()
	for range bursts {
		burst.Run(func(i int) {
			if w := serveRecorded(front.Handler(), newMissRequest(addr, i)); w.Code != http.StatusOK {
				t.Errorf("status %d", w.Code)
			}
		})
	}
	if hits := front.stats().PeerHits; hits != concurrent*bursts {
		t.Fatalf("%d peer hits, want %d", hits, concurrent*bursts)
	}
	if n := burst.Connections() - before; n > concurrent {
		t.Errorf("%d connections to the peer for %d bursts of %d concurrent requests, want at most %d",
			n, bursts, concurrent, concurrent)
	}
}

func serveRecorded(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestOnlyIfCached: a peer is asked for a stored response only, every
// Cache-Control line of the request kept, and the request the next peer
// or the origin is sent is left as it was.
func TestOnlyIfCached(t *testing.T) {
	h := http.Header{"Cache-Control": {"max-age=0", "no-transform"}, "Accept": {"text/html"}}
	got := onlyIfCached(h)
	if cc := got["Cache-Control"]; len(cc) != 1 || cc[0] != "max-age=0, no-transform, only-if-cached" {
		t.Errorf("Cache-Control %q", cc)
	}
	if got.Get("Accept") != "text/html" {
		t.Errorf("Accept %q", got.Get("Accept"))
	}
	if cc := h["Cache-Control"]; len(cc) != 2 || cc[1] != "no-transform" {
		t.Errorf("the request's own header changed: %q", cc)
	}
	if got := onlyIfCached(http.Header{}); got.Get("Cache-Control") != "only-if-cached" {
		t.Errorf("no Cache-Control: %q", got.Get("Cache-Control"))
	}
	asked := http.Header{"Cache-Control": {"Only-If-Cached"}}
	if got := onlyIfCached(asked); got.Get("Cache-Control") != "Only-If-Cached" || len(got) != 1 {
		t.Errorf("already asked: %v", got)
	}
}

// TestPeerRefusalNotRelayed: a peer that serves this node its digest but
// refuses it as a client (its allow-clients leave the node out) answers
// 403 to the objects its digest holds; the node goes to the origin
// instead of relaying the 403 to its client as the peer's hit, and
// counts the answer as the peer's error.
func TestPeerRefusalNotRelayed(t *testing.T) {
	origin := newTestOrigin(t)
	lnA := listen(t, "127.0.0.1:0")
	a := startNode(t, lnA, nil, NodeConfig{Name: "a"})
	b := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "b",
		Peers: []PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}}})
	a.get(t, origin.URL+"/obj")
	cfg := a.cfg
	cfg.AllowClients = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	if _, err := a.Reconfigure(cfg); err != nil {
		t.Fatal(err)
	}
	if err := a.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	b.Directory().Refresh(context.Background())
	if len(b.Directory().Candidates(origin.URL+"/obj")) != 1 {
		t.Fatal("a's digest does not hold the object")
	}
	body, resp := b.get(t, origin.URL+"/obj")
	if resp.StatusCode != http.StatusOK || body != "object /obj" || origin.count("/obj") != 2 {
		t.Fatalf("through b: %s %q, origin asked %d times", resp.Status, body, origin.count("/obj"))
	}
	if got := b.metric(t, `bloomcast_peer_requests_total{peer="a",result="error"}`); got != "1" {
		t.Fatalf("errors of peer a: %q", got)
	}
}
