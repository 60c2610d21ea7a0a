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
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/internal/testutil"
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

// hostileServer answers every request on a loopback port with the raw
// response resp, until the test ends, and returns its URL.
func hostileServer(t *testing.T, resp string) string {
	t.Helper()
	return testutil.NewRawOrigin(t, func(*http.Request) (string, bool) { return resp, true }).URL
}

// TestStatusCommandHostileText: a peer's reason phrase that holds
// terminal escape sequences (retitle, clear the screen, a bidirectional
// override), as the node reports it in the peer's last error, and a
// hostile node's own refusal, are printed by `bloomcast status` escaped,
// never raw to the terminal.
func TestStatusCommandHostileText(t *testing.T) {
	const reason = "500 \x1b]0;PWNED\x07\x1b[2J\x1b[8m\u202eRED\u009b31m\tX"
	peer := hostileServer(t, "HTTP/1.1 "+reason+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := startStatusNode(t, lnA, node.NodeConfig{Name: "node-a", Peers: []node.PeerConfig{{Name: "evil", Proxy: peer}}})
	a.Directory().Refresh(context.Background()) // fails: the peer answers 500
	raw := []rune{'\x1b', '\x07', '\u202e', '\u009b', '\t'}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", "http://" + lnA.Addr().String()}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if strings.ContainsAny(out, string(raw)) {
		t.Errorf("the table holds a raw control character:\n%q", out)
	}
	if !strings.Contains(out, `500 \x1b]0;PWNED\a\x1b[2J\x1b[8m\u202eRED\u009b31m\tX`) {
		t.Errorf("the table lacks the peer's error, escaped:\n%s", out)
	}

	const body = "\x1b]0;BODY\x07\n"
	evil := hostileServer(t, "HTTP/1.1 "+reason+"\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
	stderr.Reset()
	if code := run([]string{"status", evil}, nil, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), `\x1b]0;BODY`) {
		t.Errorf("a hostile node: exit %d, %q", code, stderr.String())
	}
	if strings.ContainsAny(stderr.String(), string(raw)) {
		t.Errorf("the error holds a raw control character: %q", stderr.String())
	}
}

// silentListener accepts connections and never answers: a node that
// hangs.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// refusingURL returns the URL of a loopback port that nothing listens on.
func refusingURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// TestStatusWatchInterruptedWhileWaiting: the end of --watch (SIGINT)
// ends the request to a node that does not answer, rather than waiting
// for --timeout.
func TestStatusWatchInterruptedWhileWaiting(t *testing.T) {
	url := silentListener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, ctx: ctx}
	start := time.Now()
	if err := statusCommand.run(e, []string{"--watch", "200ms", "--timeout", "30s", url}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("--watch ended %v after it began, its context %v", d.Round(time.Millisecond), 300*time.Millisecond)
	}
}

// TestStatusWatchJSONOnlyJSON: with --json, a node that does not answer
// is reported on standard error; standard output carries only the JSON.
func TestStatusWatchJSONOnlyJSON(t *testing.T) {
	url := refusingURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, ctx: ctx}
	if err := statusCommand.run(e, []string{"--watch", "100ms", "--json", url}); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing but JSON", stdout.String())
	}
	if !strings.HasPrefix(stderr.String(), "bloomcast: ") || !strings.Contains(stderr.String(), "connection refused") {
		t.Errorf("stderr %q, want the refusals", stderr.String())
	}
}

// TestStatusWatchWriteError: --watch with standard output that cannot
// be written (/dev/full) ends with status 2 and the error, rather than
// watching forever.
func TestStatusWatchWriteError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	for _, url := range []string{refusingURL(t), statusNodeURL(t)} {
		var stderr lockedBuffer
		code := make(chan int, 1)
		go func() { code <- run([]string{"status", "--watch", "100ms", url}, nil, full, &stderr) }()
		select {
		case c := <-code:
			if c != 2 || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("%s: exit %d, stderr %q; want 2 and the write error", url, c, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: --watch still running 10 s after its writes began to fail", url)
		}
	}
}

// statusNodeURL starts a node on loopback and returns its URL.
func statusNodeURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	startStatusNode(t, ln, node.NodeConfig{Name: "node-w"})
	return "http://" + ln.Addr().String()
}
