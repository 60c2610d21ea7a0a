package node

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
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
	if err := d.SetPeers([]PeerConfig{{Name: "p", Proxy: b.URL}}); err != nil {
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
