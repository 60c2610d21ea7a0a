package natsdigest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/node"
)

// keys returns n keys from the i-th on.
func keys(i, n int) []string {
	out := make([]string, n)
	for j := range out {
		out[j] = fmt.Sprintf("http://origin/%d", i+j)
	}
	return out
}

// sameViews checks that each viewer's view of pub answers as pub's
// filter does for probe keys stored and not, false positives included.
func sameViews(t *testing.T, pub *testNode, viewers []*testNode, probe []string) {
	t.Helper()
	f := pub.Publisher().Filter()
	for _, v := range viewers {
		differ := 0
		for _, k := range probe {
			got := false
			for _, p := range v.Directory().Candidates(k) {
				got = got || p.Name() == pub.name
			}
			if got != f.ContainsString(k) {
				differ++
			}
		}
		if differ > 0 {
			t.Fatalf("%s's view of %s differs from %s's filter on %d of %d keys", v.name, pub.name, pub.name, differ, len(probe))
		}
	}
}

// subjectMessages returns the messages the stream holds on subject, in
// order.
func subjectMessages(t *testing.T, url, subject string) []*jetstream.RawStreamMsg {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stream, err := js.Stream(ctx, natsdigest.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		m, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		if m.Subject == subject {
			out = append(out, m)
		}
	}
	return out
}

// TestChunkedDigests: with a server's max_payload of 4 KiB, full digests
// several times larger and the deltas after them reach every peer, and a
// node that joins later, whole, as chunks or single messages; the purge
// after a full digest keeps all its chunks; chunks that another
// publisher leaves incomplete or without a start are dropped and do not
// hold up what follows.
func TestChunkedDigests(t *testing.T) {
	const maxPayload = 4096
	srv := natstest.NewWith(t, natstest.Options{MaxPayload: maxPayload})
	nodes := startNodesSized(t, srv.URL, 20000, true, time.Hour, "a", "b", "c")
	waitConnected(t, nodes)
	a, b, c := nodes["a"], nodes["b"], nodes["c"]
	a.store(t)
	b.store(t)
	c.store(t)
	waitViews(t, nodes)
	probe := keys(0, 20000)

	a.store(t, keys(0, 3000)...)
	if full := metric(t, a.Node, "bloomcast_digest_bytes"); full < 4*maxPayload {
		t.Fatalf("a's full digest is %v bytes, not several max payloads", full)
	}
	waitViews(t, nodes)
	sameViews(t, a, []*testNode{b, c}, probe)
	a.store(t, keys(3000, 5)...) // a delta that fits in one message
	waitViews(t, nodes)
	sameViews(t, a, []*testNode{b, c}, probe)

	// Deltas of 1500 keys each (chunks too) until a sends a full digest
	// again, which purges the older ones.
	pushedFull := func() float64 { return metric(t, b.Node, "bloomcast_digests_pushed_total", "kind", "full") }
	fulls := pushedFull()
	for i := 0; pushedFull() == fulls; i++ {
		if i == 20 {
			t.Fatal("20 deltas and no full digest")
		}
		a.store(t, keys(3005+1500*i, 1500)...)
		waitViews(t, nodes)
	}
	sameViews(t, a, []*testNode{b, c}, probe)
	msgs := subjectMessages(t, srv.URL, a.tr.Subject("a"))
	first := msgs[0].Header
	count, ok := strings.CutPrefix(first.Get(natsdigest.ChunkHeader), "0/")
	if !ok || first.Get(natsdigest.KindHeader) != "full" || count == "" || count == "1" {
		t.Fatalf("the stream's first message of a's is not the first of a full digest's chunks: %v", first)
	}
	if fmt.Sprint(len(msgs)) != count {
		t.Fatalf("the stream holds %d of a's messages, want the %s chunks of its full digest", len(msgs), count)
	}
	for i, m := range msgs {
		id := m.Header.Get(natsdigest.ChunkIDHeader)
		if id != first.Get(natsdigest.ChunkIDHeader) || m.Header.Get(natsdigest.ChunkHeader) != fmt.Sprintf("%d/%s", i, count) {
			t.Fatalf("message %d of a's full digest: %v", i, m.Header)
		}
		if m.Header.Get(natsdigest.SequenceHeader) != "" {
			t.Fatalf("chunk %d carries %s", i, natsdigest.SequenceHeader)
		}
	}

	// Another publisher leaves chunks on a's subject: two of three, then
	// one whose first is missing. a's next delta still reaches its peers.
	js := jetStream(t, srv.URL)
	for _, chunk := range []string{"broken 0/3", "broken 1/3", "orphan 2/3"} {
		id, index, _ := strings.Cut(chunk, " ")
		h := nats.Header{}
		h.Set(natsdigest.NodeHeader, "a")
		h.Set(natsdigest.KindHeader, "delta")
		h.Set(natsdigest.ChunkSequenceHeader, "1")
		h.Set(natsdigest.ChunkIDHeader, id)
		h.Set(natsdigest.ChunkHeader, index)
		h.Set(natsdigest.ChunkLengthHeader, "30")
		if _, err := js.PublishMsg(context.Background(), &nats.Msg{Subject: a.tr.Subject("a"), Header: h, Data: make([]byte, 10)}); err != nil {
			t.Fatal(err)
		}
	}
	a.store(t, keys(100000, 5)...)
	waitViews(t, nodes)
	sameViews(t, a, []*testNode{b, c}, probe)

	// A node that starts now reads a's chunked full digest, the broken
	// chunks and a's delta from the stream, and b's and c's digests.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var peers []node.PeerConfig
	for _, x := range []*testNode{a, b, c} {
		peers = append(peers, node.PeerConfig{Name: x.name, Proxy: "http://" + x.addr})
	}
	d := startNodeSized(t, ln, srv.URL, 20000, true, time.Hour, "d", peers)
	waitViews(t, map[string]*testNode{"a": a, "b": b, "c": c, "d": d})
	sameViews(t, a, []*testNode{d}, probe)
	for _, x := range []*testNode{b, c, d} {
		if polled := polledDigests(t, x.Node); polled != 0 {
			t.Fatalf("%s fetched %v digests over HTTP", x.name, polled)
		}
	}
}

// TestChunkedToOldNode: a node that does not reassemble chunks (its
// transport reads Bloomcast-Sequence, as bloomcast did before chunks)
// ignores a chunked digest and still applies the single messages.
func TestChunkedToOldNode(t *testing.T) {
	const maxPayload = 4096
	srv := natstest.NewWith(t, natstest.Options{MaxPayload: maxPayload})
	nodes := startNodesSized(t, srv.URL, 20000, true, time.Hour, "a")
	waitConnected(t, nodes)
	a := nodes["a"]
	js := jetStream(t, srv.URL)
	a.store(t, keys(0, 3000)...) // full, chunked
	a.store(t, keys(3000, 5)...) // a delta in one message
	oc, err := js.OrderedConsumer(context.Background(), natsdigest.DefaultStream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := oc.FetchNoWait(100)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	chunks := 0
	for m := range batch.Messages() {
		if m.Headers().Get(natsdigest.SequenceHeader) != "" { // what the old transport reads
			read = append(read, m.Headers().Get(natsdigest.KindHeader))
		} else if m.Headers().Get(natsdigest.ChunkHeader) != "" {
			chunks++
		}
		if n := len(m.Data()) + natsdigest.HeaderSize(m.Headers()); n > maxPayload {
			t.Errorf("a message of %d bytes", n)
		}
	}
	if strings.Join(read, " ") != "delta" || chunks < 4 {
		t.Fatalf("an old node would read %q and skip %d chunks", read, chunks)
	}
}

// TestPublishOverLimit: a frame larger than Config.MaxDigestBytes, which
// peers would drop, is not published.
func TestPublishOverLimit(t *testing.T) {
	srv := natstest.NewWith(t, natstest.Options{MaxPayload: 4096})
	tr, err := natsdigest.New(natsdigest.Config{URL: srv.URL, MaxDigestBytes: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background(), "a", func(node.DigestMessage) {}); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	natstest.WaitConnected(t, "a", tr)
	for _, n := range []int{10000, 10001} {
		err := tr.Publish(context.Background(), node.DigestMessage{Node: "a", Sequence: 1, Frame: make([]byte, n)})
		if (err == nil) != (n <= 10000) {
			t.Errorf("a frame of %d bytes: %v", n, err)
		}
	}
	if msgs := subjectMessages(t, srv.URL, tr.Subject("a")); len(msgs) != 3 {
		t.Errorf("the stream holds %d messages, want the 3 chunks of the frame of 10000 bytes", len(msgs))
	}
}
