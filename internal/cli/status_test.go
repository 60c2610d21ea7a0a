package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/node"
)

// startStatusNode serves a node on loopback until the test ends.
func startStatusNode(t *testing.T, ln net.Listener, cfg node.NodeConfig) *node.Node {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.PollInterval, cfg.MemoryBytes, cfg.Capacity = time.Hour, 8<<20, 1000
	n, err := node.NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	return n
}

// TestStatusCommand runs two nodes and an origin on loopback, makes a
// peer hit at a, and reads a's status with `bloomcast status`: the table,
// --json, and --watch until the context ends.
func TestStatusCommand(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		io.WriteString(w, "object "+r.URL.Path)
	}))
	defer origin.Close()
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := startStatusNode(t, lnA, node.NodeConfig{Name: "node-a", Peers: []node.PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}}})
	b := startStatusNode(t, lnB, node.NodeConfig{Name: "node-b"})
	get := func(ln net.Listener, target string) {
		proxy, _ := url.Parse("http://" + ln.Addr().String())
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 10 * time.Second}
		resp, err := c.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get(lnB, origin.URL+"/x")
	b.Publisher().Publish()
	a.Directory().Refresh(context.Background())
	get(lnA, origin.URL+"/x") // a peer hit

	url := "http://" + lnA.Addr().String()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", url}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, s := range []string{"node node-a", "listen " + lnA.Addr().String(), "PEER", "b  ", "ok", "bloomcast", "last hour"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	var hourLine string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "last hour") {
			hourLine = line
		}
	}
	if f := strings.Fields(hourLine); len(f) < 6 || f[4] != "1" || f[5] != "100.0%" { // "last hour 0 0% 1 100.0% ..."
		t.Errorf("last hour's peer hits: %q", hourLine)
	}

	stdout.Reset()
	if code := run([]string{"status", "--json", url + nodestatus.Path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("status --json: exit %d: %s", code, stderr.String())
	}
	var st nodestatus.Status
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Node.Name != "node-a" || st.Requests.Total.PeerHits != 1 || len(st.Peers) != 1 || st.Peers[0].Hits != 1 {
		t.Fatalf("--json: %+v", st)
	}

	// --watch 200ms prints the table again until the context ends.
	stdout.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 900*time.Millisecond)
	defer cancel()
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, ctx: ctx}
	if err := statusCommand.run(e, []string{"--watch", "200ms", url}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "node node-a"); n < 2 {
		t.Fatalf("--watch printed %d tables:\n%s", n, stdout.String())
	}

	// A node that refuses, a redirect (never followed), and bad
	// arguments: one-line errors.
	redirect := httptest.NewServer(http.RedirectHandler(url+nodestatus.JSONPath, http.StatusFound))
	defer redirect.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status"}, "want one node URL"},
		{[]string{"status", "http://127.0.0.1:1/x"}, "without a path"},
		{[]string{"status", "--watch", "1ms", url}, "at least 100ms"},
		{[]string{"status", "http://" + lnB.Addr().String() + "/metrics"}, "without a path"},
		{[]string{"status", origin.URL}, "not a node's status"},
		{[]string{"status", "http://127.0.0.1:1"}, "connection refused"},
		{[]string{"status", redirect.URL}, "302 Found"},
	} {
		stderr.Reset()
		if code := run(c.args, nil, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, %q; want %q", c.args, code, stderr.String(), c.want)
		}
	}
}
