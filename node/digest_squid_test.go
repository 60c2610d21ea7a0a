package node

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

func TestSquidDigestMatchesSquid(t *testing.T) {
	d, err := newSquidDigest(squidDigestConfig{Capacity: 500})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := squid.New(500, 5)
	for i := range 300 {
		d.Stored(urlKey(i))
	}
	for i := range 300 {
		if i >= 100 {
			ref.Add(squid.GET, urlKey(i))
		} else {
			d.Evicted(urlKey(i))
		}
	}
	got := d.Digest()
	if !got.Filter.Equal(ref.Filter) {
		t.Fatal("the incremental digest differs from one Squid would build from the remaining keys")
	}
	if got.Header.Count != 200 || got.Header.DelCount != 100 || got.Header.MaskSize != ref.Header.MaskSize {
		t.Fatalf("header %+v", got.Header)
	}
}

// TestSquidDigestFlushesHeader checks the bug-5510 workaround on the wire:
// the HTTP header and the 128-byte digest header arrive before the mask,
// in a separate chunk of the stream.
func TestSquidDigestFlushesHeader(t *testing.T) {
	d, _ := newSquidDigest(squidDigestConfig{Capacity: 4000, Lifetime: time.Hour})
	for i := range 1000 {
		d.Stored(urlKey(i))
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.ServeHTTP(&pausingWriter{ResponseWriter: w, release: release}, r)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET "+squidDigestPath+" HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "application/cache-digest" || resp.Header.Get("Expires") == "" ||
		resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("headers %v", resp.Header)
	}
	// Before the mask is released, exactly the 128-byte header is there.
	head := make([]byte, squid.HeaderSize)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	if n := br.Buffered(); n != 0 {
		t.Fatalf("%d bytes of mask arrived with the header", n)
	}
	close(release)
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := squid.Decode(append(head, rest...), squid.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Filter.Equal(d.Digest().Filter) {
		t.Fatal("served digest differs")
	}
}

// pausingWriter holds the second body write until released, so the test
// can see what the first flush put on the wire.
type pausingWriter struct {
	http.ResponseWriter
	release chan struct{}
	writes  int
}

func (p *pausingWriter) Write(b []byte) (int, error) {
	p.writes++
	if p.writes == 2 {
		<-p.release
	}
	return p.ResponseWriter.Write(b)
}

func (p *pausingWriter) Flush() { p.ResponseWriter.(http.Flusher).Flush() }

func TestSquidDigestMethods(t *testing.T) {
	d, _ := newSquidDigest(squidDigestConfig{})
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, squidDigestPath, strings.NewReader("")))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	d.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, squidDigestPath, nil))
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Fatalf("HEAD: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

// TestSquidDigestFlushesThroughWrappers checks that the header still goes
// out first, and the mask only after MaskDelay, when the writer is wrapped
// as the node wraps it (the controller must find Flush through Unwrap).
func TestSquidDigestFlushesThroughWrappers(t *testing.T) {
	d, _ := newSquidDigest(squidDigestConfig{Capacity: 100, MaskDelay: 600 * time.Millisecond})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.ServeHTTP(&httpx.CountingWriter{ResponseWriter: w}, r)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + squidDigestPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, squid.HeaderSize)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("the mask came %v after the header; the header was not flushed first", waited)
	}
}

// TestSquidDigestNotModified: a node answers a fetch of its Squid digest
// with If-Modified-Since its Last-Modified with 304 while the digest is
// unchanged, as Squid answers for its own, and with the digest once an
// object is stored, also when it is stored within the second of the last
// fetch. The peer is another node polling it as a Squid peer.
func TestSquidDigestNotModified(t *testing.T) {
	clock := testutil.NewClock(time.Unix(1e9, 5e8))
	origin := newTestOrigin(t)
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "a", Now: clock.Now})
	a.get(t, origin.URL+"/first")
	b := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "b", Now: clock.Now,
		Peers: []PeerConfig{{Name: "a", Proxy: a.url(), Protocol: Squid}}})
	d, ctx := b.directory, context.Background()
	p := d.Peers()[0]
	waitFor(t, 5*time.Second, "the first poll", func() bool { return d.status()[0].HasView })
	poll := func() peerStatus {
		t.Helper()
		if err := d.RefreshPeer(ctx, p); err != nil {
			t.Fatal(err)
		}
		return d.status()[0]
	}
	// Fetched in the second of its last change: the next poll is not
	// answered 304, as a change later in that second would be missed.
	if s := poll(); s.Full != 2 || s.NotModified != 0 {
		t.Fatalf("a poll within the second of the change: %+v", s)
	}
	clock.Advance(time.Second)
	poll()
	if s := poll(); s.Full != 3 || s.NotModified != 1 {
		t.Fatalf("two polls of an unchanged digest: %+v", s)
	}
	// Stored within the second of the last fetch.
	a.get(t, origin.URL+"/second")
	if s := poll(); s.Full != 4 || len(d.Candidates(origin.URL+"/second")) != 1 {
		t.Fatalf("after a store: %+v", s)
	}
}
