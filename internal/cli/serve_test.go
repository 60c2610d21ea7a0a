package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/internal/nodeflags"
	"github.com/bloomcast/bloomcast/node"
)

func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, filepath.Join(dir, "node.conf"), `# a node
listen 127.0.0.1:4000
memory = 64MiB
peer name=b,proxy=http://127.0.0.1:4001,protocol=squid,icp=127.0.0.1:4002
threshold=0.05
allow-peers 10.0.0.0/8, 192.168.1.7
`)
	sf, err := parseServeFlags([]string{"--config", conf, "--listen", "127.0.0.1:5000", "--peer", "http://127.0.0.1:4003", "--codec", "arith",
		"--bits-per-entry", "37.4", "--hash-functions", "3", "--no-delta", "--peer-views", "compressed", "--full-digests", "static"})
	if err != nil {
		t.Fatal(err)
	}
	c := sf.cfg
	if c.Listen != "127.0.0.1:5000" || c.MemoryBytes != 64<<20 || c.Threshold != 0.05 || c.Codec != digest.Arith ||
		c.BitsPerEntry != 37.4 || c.HashFunctions != 3 || !c.NoDelta || c.PeerViews != node.PeerViewsCompressed ||
		c.FullDigests != node.FullDigestsStatic {
		t.Fatalf("config %+v", c)
	}
	if len(c.Peers) != 2 || c.Peers[0].Name != "b" || c.Peers[0].Protocol != node.Squid || c.Peers[0].ICP != "127.0.0.1:4002" ||
		c.Peers[1].Proxy != "http://127.0.0.1:4003" {
		t.Fatalf("peers %+v", c.Peers)
	}
	if len(c.AllowPeers) != 2 || c.AllowPeers[1].String() != "192.168.1.7/32" {
		t.Fatalf("allow-peers %v", c.AllowPeers)
	}
	for _, bad := range [][]string{
		{"--memory", "lots"}, {"--peer", "name=x"}, {"--peer", "proxy=http://x,colour=red"},
		{"--allow-clients", "10.0.0.0/33"}, {"--codec", "zstd"}, {"extra"},
	} {
		if _, err := parseServeFlags(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	failsWith(t, "serve: --log-level loud: want debug, info, warn or error", "serve", "--log-level", "loud", "--listen", "127.0.0.1:0")
	failsWith(t, "serve: --route pigeon: want digest, icp or none", "serve", "--route", "pigeon", "--listen", "127.0.0.1:0")
	failsWith(t, "serve: --peer-views zipped: want compressed or decoded", "serve", "--peer-views", "zipped", "--listen", "127.0.0.1:0")
	failsWith(t, "serve: --full-digests xor: want bloom, static or static-xor", "serve", "--full-digests", "xor", "--listen", "127.0.0.1:0")
	failsWith(t, "serve: --hash-functions -1: want a whole number from 1 to 64", "serve", "--hash-functions", "-1", "--listen", "127.0.0.1:0")
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestServeRunsANode(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		io.WriteString(w, "hello")
	}))
	defer origin.Close()
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "access.log")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, ctx: ctx}
	done := make(chan int)
	go func() {
		done <- e.finish(serveCommand, serveCommand.run(e, []string{"--listen", addr, "--access-log", logPath, "--log-level", "warn"}))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxy, _ := url.Parse("http://" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	for range 2 {
		resp, err := client.Get(origin.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "hello" {
			t.Fatalf("through the proxy: %q", b)
		}
	}
	resp, err := http.Get("http://" + addr + node.DigestPath)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("digest: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// inspect says where a node's count comes from.
	digestPath := writeFile(t, filepath.Join(t.TempDir(), "digest"), string(body))
	if text := ok(t, "", "inspect", digestPath); !strings.Contains(text, "by bloomcast serve: the objects the node held when it published it") {
		t.Errorf("inspect of a node's digest:\n%s", text)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	log, _ := os.ReadFile(logPath)
	if lines := strings.Split(strings.TrimSpace(string(log)), "\n"); len(lines) != 2 ||
		!strings.Contains(lines[0], "TCP_MISS/200") || !strings.Contains(lines[1], "HIT/200") {
		t.Fatalf("access log:\n%s", log)
	}
}

// TestServeWarnsOfSharedName: a node without --name whose peer runs on
// the same host warns at start that both call themselves by the host's
// name; with --name it does not.
func TestServeWarnsOfSharedName(t *testing.T) {
	for _, named := range []bool{false, true} {
		addr, peer := freeAddr(t), freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, ctx: ctx}
		args := []string{"--listen", addr, "--peer", "http://" + peer, "--log-level", "warn"}
		if named {
			args = append(args, "--name", "node-a")
		}
		done := make(chan int)
		go func() { done <- e.finish(serveCommand, serveCommand.run(e, args)) }()
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("serve did not come up: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
		warned := strings.Contains(stderr.String(), "no --name, and a peer runs on this host") && strings.Contains(stderr.String(), "give each node its own --name")
		if warned == named {
			t.Errorf("--name given %t: warned %t:\n%s", named, warned, stderr.String())
		}
	}
}

// TestServeFlagsDocumented checks that serve's usage text documents every
// flag serve takes, so a new flag cannot reach users undocumented.
func TestServeFlagsDocumented(t *testing.T) {
	sf := nodeflags.NewNodeFlags()
	fs := newFlagSet("serve")
	if err := sf.Register(fs); err != nil {
		t.Fatal(err)
	}
	usage := usageText("serve")
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(usage, "  --"+f.Name+" ") && !strings.Contains(usage, "  --"+f.Name+"\n") {
			t.Errorf("serve's usage does not document --%s", f.Name)
		}
	})
	if n < 30 {
		t.Fatalf("%d flags registered; the flag set changed shape", n)
	}
}

// TestServeICPReplies: --icp-replies reaches the node's configuration,
// and a budget below one reply a second is refused naming the flag.
func TestServeICPReplies(t *testing.T) {
	sf, err := parseServeFlags([]string{"--icp-replies", "250"})
	if err != nil || sf.cfg.ICPReplies != 250 {
		t.Fatalf("--icp-replies 250: %v, %+v", err, sf)
	}
	if sf, err := parseServeFlags(nil); err != nil || sf.cfg.ICPReplies != icp.DefaultReplies {
		t.Fatalf("default: %v, %+v", err, sf)
	}
	for _, v := range []string{"0", "-5", "many"} {
		if _, err := parseServeFlags([]string{"--icp-replies", v}); err == nil || !strings.Contains(err.Error(), "--icp-replies") {
			t.Errorf("--icp-replies %s: %v", v, err)
		}
	}
}
