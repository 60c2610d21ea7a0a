package cache

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// requireSquidEnv makes TestRealSquid fail, instead of skip, when no
// squid binary is installed: .ci/run installs Debian's squid and sets it.
const requireSquidEnv = "BLOOMCAST_REQUIRE_SQUID"

// TestRealSquid runs a real Squid (Debian's squid 5.x) beside a node:
// (a) Squid, with the node as a digest sibling, fetches the node's Squid
// digest, finds it usable, and sends a request for an object the node
// holds to the node (CD_SIBLING_HIT in Squid's access log); (b) the node,
// with that Squid as its peer, decodes Squid's own store digest and gets a
// peer hit from it.
func TestRealSquid(t *testing.T) {
	bin, err := exec.LookPath("squid")
	if err != nil {
		bin = "/usr/sbin/squid"
		if _, serr := os.Stat(bin); serr != nil {
			if os.Getenv(requireSquidEnv) != "" {
				t.Fatalf("%s is set but squid is not installed", requireSquidEnv)
			}
			t.Skip("squid not installed (apt-get install squid); .ci/run runs this test")
		}
	}
	if testing.Short() {
		t.Skip("starts a Squid")
	}
	origin, hits := squidTestOrigin(t)
	nodeLn := listen(t, "127.0.0.1:0")
	squidAddr := freeLoopbackAddr(t)
	node := startNode(t, nodeLn, nil, NodeConfig{Manual: true,
		Peers: []PeerConfig{{Name: "squid", Proxy: "http://" + squidAddr, Protocol: Squid}}})
	// The node holds a1 before Squid first fetches its digest.
	a1 := origin.URL + "/a1"
	node.get(t, a1)
	node.Publisher().Publish()

	sq := startSquid(t, bin, squidAddr, nodeLn.Addr().String())
	viaSquid := proxyClient(squidAddr)

	// (a) The first request makes Squid want the digest; then it must be
	// usable, and a1 must go to the node.
	mustGet(t, viaSquid, origin.URL+"/warm")
	waitFor(t, 20*time.Second, "Squid to find the node's digest usable", func() bool {
		return strings.Contains(squidMgr(t, squidAddr, "digest_stats"), "usable: yes")
	})
	mustGet(t, viaSquid, a1)
	waitFor(t, 5*time.Second, "CD_SIBLING_HIT for a1 in Squid's access log", func() bool {
		return logHas(sq.accessLog, "CD_SIBLING_HIT", "/a1")
	})
	if n := hits("/a1"); n != 1 {
		t.Fatalf("the origin served a1 %d times; the node should have answered Squid", n)
	}

	// (b) Squid caches b1; once its store digest (rebuilt every few
	// seconds here) holds it, the node's view does, and a request through
	// the node is a peer hit from Squid.
	b1 := origin.URL + "/b1"
	mustGet(t, viaSquid, b1)
	key, _ := Key(b1)
	peer := node.Directory().Peers()[0]
	waitFor(t, 30*time.Second, "the node's view of Squid's digest to hold b1", func() bool {
		node.Directory().RefreshPeer(context.Background(), peer)
		return len(node.Directory().Candidates(key)) == 1
	})
	if body, _ := node.get(t, b1); body != "object /b1" {
		t.Fatalf("b1 through the node: %q", body)
	}
	if !strings.Contains(node.log.String(), "CD_SIBLING_HIT/squid") || hits("/b1") != 1 {
		t.Fatalf("b1 was not a peer hit from Squid (origin served it %d times); node log:\n%s", hits("/b1"), node.log)
	}
}

// squidTestOrigin serves cacheable objects and counts requests per path.
func squidTestOrigin(t *testing.T) (*httptest.Server, func(string) int64) {
	var counts [256]atomic.Int64
	paths := map[string]int{"/warm": 0, "/a1": 1, "/b1": 2}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i, ok := paths[r.URL.Path]; ok {
			counts[i].Add(1)
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Last-Modified", time.Now().Add(-72*time.Hour).UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "object %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, func(p string) int64 { return counts[paths[p]].Load() }
}

func freeLoopbackAddr(t *testing.T) string {
	ln := listen(t, "127.0.0.1:0")
	defer ln.Close()
	return ln.Addr().String()
}

type squidProcess struct {
	cmd       *exec.Cmd
	accessLog string
	cacheLog  string
}

// startSquid writes a configuration and runs squid in the foreground
// until the test ends.
func startSquid(t *testing.T, bin, addr, nodeAddr string) *squidProcess {
	t.Helper()
	dir, err := os.MkdirTemp("", "bloomcast-squid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	nodeHost, nodePort, _ := net.SplitHostPort(nodeAddr)
	sq := &squidProcess{accessLog: filepath.Join(dir, "access.log"), cacheLog: filepath.Join(dir, "cache.log")}
	conf := fmt.Sprintf(`http_port %s
icp_port 0
htcp_port 0
visible_hostname localhost
pid_filename none
cache_log %s
access_log stdio:%s squid
cache_mem 16 MB
# Squid builds its store digest from its cache_dirs, not from memory.
cache_dir ufs %s 20 4 16
# The node: a sibling whose digest Squid fetches (no no-digest), asked
# over HTTP only (no-query: no ICP).
cache_peer %s sibling %s 0 no-query name=bloomcast
http_access allow localhost
http_access deny all
# Everything is on loopback: without these Squid measures the origin as
# near (pinger hops and RTT) and goes direct instead of to the sibling.
minimum_direct_rtt 0
minimum_direct_hops 0
pinger_enable off
digest_generation on
digest_rebuild_period 2 seconds
digest_rewrite_period 2 seconds
refresh_pattern . 60 50%% 4320
shutdown_lifetime 1 second
`, addr, sq.cacheLog, sq.accessLog, filepath.Join(dir, "cache"), nodeHost, nodePort)
	confPath := filepath.Join(dir, "squid.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	chownToSquidUser(t, dir)
	// -z creates the cache_dir's swap directories and exits.
	if out, err := exec.Command(bin, "-N", "-z", "-f", confPath).CombinedOutput(); err != nil {
		t.Fatalf("squid -z: %v\n%s", err, out)
	}
	sq.cmd = exec.Command(bin, "-N", "-f", confPath)
	sq.cmd.Stdout, sq.cmd.Stderr = io.Discard, io.Discard
	if err := sq.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { sq.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		sq.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			sq.cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			if b, err := os.ReadFile(sq.cacheLog); err == nil {
				t.Logf("squid cache.log:\n%s", tail(string(b), 40))
			}
			if b, err := os.ReadFile(sq.accessLog); err == nil {
				t.Logf("squid access.log:\n%s", b)
			}
		}
	})
	waitFor(t, 20*time.Second, "squid to listen on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return sq
}

// chownToSquidUser gives the directory to Squid's unprivileged user when
// the test runs as root (Squid then drops to that user).
func chownToSquidUser(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("proxy")
	if err != nil {
		return
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func proxyClient(addr string) *http.Client {
	u, _ := url.Parse("http://" + addr)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}}
}

func mustGet(t *testing.T, c *http.Client, target string) string {
	t.Helper()
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", target, resp.Status)
	}
	return string(b)
}

// squidMgr fetches a cache manager report.
func squidMgr(t *testing.T, addr, report string) string {
	resp, err := http.Get("http://" + addr + "/squid-internal-mgr/" + report)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func logHas(path string, words ...string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
next:
	for sc.Scan() {
		for _, w := range words {
			if !strings.Contains(sc.Text(), w) {
				continue next
			}
		}
		return true
	}
	return false
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}
