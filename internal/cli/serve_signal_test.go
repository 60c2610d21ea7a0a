//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveProcess is "bloomcast serve" running as a process.
type serveProcess struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	addr   string
	done   chan error
}

func startServe(t *testing.T, addr string, args ...string) *serveProcess {
	t.Helper()
	sp := &serveProcess{stderr: &lockedBuffer{}, addr: addr, done: make(chan error, 1)}
	sp.cmd = exec.Command(bloomcastBinary(t), append([]string{"serve"}, args...)...)
	sp.cmd.Stderr = sp.stderr
	if err := sp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { sp.done <- sp.cmd.Wait() }()
	t.Cleanup(func() {
		if sp.cmd.ProcessState == nil {
			sp.cmd.Process.Kill()
			<-sp.done
		}
	})
	testutil.WaitFor(t, 20*time.Second, "the node to answer /healthz", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return sp
}

func (sp *serveProcess) signal(t *testing.T, s os.Signal) {
	t.Helper()
	if err := sp.cmd.Process.Signal(s); err != nil {
		t.Fatal(err)
	}
}

// stopped waits up to limit for the process to end after a stop was
// asked of it, failing unless it exits with status 0.
func (sp *serveProcess) stopped(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case err := <-sp.done:
		if err != nil {
			t.Fatalf("after the stop: %v (want status 0)\n%s", err, sp.stderr)
		}
	case <-time.After(limit):
		t.Fatalf("still running %v after the stop\n%s", limit, sp.stderr)
	}
}

// get fetches target through the node.
func (sp *serveProcess) get(t *testing.T, target string) *http.Response {
	t.Helper()
	proxy, _ := url.Parse("http://" + sp.addr)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func readString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestServeSignals sends real signals to a real "bloomcast serve": SIGHUP
// applies a changed config file (a new peer, the log level, the allowed
// clients) while the cache stays, reopens the access log after it was
// moved away, keeps the running configuration when the new one is wrong;
// SIGTERM stops it with status 0.
func TestServeSignals(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		io.WriteString(w, "hello")
	}))
	defer origin.Close()
	var digestAsks atomic.Int64
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		digestAsks.Add(1)
		http.Error(w, "no digest yet", http.StatusServiceUnavailable)
	}))
	defer peer.Close()

	dir := t.TempDir()
	addr := freeAddr(t)
	logPath, conf := filepath.Join(dir, "access.log"), filepath.Join(dir, "node.conf")
	base := fmt.Sprintf("listen %s\naccess-log %s\npoll 50ms\nname node-a\n", addr, logPath)
	writeFile(t, conf, base)
	sp := startServe(t, addr, "--config", conf)
	obj := origin.URL + "/obj"
	if resp := sp.get(t, obj); resp.Header.Get("X-Cache") != "MISS from node-a" {
		t.Fatalf("first request: X-Cache %q", resp.Header.Get("X-Cache"))
	}
	testutil.WaitFor(t, 5*time.Second, "the miss in the access log", func() bool { return strings.Contains(readString(logPath), "TCP_MISS/200") })

	// logrotate moves the log away, the config gains a peer and debug
	// logging, and SIGHUP applies both.
	if err := os.Rename(logPath, logPath+".1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, conf, base+"peer "+peer.URL+"\nlog-level debug\n")
	sp.signal(t, syscall.SIGHUP)
	testutil.WaitFor(t, 5*time.Second, "the reload", func() bool { return strings.Contains(sp.stderr.String(), "configuration reloaded") })
	testutil.WaitFor(t, 5*time.Second, "the new peer polled", func() bool { return digestAsks.Load() > 0 })
	if resp := sp.get(t, obj); resp.Header.Get("X-Cache") != "HIT from node-a" {
		t.Fatalf("after the reload: X-Cache %q (the cache was dropped?)", resp.Header.Get("X-Cache"))
	}
	testutil.WaitFor(t, 5*time.Second, "the hit in the reopened access log", func() bool {
		return strings.Contains(readString(logPath), "TCP_MEM_HIT/200")
	})
	if old := readString(logPath + ".1"); strings.Contains(old, "HIT") || !strings.Contains(old, "TCP_MISS") {
		t.Fatalf("the rotated log:\n%s", old)
	}
	testutil.WaitFor(t, 5*time.Second, "debug logging", func() bool { return strings.Contains(sp.stderr.String(), "level=DEBUG") })

	// A typo: logged with the file and line, the running config kept.
	writeFile(t, conf, base+"peer "+peer.URL+"\nmemroy 1MiB\nallow-clients 10.0.0.0/8\n")
	sp.signal(t, syscall.SIGHUP)
	want := fmt.Sprintf(`%s:6: unknown key \"memroy\"`, conf)
	testutil.WaitFor(t, 5*time.Second, "the refused reload", func() bool {
		s := sp.stderr.String()
		return strings.Contains(s, "configuration not reloaded") && strings.Contains(s, want)
	})
	if resp := sp.get(t, obj); resp.StatusCode != 200 || resp.Header.Get("X-Cache") != "HIT from node-a" {
		t.Fatalf("after a refused reload: %s, X-Cache %q", resp.Status, resp.Header.Get("X-Cache"))
	}

	// Loopback no longer allowed; a restart-only change is reported.
	writeFile(t, conf, base+"memory 64MiB\nallow-clients 10.0.0.0/8\n")
	sp.signal(t, syscall.SIGHUP)
	testutil.WaitFor(t, 5*time.Second, "the second reload", func() bool {
		return strings.Count(sp.stderr.String(), "configuration reloaded") == 2
	})
	if resp := sp.get(t, obj); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a loopback client after allow-clients 10.0.0.0/8: %s", resp.Status)
	}
	if s := sp.stderr.String(); !strings.Contains(s, "change only when the node starts again") || !strings.Contains(s, "--memory") {
		t.Fatalf("no word of the restart-only change:\n%s", s)
	}

	sp.signal(t, syscall.SIGTERM)
	sp.stopped(t, 20*time.Second)
	if !strings.Contains(sp.stderr.String(), "bloomcast node stopped") {
		t.Fatalf("stderr:\n%s", sp.stderr)
	}
}

// TestServeCheckConfigProcess: --check-config exits 0 for a good file
// and 2, with one line naming the file and line, for a bad one.
func TestServeCheckConfigProcess(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "good.conf"), "listen 127.0.0.1:3999\nmemory 64MiB\n")
	bad := writeFile(t, filepath.Join(dir, "bad.conf"), "listen 127.0.0.1:3999\n\npoll 0\n")
	out, err := exec.Command(bloomcastBinary(t), "serve", "--config", good, "--check-config").CombinedOutput()
	if err != nil || string(out) != good+": configuration ok\n" {
		t.Fatalf("good config: %v, %q", err, out)
	}
	cmd := exec.Command(bloomcastBinary(t), "serve", "--check-config", "--config", bad)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || stderr.String() != "bloomcast: "+bad+":3: poll 0: want a duration of at least 1ms, such as 30s\n" {
		t.Fatalf("bad config: %v, stderr %q", err, stderr.String())
	}
}

// TestServeReloadAccessLogNotReopened: a reload whose new access log
// cannot be opened says so and names, in its "configuration reloaded"
// line, the log still written to, not the one that failed.
func TestServeReloadAccessLogNotReopened(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	logPath, conf := filepath.Join(dir, "access.log"), filepath.Join(dir, "node.conf")
	base := fmt.Sprintf("listen %s\npoll 1h\n", addr)
	writeFile(t, conf, base+"access-log "+logPath+"\n")
	sp := startServe(t, addr, "--config", conf)
	bad := filepath.Join(dir, "missing", "access.log")
	writeFile(t, conf, base+"access-log "+bad+"\n")
	sp.signal(t, syscall.SIGHUP)
	testutil.WaitFor(t, 5*time.Second, "the reload", func() bool { return strings.Contains(sp.stderr.String(), "configuration reloaded") })
	s := sp.stderr.String()
	if !strings.Contains(s, "access log not reopened") || !strings.Contains(s, "access_log="+logPath) || strings.Contains(s, "access_log="+bad) {
		t.Fatalf("stderr:\n%s", s)
	}
}

// hostStatus sends "GET path" in origin form to addr on a socket of its
// own, with host as its Host field (a browser sends the page's own name
// there), and returns the status and body.
func hostStatus(t *testing.T, addr, path, host string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s with Host %s: %v", path, host, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeAllowHost: a real "bloomcast serve" answers /metrics and the
// status JSON to a Host that is its address, localhost, its --name or an
// --allow-host name (from the config file and the command line), and
// refuses any other with 403 naming the flag: a web page that points its
// own name at the node (DNS rebinding) cannot read them through the
// operator's browser. The digest answers any Host. SIGHUP applies a
// changed --allow-host at once.
func TestServeAllowHost(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	conf := filepath.Join(dir, "node.conf")
	base := fmt.Sprintf("listen %s\nname node-a\npoll 1h\n", addr)
	writeFile(t, conf, base+"allow-host cache.example.net\n")
	sp := startServe(t, addr, "--config", conf, "--allow-host", "second.example")

	check := func(host string, want int) {
		t.Helper()
		for _, path := range []string{"/metrics", "/bloomcast/status.json", "/bloomcast/status"} {
			status, body := hostStatus(t, addr, path, host)
			if status != want || want == http.StatusForbidden && !strings.Contains(body, "--allow-host") {
				t.Errorf("%s with Host %s: %d %.80q, want %d", path, host, status, body, want)
			}
		}
	}
	check("evil.example:"+port, http.StatusForbidden)
	for _, host := range []string{addr, "[::1]:" + port, "localhost:" + port, "node-a:" + port, "cache.example.net:" + port, "second.example"} {
		check(host, http.StatusOK)
	}
	if status, _ := hostStatus(t, addr, "/bloomcast/digest", "evil.example:"+port); status != http.StatusOK {
		t.Errorf("the digest with Host evil.example: %d, want 200 (peers name the node as they reach it)", status)
	}

	writeFile(t, conf, base+"allow-host evil.example\n")
	sp.signal(t, syscall.SIGHUP)
	testutil.WaitFor(t, 5*time.Second, "the reload", func() bool { return strings.Contains(sp.stderr.String(), "configuration reloaded") })
	check("evil.example:"+port, http.StatusOK)
	check("cache.example.net:"+port, http.StatusForbidden)
	check("second.example", http.StatusOK)
	if s := sp.stderr.String(); strings.Contains(s, "change only when the node starts again") {
		t.Errorf("a reload of --allow-host said it needs a restart:\n%s", s)
	}
}
