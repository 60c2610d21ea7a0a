package browsercheck

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/node"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromium returns the path of Chromium, skipping the test when it is not
// installed, or failing it when BLOOMCAST_REQUIRE_CHROMIUM is set (.ci/run
// installs Debian's chromium package and sets it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BLOOMCAST_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium not found, and BLOOMCAST_REQUIRE_CHROMIUM is set")
	}
	t.Skip("chromium not installed (Debian: apt-get install chromium)")
	return ""
}

// metric returns the value of n's metric name for the sample whose
// label value is label ("" for a metric without labels), and whether
// there is one.
func metric(t *testing.T, n *node.Node, name, label string) (float64, bool) {
	t.Helper()
	families, err := n.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if label != "" && (len(m.GetLabel()) == 0 || m.GetLabel()[0].GetValue() != label) {
				continue
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue(), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

type testNode struct {
	*node.Node
	ln   net.Listener
	stop func()
}

func (n *testNode) url() string { return "http://" + n.ln.Addr().String() }

// get fetches target through the node.
func (n *testNode) get(t *testing.T, target string) {
	t.Helper()
	proxy, _ := url.Parse(n.url())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func startNode(t *testing.T, ln net.Listener, cfg node.NodeConfig) *testNode {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.MemoryBytes, cfg.Capacity = 8<<20, 1000
	n, err := node.NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln, nil) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return &testNode{Node: n, ln: ln, stop: stop}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestStatusPageInChromium starts three real nodes and an origin on
// loopback: a polls b and c every second. Traffic through a yields a
// peer hit from b. The status page of a, opened in headless Chromium,
// lists both peers as ok, counts the peer hit, draws the chart; with
// JavaScript off its tables are there all the same. Then c stops, and
// within one poll and one refresh of the page (JavaScript on) c's row is
// marked FAILING in red, with a banner. The page is saved as a
// screenshot: to $BLOOMCAST_SCREENSHOT when set (docs/figures/status.png
// is made so), else to the test's temporary directory.
func TestStatusPageInChromium(t *testing.T) {
	browser := chromium(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = io.WriteString(w, "object "+r.URL.Path)
	}))
	defer origin.Close()
	lnA, lnB, lnC := listen(t), listen(t), listen(t)
	peer := func(name string, ln net.Listener) node.PeerConfig {
		return node.PeerConfig{Name: name, Proxy: "http://" + ln.Addr().String()}
	}
	const poll = time.Second
	a := startNode(t, lnA, node.NodeConfig{Name: "node-a", PollInterval: poll, PeerExpiry: time.Hour,
		Peers: []node.PeerConfig{peer("b", lnB), peer("c", lnC)}})
	b := startNode(t, lnB, node.NodeConfig{Name: "node-b", PollInterval: time.Hour})
	c := startNode(t, lnC, node.NodeConfig{Name: "node-c", PollInterval: time.Hour})
	for i := range 5 {
		b.get(t, fmt.Sprintf("%s/obj/%d", origin.URL, i))
	}
	b.Publisher().Publish()
	c.Publisher().Publish()
	deadline := time.Now().Add(20 * time.Second)
	for {
		seqB, hasB := metric(t, a.Node, "bloomcast_peer_view_sequence", "b")
		_, hasC := metric(t, a.Node, "bloomcast_peer_view_sequence", "c")
		published, _ := metric(t, b.Node, "bloomcast_digest_sequence", "")
		if hasB && hasC && seqB == published {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a did not poll b's and c's digests: view of b %t at %v (b published %v), view of c %t", hasB, seqB, published, hasC)
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.get(t, origin.URL+"/obj/3") // a peer hit from b
	a.get(t, origin.URL+"/other") // a miss
	if hits, _ := metric(t, a.Node, "bloomcast_requests_total", "peer_hit"); hits != 1 {
		t.Fatalf("peer hits at a: %v", hits)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	page := a.url() + nodestatus.Path + "?refresh=1"
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	if got := eval(`[...document.querySelectorAll("#peers tr[data-peer]")].map(r => r.dataset.peer + ":" + r.className).join(",")`); got != "b:ok,c:ok" {
		t.Errorf("peer rows: %q", got)
	}
	if got := eval(`document.querySelector("#ratios tr:nth-child(2) td:nth-child(3)").innerText`); !strings.HasPrefix(got, "1 (50") {
		t.Errorf("peer hits in the last hour: %q", got)
	}
	if got := eval(`String(document.querySelectorAll("#chart rect.peer").length) + "/" + String(document.querySelector("#chart rect.peer").getBBox().height > 0)`); got != "1/true" {
		t.Errorf("chart's peer-hit bars: %q", got)
	}
	if got := eval(`document.querySelector('tr[data-peer="b"] td:nth-child(7)').innerText`); got != "1" {
		t.Errorf("b's hits: %q", got)
	}

	// c stops: a's next poll fails, and the page, refreshing itself,
	// marks it.
	c.stop()
	stopped := time.Now()
	waitCtx, cancelWait := context.WithTimeout(ctx, poll+5*time.Second)
	defer cancelWait()
	if _, err := chromedp.Run(waitCtx, chromedp.Poll[bool](`document.querySelector('tr[data-peer="c"]').className === "failing"`,
		chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		t.Fatalf("c not marked failing %v after it stopped: %v", time.Since(stopped), err)
	}
	t.Logf("c marked failing %v after it stopped (poll %v, page refresh 1s)", time.Since(stopped).Round(time.Millisecond), poll)
	if got := eval(`document.querySelector('tr[data-peer="c"] td.state').innerText + "|" + getComputedStyle(document.querySelector('tr[data-peer="c"] td')).backgroundColor + "|" + document.getElementById("failing").innerText`); got != "FAILING|rgb(255, 221, 221)|1 of 2 peers failing: c" {
		t.Errorf("c's row: %q", got)
	}
	if got := eval(`document.querySelector('tr[data-peer="b"]').className`); got != "ok" {
		t.Errorf("b's row: %q", got)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("BLOOMCAST_SCREENSHOT")
	if out == "" {
		out = t.TempDir() + "/status.png"
	}
	if len(shot) < 1000 {
		t.Fatalf("screenshot of %d bytes", len(shot))
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}

	// JavaScript off, in a second tab: the tables are all there.
	ctx2, cancel2 := chromedp.NewContext(ctx)
	defer cancel2()
	noScript := chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return chromedp.Void{}, err
	})
	if err := chromedp.Do(ctx2, noScript, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx2, chromedp.Text(chromedp.CSS("#peers")))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"b", "c", "FAILING", "ok"} {
		if !strings.Contains(text, s) {
			t.Errorf("peers table with JavaScript off lacks %q: %q", s, text)
		}
	}
}
