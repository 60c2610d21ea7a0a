package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

func newTestPublisher(t *testing.T, threshold float64, history int) *Publisher {
	t.Helper()
	p, err := newPublisher(publisherConfig{
		Filter:    counting.Config{N: 2000, P: 0.01, Seed: 3},
		Threshold: threshold, History: history, Codec: digest.Fast, Inline: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func urlKey(i int) string { return fmt.Sprintf("http://origin.test/object/%d", i) }

// peerCopy decodes a full digest response.
func peerCopy(t *testing.T, r response) *digest.Digest {
	t.Helper()
	if r.Status != http.StatusOK || r.Delta {
		t.Fatalf("want a full digest, got status %d delta %t", r.Status, r.Delta)
	}
	d, err := digest.Decode(r.Body, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPublisherThreshold(t *testing.T) {
	p := newTestPublisher(t, 0.1, 16)
	if s := p.stats(); s.Sequence != 1 || s.Keys != 0 {
		t.Fatalf("new publisher: %+v", s)
	}
	// With no keys published, the first store passes any threshold.
	p.Stored(urlKey(0))
	if s := p.stats(); s.Sequence != 2 || s.Keys != 1 {
		t.Fatalf("after one store: %+v", s)
	}
	for i := 1; i < 100; i++ {
		p.Stored(urlKey(i))
	}
	// With 100 keys published, 10% of them must change before the next
	// publication.
	p.Publish()
	seq := p.stats().Sequence
	for i := 100; i < 109; i++ {
		p.Stored(urlKey(i))
	}
	if got := p.stats(); got.Sequence != seq || got.Pending != 9 {
		t.Fatalf("9 changes of 100 published: %+v", got)
	}
	p.Evicted(urlKey(0))
	if got := p.stats(); got.Sequence != seq+1 || got.Pending != 0 || got.Keys != 108 {
		t.Fatalf("10 changes: %+v", got)
	}
	p.Evicted("never stored")
	if got := p.stats(); got.Missing != 1 || got.Keys != 108 {
		t.Fatalf("eviction of an absent key: %+v", got)
	}
}

// TestPublisherDefaultThreshold: a zero Threshold publishes at 5% of the
// keys changed, as serve's --threshold does, and a zero threshold given to
// setThreshold means the same.
func TestPublisherDefaultThreshold(t *testing.T) {
	p := newTestPublisher(t, 0, 16)
	for round, set := range []bool{false, true} {
		if set {
			if err := p.setThreshold(0, 0); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 100 {
			p.Stored(urlKey(1000*round + i))
		}
		p.Publish()
		keys, seq := p.stats().Keys, p.stats().Sequence
		changes := int(float64(keys)*0.05+0.999) - 1 // one short of 5%
		for i := range changes {
			p.Stored(urlKey(1000*round + 100 + i))
		}
		if got := p.stats(); got.Sequence != seq || got.Pending != uint64(changes) {
			t.Fatalf("round %d: %d changes of %d published: %+v", round, changes, keys, got)
		}
		p.Stored(urlKey(1000*round + 999))
		if got := p.stats(); got.Sequence != seq+1 {
			t.Fatalf("round %d: %d changes of %d published did not publish: %+v", round, changes+1, keys, got)
		}
	}
}

func TestPublisherDeltas(t *testing.T) {
	p := newTestPublisher(t, 1, 4)
	for i := range 500 {
		p.Stored(urlKey(i))
	}
	p.Publish()
	r, err := p.respond("", 0)
	if err != nil {
		t.Fatal(err)
	}
	peer := peerCopy(t, r)
	for i := range 500 {
		if !peer.Filter().ContainsString(urlKey(i)) {
			t.Fatalf("key %d missing from the published digest", i)
		}
	}
	// Revalidation: the same ETag → 304; the current sequence without
	// it gets the full digest (the ETag also holds the checksum).
	if r2, _ := p.respond(r.ETag, r.Sequence); r2.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match %s: status %d", r.ETag, r2.Status)
	}
	if r2, _ := p.respond("", r.Sequence); r2.Status != http.StatusOK || r2.Delta {
		t.Fatalf("since current without an ETag: status %d delta %t", r2.Status, r2.Delta)
	}
	// Three more publications; a delta brings the peer up to date from
	// its sequence.
	for round := range 3 {
		for i := range 20 {
			p.Evicted(urlKey(100*round + i))
			p.Stored(urlKey(1000 + 100*round + i))
		}
		p.Publish()
	}
	r3, err := p.respond("", peer.Sequence)
	if err != nil || !r3.Delta {
		t.Fatalf("since %d: delta %t, %v", peer.Sequence, r3.Delta, err)
	}
	full, _ := p.respond("", 0)
	if len(r3.Body) >= len(full.Body) {
		t.Errorf("delta %d bytes, full %d", len(r3.Body), len(full.Body))
	}
	next, err := digest.Patch(peer, r3.Body, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := peerCopy(t, full)
	if !next.Bloom.Equal(want.Bloom) || next.Sequence != want.Sequence || next.Bloom.Count() != 500 {
		t.Fatalf("patched view differs from the full digest (seq %d vs %d)", next.Sequence, want.Sequence)
	}
	// A second request for the same delta is served from the cache of
	// coded deltas, byte for byte.
	if r4, _ := p.respond("", peer.Sequence); string(r4.Body) != string(r3.Body) {
		t.Error("delta differs on a second request")
	}
	// Bases beyond the history, or unknown, get the full digest.
	for range 4 {
		p.Stored(urlKey(5000 + int(p.stats().Sequence)))
		p.Publish()
	}
	for _, since := range []uint64{peer.Sequence, 999999} {
		if r5, _ := p.respond("", since); r5.Delta || r5.Status != http.StatusOK {
			t.Errorf("since %d: delta %t status %d, want the full digest", since, r5.Delta, r5.Status)
		}
	}
}

func TestPublisherHTTP(t *testing.T) {
	p := newTestPublisher(t, 1, 8)
	for i := range 50 {
		p.Stored(urlKey(i))
	}
	p.Publish()
	srv := httptest.NewServer(http.HandlerFunc(p.serveHTTP))
	defer srv.Close()
	get := func(query, inm string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+DigestPath+query, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	seq := p.stats().Sequence
	resp := get("", "")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != digestContentType || etag == "" ||
		resp.Header.Get(sequenceHeader) != fmt.Sprint(seq) || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("full: %d %v", resp.StatusCode, resp.Header)
	}
	if _, err := digest.Decode(body, envelope.Limits{}); err != nil {
		t.Fatal(err)
	}
	if resp := get("", "W/"+etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
	p.Stored(urlKey(100))
	p.Publish()
	resp = get(fmt.Sprintf("?since=%d", seq), etag)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != deltaContentType {
		t.Fatalf("since=seq after a publication: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp.Body.Close()
	if resp := get("?since=x", ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("since=x: %d", resp.StatusCode)
	}
	post, _ := http.Post(srv.URL+DigestPath, "text/plain", nil)
	if post.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", post.StatusCode)
	}
}

func TestPublisherRun(t *testing.T) {
	p, err := newPublisher(publisherConfig{Filter: counting.Config{N: 1000, P: 0.01}, Codec: digest.Fast})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.run(ctx) }()
	p.Stored(urlKey(1)) // passes the threshold: Run publishes
	deadline := time.Now().Add(5 * time.Second)
	for p.stats().Sequence < 2 {
		if time.Now().After(deadline) {
			t.Fatal("Run did not publish")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
}

func TestPublisherConfigRefused(t *testing.T) {
	for _, c := range []publisherConfig{
		{Filter: counting.Config{N: 100, P: 0.01}, Threshold: 2},
		{Filter: counting.Config{N: 100, P: 0.01}, History: -1},
		{Filter: counting.Config{}},
		{Filter: counting.Config{N: 100, P: 0.01, NoBitView: true}},
	} {
		if _, err := newPublisher(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestDurationsHaveLowerBounds: a MaxAge of a few nanoseconds once passed
// validation and then panicked in time.NewTicker inside Run's goroutine,
// killing the node; every duration is now checked in its constructor.
func TestDurationsHaveLowerBounds(t *testing.T) {
	filter := counting.Config{N: 100, P: 0.01}
	for _, age := range []time.Duration{1, 3, -time.Second} {
		if _, err := newPublisher(publisherConfig{Filter: filter, MaxAge: age}); !errors.Is(err, cache.ErrConfig) {
			t.Errorf("MaxAge %v: %v, want ErrConfig", age, err)
		}
	}
	for _, c := range []directoryConfig{{PollInterval: 1}, {Expiry: 2}, {PollInterval: -1}} {
		if _, err := newDirectory(c); !errors.Is(err, cache.ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
	if _, err := newSquidDigest(squidDigestConfig{Capacity: 10, MaskDelay: 1}); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("mask delay 1 ns: %v, want ErrConfig", err)
	}
	if _, err := NewNode(NodeConfig{PeerTimeout: 5}); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("peer timeout 5 ns: %v, want ErrConfig", err)
	}
	for _, d := range []time.Duration{-time.Second, 500 * time.Millisecond} {
		if _, err := NewNode(NodeConfig{SquidDigestLifetime: d}); !errors.Is(err, cache.ErrConfig) {
			t.Errorf("Squid digest lifetime %v: %v, want ErrConfig", d, err)
		}
	}
}

// TestPublisherDeltaChangedBack: a key stored in one publication and
// evicted in the next leaves words that changed back; the delta across
// both changes nothing and patches the base to the current digest.
func TestPublisherDeltaChangedBack(t *testing.T) {
	p := newTestPublisher(t, 1, 4)
	for i := range 100 {
		p.Stored(urlKey(i))
	}
	p.Publish()
	r, _ := p.respond("", 0)
	peer := peerCopy(t, r)
	p.Stored(urlKey(1000))
	p.Publish()
	p.Evicted(urlKey(1000))
	p.Publish()
	d, err := p.respond("", peer.Sequence)
	if err != nil || !d.Delta {
		t.Fatalf("delta %t, %v", d.Delta, err)
	}
	dd, err := digest.DecodeDelta(d.Body, envelope.Limits{})
	if err != nil || dd.Changed() != 0 {
		t.Fatalf("the delta changes %d bits (%v)", dd.Changed(), err)
	}
	next, err := digest.Patch(peer, d.Body, envelope.Limits{})
	full, _ := p.respond("", 0)
	if err != nil || !next.Bloom.Equal(peerCopy(t, full).Bloom) {
		t.Fatalf("patched view differs from the full digest (%v)", err)
	}
}

// TestPublisherWorkPerPublication: a publication encodes no full digest
// until one is asked for, and its checksum, updated from the changed
// words, is the checksum of the digest a peer decodes — through removals,
// and again after a Resize, which starts the history anew.
func TestPublisherWorkPerPublication(t *testing.T) {
	p := newTestPublisher(t, 1, 8)
	check := func(step string) {
		t.Helper()
		p.mu.Lock()
		encoded := p.current.full != nil
		p.mu.Unlock()
		if encoded {
			t.Fatalf("%s: a full digest encoded before it was asked for", step)
		}
		r, err := p.respond("", 0)
		if err != nil {
			t.Fatal(err)
		}
		crc, err := digest.Checksum(peerCopy(t, r))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"%d-%08x"`, r.Sequence, crc); r.ETag != want {
			t.Fatalf("%s: ETag %s, the digest's checksum gives %s", step, r.ETag, want)
		}
	}
	for round := range 5 {
		for i := range 100 {
			p.Stored(urlKey(100*round + i))
		}
		for i := range 30 * round {
			p.Evicted(urlKey(i))
		}
		p.Publish()
		check(fmt.Sprintf("round %d", round))
	}
	if err := p.resize(4000, func() []string { return []string{urlKey(1), urlKey(2)} }); err != nil {
		t.Fatal(err)
	}
	p.Stored(urlKey(3))
	p.Publish()
	check("after a resize")
}
