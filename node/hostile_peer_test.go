package node

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/testutil"
	"github.com/bloomcast/bloomcast/scalable"
)

// rawPeer is a hostile peer on a real socket: it answers every request
// on a connection with head followed by body, and closes it.
func rawPeer(t *testing.T, head string, body []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				_, _ = c.Write([]byte(head))
				_, _ = c.Write(body)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// chunked frames b in HTTP/1.1 chunks of 32 KiB (RFC 9112 §7.1).
func chunked(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		n := min(len(b), 32<<10)
		fmt.Fprintf(&out, "%x\r\n", n)
		out.Write(b[:n])
		out.WriteString("\r\n")
		b = b[n:]
	}
	out.WriteString("0\r\n\r\n")
	return out.Bytes()
}

// TestHostilePeerMemoryBounded serves a digest fetch a gzip bomb (1 GiB
// of zeros, 1 MiB on the wire) in every framing a peer may choose, and
// checks that the fetch is refused and allocates less than twice
// MaxDigestBytes: with the node's own client (which does not ask for
// compression, so the bomb is never inflated) and with a client that
// asks for it and inflates what it gets.
func TestHostilePeerMemoryBounded(t *testing.T) {
	const limit = 8 << 20
	bomb := testutil.GzipBomb(t, 1024)
	zeros := make([]byte, limit+1)
	cases := []struct {
		name, head string
		body       []byte
	}{
		{"gzip content, length announced", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + fmt.Sprint(len(bomb)) + "\r\n\r\n", bomb},
		{"gzip content, chunked", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", chunked(bomb)},
		{"gzip content, until close", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n", bomb},
		{"gzip transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", chunked(bomb)},
		{"one byte too many, until close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", zeros},
		{"one byte too many, chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunked(zeros)},
	}
	clients := []struct {
		name   string
		client *http.Client
	}{
		{"node's client", nil},
		{"inflating client", &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{}}},
	}
	for _, c := range cases {
		url := rawPeer(t, c.head, c.body)
		for _, cl := range clients {
			d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "hostile", Proxy: url}},
				MaxDigestBytes: limit, Client: cl.client})
			if err != nil {
				t.Fatal(err)
			}
			var ferr error
			n := testutil.Allocated(func() { ferr = d.RefreshPeer(context.Background(), d.Peers()[0]) })
			if ferr == nil {
				t.Errorf("%s, %s: accepted", c.name, cl.name)
			}
			if n > 2*limit+4<<10 { // and the list of pieces
				t.Errorf("%s, %s: allocated %d bytes, want at most 2 × %d", c.name, cl.name, n, limit)
			}
			t.Logf("%s, %s: %d bytes allocated (%.2f × the limit): %v", c.name, cl.name, n, float64(n)/limit, ferr)
		}
	}
}

// TestReadBoundedWithinLimit reads bodies up to the limit, of unknown
// length, through readBounded: each comes back whole, and the largest
// allocates at most twice the limit (its pieces, then the joined slice)
// and a few hundred bytes for the list of pieces.
func TestReadBoundedWithinLimit(t *testing.T) {
	const limit = 4 << 20
	for _, size := range []int{0, 1, 64 << 10, 64<<10 + 1, limit - 1, limit} {
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		var got []byte
		var err error
		n := testutil.Allocated(func() { got, err = readBounded(bytes.NewReader(want), -1, limit) })
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d: %d bytes, %v", size, len(got), err)
		}
		if n > 2*limit+4<<10 { // and the list of pieces
			t.Errorf("size %d: allocated %d", size, n)
		}
		if _, err := readBounded(bytes.NewReader(want), int64(size), limit); err != nil {
			t.Errorf("size %d announced: %v", size, err)
		}
		if _, err := readBounded(bytes.NewReader(want[:size/2]), int64(size), limit); err == nil && size > 1 {
			t.Errorf("size %d announced, half sent: accepted", size)
		}
	}
	if _, err := readBounded(bytes.NewReader(make([]byte, limit+1)), -1, limit); err == nil {
		t.Error("limit+1 bytes accepted")
	}
}

// TestPeerScalableDigestRefused: a peer that serves a scalable filter's
// digest, which decodes but has no one filter to route by, is refused
// in one line by decoded and compressed views alike, and the directory
// goes on answering lookups and status without it.
func TestPeerScalableDigestRefused(t *testing.T) {
	f, err := scalable.New(scalable.Config{Capacity: 100, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		f.Add(fmt.Appendf(nil, "http://origin/%d", i))
	}
	body, err := digest.Encode(&digest.Digest{Sequence: 1, Scalable: f}, digest.Raw)
	if err != nil {
		t.Fatal(err)
	}
	url := rawPeer(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body)), body)
	for _, views := range []PeerViews{PeerViewsDecoded, PeerViewsCompressed} {
		d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "scalable", Proxy: url}}, PeerViews: views,
			Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		err = d.RefreshPeer(context.Background(), d.Peers()[0])
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s views: %v, want a one-line refusal", views, err)
		}
		if got := d.Candidates("http://origin/1"); len(got) != 0 {
			t.Errorf("%s views: %d candidates", views, len(got))
		}
		if st := d.status(); len(st) != 1 || st[0].HasView {
			t.Errorf("%s views: status %+v", views, st)
		}
	}
}

// TestHostilePeerRedirectNotFollowed: a peer that answers its digest
// URL with a redirect to another server (an internal service, a
// metadata endpoint) makes the node's fetch fail in one line; the node
// never asks that server. The digest client goes to peers without
// HTTP_PROXY, as the node's peer and origin clients do.
func TestHostilePeerRedirectNotFollowed(t *testing.T) {
	var internalHits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		io.WriteString(w, "secret internal answer")
	}))
	t.Cleanup(internal.Close)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/latest/meta-data/iam", http.StatusFound)
	}))
	t.Cleanup(evil.Close)
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Peers: []PeerConfig{{Name: "evil", Proxy: evil.URL}}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := n.Directory().RefreshPeer(ctx, n.Directory().Peers()[0])
	if err == nil || !strings.Contains(err.Error(), "302") || strings.Contains(err.Error(), "\n") {
		t.Errorf("refresh of a peer that redirects: %v, want a one-line error that names the 302", err)
	}
	if h := internalHits.Load(); h != 0 {
		t.Errorf("the peer's redirect was followed: the server it names got %d requests from the node", h)
	}
	if tr, ok := n.Directory().cfg.Client.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Errorf("the digest client's transport: %T, proxy set: %v, want an *http.Transport without one", n.Directory().cfg.Client.Transport, ok && tr.Proxy != nil)
	}
}

// FuzzPeerDigest feeds a peer's answers to a directory as it stores
// them, a full digest and then what follows it, in every kind of view a
// node holds: whatever the bytes, each is refused in one line or becomes
// a view, and lookups and status go on answering.
func FuzzPeerDigest(f *testing.F) {
	pub, err := newPublisher(publisherConfig{Filter: counting.Config{N: 200, P: 0.01}, Codec: digest.Fast})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 100 {
		pub.Stored(fmt.Sprintf("http://origin/%d", i))
	}
	if err := pub.Publish(); err != nil {
		f.Fatal(err)
	}
	full, err := pub.respond("", 0)
	if err != nil {
		f.Fatal(err)
	}
	for i := 100; i < 110; i++ {
		pub.Stored(fmt.Sprintf("http://origin/%d", i))
	}
	if err := pub.Publish(); err != nil {
		f.Fatal(err)
	}
	delta, err := pub.respond("", full.Sequence)
	if err != nil || !delta.Delta {
		f.Fatal(delta.Delta, err)
	}
	sf, err := scalable.New(scalable.Config{Capacity: 20, P: 0.01})
	if err != nil {
		f.Fatal(err)
	}
	sf.Add([]byte("http://origin/1"))
	sbody, err := digest.Encode(&digest.Digest{Sequence: 1, Scalable: sf}, digest.Raw)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full.Body, delta.Body, uint8(0))
	f.Add(full.Body, delta.Body, uint8(1))
	f.Add(sbody, delta.Body, uint8(0))
	f.Add(delta.Body, full.Body, uint8(2))
	f.Fuzz(func(t *testing.T, first, second []byte, mode uint8) {
		cfg := directoryConfig{Peers: []PeerConfig{{Name: "peer", Proxy: "http://127.0.0.1:1"}},
			MaxDigestBytes: 1 << 20, Logger: quietLogger()}
		switch mode % 4 {
		case 1:
			cfg.PeerViews = PeerViewsCompressed
		case 2:
			cfg.FullDigests = FullDigestsStatic
		case 3:
			cfg.Peers[0].Protocol = Squid
		}
		d, err := newDirectory(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := d.Peers()[0]
		for _, body := range [][]byte{first, second} {
			if err := d.store(p, nil, true, body, "", "", false); err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			d.Candidates("http://origin/1")
			d.status()
		}
	})
}
