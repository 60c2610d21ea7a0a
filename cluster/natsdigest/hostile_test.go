package natsdigest_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/node"
)

// lockedBuffer is a log the transport's goroutines write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestHostilePublisher publishes, as a client of the server that is no
// node, messages that name another node than their subject's and a flood
// of malformed chunks: none is delivered, each is counted, the log has a
// line per kind, not per message, and the real node's messages still
// come through.
func TestHostilePublisher(t *testing.T) {
	s := natstest.New(t)
	var log lockedBuffer
	tr, err := natsdigest.New(natsdigest.Config{URL: s.URL, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Close() }()
	var mu sync.Mutex
	var got []node.DigestMessage
	err = tr.Start(context.Background(), "r", func(m node.DigestMessage) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	natstest.WaitConnected(t, "r", tr)

	js := jetStream(t, s.URL)
	nc := js.Conn()
	ctx := context.Background()
	header := func(name string, seq int) nats.Header {
		h := nats.Header{}
		h.Set(natsdigest.NodeHeader, name)
		h.Set(natsdigest.SequenceHeader, strconv.Itoa(seq))
		h.Set(natsdigest.KindHeader, "full")
		return h
	}
	publish := func(subject string, h nats.Header, data []byte) {
		t.Helper()
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: subject, Header: h, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	// A node "evil" speaking for "a", on its own subject and on none.
	publish(tr.Subject("evil"), header("a", 99), []byte("forged"))
	publish(tr.Subject("evil"), header("", 99), []byte("forged"))
	if err := nc.PublishMsg(&nats.Msg{Subject: natsdigest.DefaultAliveSubject + ".evil", Header: header("a", 99)}); err != nil {
		t.Fatal(err)
	}
	const flood = 300
	for i := range flood {
		h := header("evil", i)
		h.Set(natsdigest.ChunkIDHeader, "x")
		h.Set(natsdigest.ChunkHeader, "bad")
		publish(tr.Subject("evil"), h, []byte("x"))
	}
	publish(tr.Subject("a"), header("a", 1), []byte("real"))
	if err := nc.PublishMsg(&nats.Msg{Subject: natsdigest.DefaultAliveSubject + ".a", Header: header("a", 1)}); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 && tr.Dropped() >= flood+3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages delivered, %d dropped, want 2 and %d", n, tr.Dropped(), flood+3)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // anything else delivered would come now
	mu.Lock()
	defer mu.Unlock()
	for _, m := range got {
		if m.Node != "a" || m.Sequence != 1 {
			t.Errorf("delivered %s's sequence %d: %q", m.Node, m.Sequence, m.Frame)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d messages delivered, want 2 (a's digest and alive message)", len(got))
	}
	if lines := strings.Count(log.String(), "level=WARN"); lines > 4 {
		t.Errorf("%d warnings logged for %d bad messages, want one per kind:\n%.2000s", lines, flood+3, log.String())
	}
}

// TestHostilePushesLogBounded publishes, as a client of the server,
// frames that do not decode under a peer's name, as fast as the server
// takes them: the node refuses and counts each, and logs one warning,
// not one per message, which any publisher could otherwise turn into a
// flood of log lines.
func TestHostilePushesLogBounded(t *testing.T) {
	s := natstest.New(t)
	lns := map[string]net.Listener{}
	for _, name := range []string{"a", "b"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[name] = ln
	}
	peer := func(name string) []node.PeerConfig {
		return []node.PeerConfig{{Name: name, Proxy: "http://" + lns[name].Addr().String()}}
	}
	var log lockedBuffer
	a := startNode(t, lns["a"], s.URL, true, time.Hour, "a", peer("b"))
	b := startNodeLogged(t, lns["b"], s.URL, 1000, true, time.Hour, "b", peer("a"), slog.New(slog.NewTextHandler(&log, nil)))
	waitConnected(t, map[string]*testNode{"a": a, "b": b})

	js := jetStream(t, s.URL)
	const flood = 50
	for i := range flood {
		h := nats.Header{}
		h.Set(natsdigest.NodeHeader, "a")
		h.Set(natsdigest.SequenceHeader, strconv.Itoa(100+i))
		h.Set(natsdigest.KindHeader, "full")
		if _, err := js.PublishMsg(context.Background(), &nats.Msg{Subject: a.tr.Subject("a"), Header: h, Data: []byte("not a digest")}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		refused, _, err := sample(b.Node, "bloomcast_peer_digests_total", "peer", "a", "result", "refused")
		if err != nil {
			t.Fatal(err)
		}
		if refused >= flood {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b refused %v of %d bad pushes within a minute", refused, flood)
		}
	}
	// The frame is 12 bytes: each refusal says the input is truncated.
	if lines := strings.Count(log.String(), "truncated input"); lines != 1 {
		t.Errorf("%d warnings logged for %d bad pushes, want 1:\n%.2000s", lines, flood, log.String())
	}
}

// TestUnreachableLogged: a transport started with no server at its URL
// says it is not connected, and not that its connection is closed: the
// client goes on trying to connect.
func TestUnreachableLogged(t *testing.T) {
	natstest.Require(t)
	url, err := natstest.FreeURL()
	if err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	tr, err := natsdigest.New(natsdigest.Config{URL: url, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Close() }()
	if err := tr.Start(context.Background(), "a", func(node.DigestMessage) {}); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); !strings.Contains(got, "not connected to the server") || strings.Contains(got, "connection closed") {
		t.Errorf("logged:\n%s\nwant that the transport is not connected, not that its connection is closed", got)
	}
}
