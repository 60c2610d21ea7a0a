package node

import (
	"io"
	"net/http"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestPeerTransferCoding: a peer's proxy that answers in the gzip
// transfer coding is decoded as an origin is, on one connection with a
// HEAD between.
func TestPeerTransferCoding(t *testing.T) {
	const text = "from the peer's cache"
	peer := testutil.NewRawOrigin(t, func(req *http.Request) (string, bool) {
		if req.Method == http.MethodHead {
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false
		}
		return "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, text), 6), false
	})
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "p", Proxy: peer.URL}}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var pf peerFetcher
	for _, c := range []struct{ method, want string }{{"GET", text}, {"HEAD", ""}, {"GET", text}} {
		req, _ := http.NewRequest(c.method, "http://origin.invalid/x", nil)
		resp, outcome, err := pf.Fetch(d.Peers()[0], &cache.Forward{Request: req})
		if err != nil || outcome != peerOutcomeHit {
			t.Fatalf("%s: %v %v", c.method, outcome, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != c.want {
			t.Fatalf("%s: %q %v, want %q", c.method, b, err, c.want)
		}
	}
	if n := peer.Conns.Load(); n != 1 {
		t.Errorf("peer accepted %d connections", n)
	}
}
