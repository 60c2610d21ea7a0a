package node

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setPublishFault makes every publication fail with the error f returns
// (nil f, or f returning nil: publications succeed again).
func (p *Publisher) setPublishFault(f func() error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// getBody fetches a node's own endpoint and returns the status and body.
func getBody(t *testing.T, url string) (int, string) {
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
	return resp.StatusCode, string(b)
}

// metricValue returns the value of the sample whose line starts with
// series (name and labels) in a /metrics text, or -1 if there is none.
func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return -1
}

// TestHealthPublicationFailure injects a publication failure into a
// running node and sees /healthz answer 503 with the reason once the
// digest is overdue, the error log line, and the metrics; then lets
// publications succeed and sees the node healthy again. A peer that
// does not answer shows in the fetch failures by peer.
func TestHealthPublicationFailure(t *testing.T) {
	origin := newTestOrigin(t)
	down := listen(t, "127.0.0.1:0")
	downURL := "http://" + down.Addr().String()
	if err := down.Close(); err != nil { // nothing listens there now
		t.Fatal(err)
	}
	logs := &faultLog{}
	const maxAge = 200 * time.Millisecond
	n := startFaultNode(t, listen(t, "127.0.0.1:0"), NodeConfig{
		MaxDigestAge: maxAge, PollInterval: 50 * time.Millisecond,
		Peers: []PeerConfig{{Name: "gone", Proxy: downURL}},
	}, logs)
	if code, body := getBody(t, n.url()+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("healthy node: /healthz %d %q", code, body)
	}
	first := n.Publisher().stats().Published

	injected := errors.New("injected publication failure")
	n.Publisher().setPublishFault(func() error { return injected })
	n.get(t, origin.URL+"/a") // a stored key: a change pending
	var body string
	waitFor(t, 10*time.Second, "/healthz to answer 503", func() bool {
		var code int
		code, body = getBody(t, n.url()+"/healthz")
		return code == http.StatusServiceUnavailable
	})
	if !strings.Contains(body, "changes pending") || !strings.HasSuffix(body, "publication failed: "+injected.Error()+"\n") ||
		strings.Count(body, "\n") != 1 {
		t.Errorf("/healthz body %q: want one line naming the overdue digest and the injected error", body)
	}

	logs.mu.Lock()
	var logged int
	for _, r := range logs.recs {
		if r.level == slog.LevelError && r.msg == "digest publication failed; retrying" && r.attrs["err"] == injected.Error() {
			logged++
		}
	}
	logs.mu.Unlock()
	if logged != 1 {
		t.Errorf("%d error log lines for the failing publication, want 1 (logged once until it recovers)", logged)
	}

	_, text := getBody(t, n.url()+"/metrics")
	if v := metricValue(t, text, "bloomcast_digest_publication_failures_total"); v < 1 {
		t.Errorf("bloomcast_digest_publication_failures_total = %v, want ≥ 1", v)
	}
	if v, want := metricValue(t, text, "bloomcast_digest_published_timestamp_seconds"), float64(first.UnixNano())/1e9; v != want {
		t.Errorf("bloomcast_digest_published_timestamp_seconds = %v, want the first publication's %v", v, want)
	}
	if v := metricValue(t, text, "bloomcast_digest_pending_changes"); v < 1 {
		t.Errorf("bloomcast_digest_pending_changes = %v, want ≥ 1", v)
	}
	// The peer is polled on its own ticker, which a loaded machine may
	// not have run yet when the digest became overdue.
	waitFor(t, 10*time.Second, `bloomcast_peer_digest_fetch_failures_total{peer="gone"} ≥ 1`, func() bool {
		_, text := getBody(t, n.url()+"/metrics")
		return metricValue(t, text, `bloomcast_peer_digest_fetch_failures_total{peer="gone"}`) >= 1
	})

	n.Publisher().setPublishFault(nil)
	waitFor(t, 10*time.Second, "/healthz to answer 200 again", func() bool {
		code, _ := getBody(t, n.url()+"/healthz")
		return code == http.StatusOK
	})
	if got := n.Publisher().stats().Published; !got.After(first) {
		t.Errorf("last publication %v, want after the first %v", got, first)
	}
	waitFor(t, 10*time.Second, "the recovery log line", func() bool {
		logs.mu.Lock()
		defer logs.mu.Unlock()
		for _, r := range logs.recs {
			if r.level == slog.LevelInfo && r.msg == "digest publication recovered" {
				return true
			}
		}
		return false
	})
}
