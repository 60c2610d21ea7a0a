package natsdigest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/node"
)

// node is a cache node serving on loopback with a NATS transport.
type testNode struct {
	*node.Node
	name string
	addr string
	tr   *natsdigest.Transport
}

// startNodes starts nodes named names, each listing all the others as
// peers, with transports to url; manual nodes publish and push only when
// the test says.
func startNodes(t *testing.T, url string, manual bool, poll time.Duration, names ...string) map[string]*testNode {
	t.Helper()
	return startNodesSized(t, url, 1000, manual, poll, names...)
}

// startNodesSized is startNodes with summaries sized for capacity
// objects.
func startNodesSized(t *testing.T, url string, capacity uint64, manual bool, poll time.Duration, names ...string) map[string]*testNode {
	t.Helper()
	lns := map[string]net.Listener{}
	for _, n := range names {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[n] = ln
	}
	out := map[string]*testNode{}
	for _, n := range names {
		var peers []node.PeerConfig
		for _, p := range names {
			if p != n {
				peers = append(peers, node.PeerConfig{Name: p, Proxy: "http://" + lns[p].Addr().String()})
			}
		}
		out[n] = startNodeSized(t, lns[n], url, capacity, manual, poll, n, peers)
	}
	return out
}

func startNode(t *testing.T, ln net.Listener, url string, manual bool, poll time.Duration, name string, peers []node.PeerConfig) *testNode {
	t.Helper()
	return startNodeSized(t, ln, url, 1000, manual, poll, name, peers)
}

func startNodeSized(t *testing.T, ln net.Listener, url string, capacity uint64, manual bool, poll time.Duration, name string, peers []node.PeerConfig) *testNode {
	t.Helper()
	tr, err := natsdigest.New(natsdigest.Config{URL: url, Logger: failureLog(t, name)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.NewNode(node.NodeConfig{Name: name, Capacity: capacity, Peers: peers, Manual: manual,
		PollInterval: poll, Transport: tr, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("node %s: %v", name, err)
		}
	})
	for n.Addr() == "" {
		time.Sleep(time.Millisecond)
	}
	return &testNode{Node: n, name: name, addr: ln.Addr().String(), tr: tr}
}

// waitConnected waits until every node's transport is connected: a node
// starts its transport when it starts serving, and a push before the
// stream is set up fails. On a loaded machine a first connection can time
// out and be retried a second later, hence the generous bound.
func waitConnected(t *testing.T, nodes map[string]*testNode) {
	t.Helper()
	for name, n := range nodes {
		natstest.WaitConnected(t, name, n.tr)
	}
}

// store adds keys to n's digest as its store would, publishes and
// pushes.
func (n *testNode) store(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		n.Publisher().Stored(k)
	}
	if err := n.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	if err := n.PushDigest(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitViews waits until every node's view of every other is at that
// node's published sequence, or fails after a minute naming who lags.
func waitViews(t *testing.T, nodes map[string]*testNode) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		lag := lagging(nodes)
		if lag == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %s", lag)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lagging names a node's view that is not at its peer's sequence, or "".
func lagging(nodes map[string]*testNode) string {
	for name, n := range nodes {
		for _, st := range n.Directory().Status() {
			p := nodes[st.Name]
			if p == nil {
				continue
			}
			if want := p.Publisher().Stats().Sequence; !st.HasView || st.Sequence != want {
				return fmt.Sprintf("%s's view of %s: has view %t, sequence %d, want %d", name, st.Name, st.HasView, st.Sequence, want)
			}
		}
	}
	return ""
}

func TestPushedViews(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b", "c")
	waitConnected(t, nodes)
	a, b, c := nodes["a"], nodes["b"], nodes["c"]
	a.store(t) // the empty first digest, full
	b.store(t)
	c.store(t)
	waitViews(t, nodes)
	for i := range 5 {
		a.store(t, fmt.Sprintf("http://origin/a/%d", i))
		waitViews(t, nodes)
	}
	for _, key := range []string{"http://origin/a/0", "http://origin/a/4"} {
		for _, x := range []*testNode{b, c} {
			if got := x.Directory().Candidates(key); len(got) != 1 || got[0].Name() != "a" {
				t.Fatalf("%s: candidates for %s: %v", x.name, key, got)
			}
		}
	}
	st := b.Directory().Status()
	if st[0].Name != "a" || st[0].Pushed != 6 || st[0].Full+st[0].Delta+st[0].NotModified != 0 {
		t.Fatalf("b's view of a: %+v (want 6 pushed, none polled)", st[0])
	}
	// b received a's 6 publications and c's first, each once: as deltas
	// or, while a's digest is nearly empty and a full digest is smaller
	// than the deltas since the last one, as full digests.
	if s := b.Stats(); s.DigestPushedFull+s.DigestPushedDelta != 7 || s.DigestPushedFull < 2 {
		t.Fatalf("b's pushed full %d, delta %d (want 7 in all, 2 full at least)", s.DigestPushedFull, s.DigestPushedDelta)
	}
	if as := a.Stats(); as.TransportSent != 6 || as.DigestServedFull+as.DigestServedDelta != 0 {
		t.Fatalf("a sent %d messages, served %d digests over HTTP (want 6 and 0)", as.TransportSent, as.DigestServedFull+as.DigestServedDelta)
	}
	metrics := get(t, "http://"+b.addr+"/metrics")
	for _, want := range []string{`bloomcast_digest_messages_total{direction="in",transport="nats"} 7`, `bloomcast_digest_messages_total{direction="out",transport="nats"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("b's /metrics lacks %s:\n%s", want, grep(metrics, "bloomcast_digest_message"))
		}
	}

	// A node that starts late reads every peer's current digest from
	// the stream: a's full digest and its deltas, b's and c's.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var peers []node.PeerConfig
	for _, x := range []*testNode{a, b, c} {
		peers = append(peers, node.PeerConfig{Name: x.name, Proxy: "http://" + x.addr})
	}
	d := startNode(t, ln, srv.URL, true, time.Hour, "d", peers)
	waitViews(t, map[string]*testNode{"a": a, "b": b, "c": c, "d": d})
	if got := d.Directory().Candidates("http://origin/a/3"); len(got) != 1 || got[0].Name() != "a" {
		t.Fatalf("late node's candidates: %v", got)
	}
	if s := d.Stats(); s.DigestFetchesFull+s.DigestFetchesDelta != 0 || s.DigestPushedFull != 3 {
		t.Fatalf("late node: %d polled, %d full digests pushed (want 0 and 3: each peer's last)", s.DigestFetchesFull+s.DigestFetchesDelta, s.DigestPushedFull)
	}
}

// TestFullReplacesDeltas: once the deltas since the last full digest
// would outweigh one, the node pushes the full digest, and the stream
// keeps only it and what follows.
func TestFullReplacesDeltas(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b")
	waitConnected(t, nodes)
	a := nodes["a"]
	a.store(t)
	nodes["b"].store(t)
	full := a.Publisher().Stats().DigestBytes
	i := 0
	for a.Stats().TransportSentBytes < uint64(3*full) {
		keys := make([]string, 20)
		for j := range keys {
			keys[j] = fmt.Sprintf("http://origin/%d", i)
			i++
		}
		a.store(t, keys...)
	}
	waitViews(t, nodes)
	js := jetStream(t, srv.URL)
	stream, err := js.Stream(context.Background(), natsdigest.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(context.Background(), jetstream.WithSubjectFilter(a.tr.Subject("a")))
	if err != nil {
		t.Fatal(err)
	}
	held := info.State.Subjects[a.tr.Subject("a")]
	if held == 0 || held >= a.Stats().TransportSent {
		t.Fatalf("stream holds %d of a's %d messages: no full digest replaced the older ones", held, a.Stats().TransportSent)
	}
	first, err := stream.GetLastMsgForSubject(context.Background(), a.tr.Subject("a"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Header.Get(natsdigest.SequenceHeader) == "" {
		t.Fatal("no sequence header")
	}
	// A node joining now gets a full digest and fewer deltas than a sent.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := startNode(t, ln, srv.URL, true, time.Hour, "c", []node.PeerConfig{{Name: "a", Proxy: "http://" + a.addr}})
	waitViews(t, map[string]*testNode{"a": a, "c": c})
	if s := c.Stats(); s.DigestPushedFull != 1 || s.DigestPushedDelta+1 != held {
		t.Fatalf("late node got %d full and %d deltas; the stream held %d", s.DigestPushedFull, s.DigestPushedDelta, held)
	}
}

// TestUnreachableFallsBackToPolling: with no server at the URL the
// transport is not connected, and nodes poll each other over HTTP.
func TestUnreachableFallsBackToPolling(t *testing.T) {
	natstest.Require(t)
	url, err := natstest.FreeURL()
	if err != nil {
		t.Fatal(err)
	}
	nodes := startNodes(t, url, false, 20*time.Millisecond, "a", "b")
	a, b := nodes["a"], nodes["b"]
	if a.tr.Connected() {
		t.Fatal("connected to nothing")
	}
	a.Publisher().Stored("http://origin/x")
	if err := a.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	waitViews(t, nodes)
	st := b.Directory().Status()[0]
	if st.Pushed != 0 || st.Full == 0 {
		t.Fatalf("b's view of a: %+v (want polled, not pushed)", st)
	}
	if err := a.PushDigest(context.Background()); err == nil {
		t.Fatal("push with no server succeeded")
	}
}

func TestConfig(t *testing.T) {
	for _, cfg := range []natsdigest.Config{
		{}, {URL: "http://127.0.0.1:4222"}, {URL: "nats://127.0.0.1:4222", Subject: "a.*"},
		{URL: "nats://127.0.0.1:4222", Stream: "a.b"}, {URL: "nats://127.0.0.1:4222", Subject: "x", AliveSubject: "x"},
		{URL: "nats://127.0.0.1:4222", Replicas: 7}, {URL: "nats://127.0.0.1:4222", MaxDigestBytes: -1},
	} {
		if _, err := natsdigest.New(cfg); !errors.Is(err, natsdigest.ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	var zero natsdigest.Transport
	if err := zero.Start(context.Background(), "a", func(node.DigestMessage) {}); !errors.Is(err, natsdigest.ErrConfig) {
		t.Errorf("zero Transport's Start: %v", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestResyncOverHTTP: a delta whose base is not the receiver's view (here
// one from another publisher under a's name, as from a restarted a) makes
// the receiver fetch a's full digest over HTTP.
func TestResyncOverHTTP(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b")
	waitConnected(t, nodes)
	a, b := nodes["a"], nodes["b"]
	a.store(t, "http://origin/1")
	b.store(t)
	waitViews(t, nodes)

	// A node of its own, never started: its publisher's history is not a's.
	restarted, err := node.NewNode(node.NodeConfig{Name: "a", Capacity: 1000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	other := restarted.Publisher()
	first := other.Stats().Sequence
	other.Stored("http://origin/elsewhere")
	if err := other.Publish(); err != nil {
		t.Fatal(err)
	}
	r, err := other.Respond("", first)
	if err != nil || !r.Delta {
		t.Fatalf("delta: %+v, %v", r, err)
	}
	tr, err := natsdigest.New(natsdigest.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background(), "intruder", func(node.DigestMessage) {}); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Publish(context.Background(), node.DigestMessage{Node: "a", Sequence: r.Sequence, Delta: true, Frame: r.Body}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st := b.Directory().Status()[0]
		if st.Resync == 1 && st.Full == 1 && st.Sequence == a.Publisher().Stats().Sequence {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b's view of a a minute after a delta of another base: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := b.Directory().Candidates("http://origin/1"); len(got) != 1 {
		t.Fatalf("after the resync b's candidates for a's key: %v", got)
	}
}

// jetStream connects a client of its own to the server at url, for
// reading the stream as the transports leave it; the test closes it.
func jetStream(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// failureLog returns a logger whose lines the test prints if it fails
// (a transport that never connects says why there), and drops
// otherwise; lines logged after the test are dropped too.
func failureLog(t *testing.T, name string) *slog.Logger {
	var mu sync.Mutex
	var buf bytes.Buffer
	done := false
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() && buf.Len() > 0 {
			t.Logf("%s's transport logged:\n%s", name, buf.String())
		}
		done = true
	})
	return slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			buf.Write(p)
		}
		return len(p), nil
	}), nil))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
