//go:build unix

package cli

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newSlowOrigin serves /slow?n=N: a cacheable body of N bytes with its
// Content-Length, sent 4 KiB every 50 ms (a 1 MB body takes 12 s).
func newSlowOrigin(t *testing.T) *httptest.Server {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Length", strconv.Itoa(n))
		piece := make([]byte, 4096)
		for sent := 0; sent < n; sent += len(piece) {
			if _, err := w.Write(piece[:min(len(piece), n-sent)]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(o.Close)
	return o
}

// slowGet starts a GET of target through the node at addr and returns,
// once its header is in, a channel with the body's length and the error
// that ended it (nil only for a body read to its end).
func slowGet(t *testing.T, addr, target string) <-chan bodyRead {
	t.Helper()
	proxy, _ := url.Parse("http://" + addr)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}}
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bodyRead, 1)
	go func() {
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		done <- bodyRead{n, err}
	}()
	return done
}

type bodyRead struct {
	n   int64
	err error
}

// diskEntries counts the disk cache's entry files in dir.
func diskEntries(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.bce"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestServeStopCutsOffAfterGrace sends SIGTERM to a real "bloomcast
// serve --disk" relaying two misses from a slow origin: the one that
// completes within the grace period is served whole; the one that
// cannot is cut off after it, its client seeing the body end short of
// its Content-Length (an error, not a clean end), and it is not stored;
// the node says so and exits with status 0, as a stop asked for is not
// a failure.
func TestServeStopCutsOffAfterGrace(t *testing.T) {
	origin := newSlowOrigin(t)
	dir := filepath.Join(t.TempDir(), "disk")
	addr := freeAddr(t)
	sp := startServe(t, addr, "--listen", addr, "--disk", dir)
	short := slowGet(t, addr, origin.URL+"/slow?n=80000")  // about 1 s
	long := slowGet(t, addr, origin.URL+"/slow?n=4000000") // about 50 s
	start := time.Now()
	sp.signal(t, syscall.SIGTERM)
	sp.stopped(t, 30*time.Second)
	if took := time.Since(start); took < 9*time.Second {
		t.Errorf("stopped %v after SIGTERM, within the 10 s grace, with a request in flight", took)
	}
	if r := <-short; r.err != nil || r.n != 80000 {
		t.Errorf("the request that completes within the grace: %d bytes, %v", r.n, r.err)
	}
	if r := <-long; r.err == nil || r.n >= 4000000 {
		t.Errorf("the request cut off: %d bytes of 4000000 read as a complete body (err %v)", r.n, r.err)
	}
	if s := sp.stderr.String(); !strings.Contains(s, "cut off") || !strings.Contains(s, "bloomcast node stopped") {
		t.Errorf("stderr:\n%s", s)
	}
	if got := diskEntries(t, dir); got != 1 {
		t.Errorf("%d entries on disk, want 1 (the whole response, not the cut one)", got)
	}
}

// TestServeSecondSignalStopsAtOnce: a second SIGTERM while the node
// waits for a request in flight ends the process at once, not after the
// grace period.
func TestServeSecondSignalStopsAtOnce(t *testing.T) {
	origin := newSlowOrigin(t)
	addr := freeAddr(t)
	sp := startServe(t, addr, "--listen", addr)
	long := slowGet(t, addr, origin.URL+"/slow?n=4000000")
	sp.signal(t, syscall.SIGTERM)
	time.Sleep(500 * time.Millisecond) // the first signal handled
	start := time.Now()
	sp.signal(t, syscall.SIGTERM)
	select {
	case err := <-sp.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("after the second SIGTERM: %v, want the process ended by the signal\n%s", err, sp.stderr)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("still running 5 s after a second SIGTERM\n%s", sp.stderr)
	}
	t.Logf("stopped %v after the second signal", time.Since(start))
	if r := <-long; r.err == nil {
		t.Errorf("the request cut off: %d bytes read as a complete body", r.n)
	}
}

// TestServeHangupWhileStarting: a SIGHUP that comes while serve is still
// starting (here blocked opening its access log, a FIFO no one reads
// yet; a large disk cache being loaded is the same) neither ends the
// process, as SIGHUP's default action would, nor is lost: the node
// starts when the log opens and stops with status 0 at SIGTERM.
func TestServeHangupWhileStarting(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "access.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bloomcastBinary(t), "serve", "--listen", addr, "--access-log", fifo)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	})
	time.Sleep(time.Second) // serve waits for a reader of its access log
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	// A reader that never blocks, even if serve is gone; the pipe's
	// buffer holds the few lines written.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("serve ended by a SIGHUP while starting: %v\n%s", err, stderr)
		default:
		}
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /healthz 20 s after start\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after SIGTERM")
	}
}

// TestServeHangupWhileStopping: SIGHUPs that keep coming while the node
// stops (logrotate's reload during a stop) neither end the process, as
// SIGHUP's default action would once serve stops catching it, nor keep
// it from stopping: it exits with status 0. The moment such a signal
// would end it is short, so three nodes are stopped so.
func TestServeHangupWhileStopping(t *testing.T) {
	for range 3 {
		addr := freeAddr(t)
		sp := startServe(t, addr, "--listen", addr)
		sp.signal(t, syscall.SIGTERM)
		deadline := time.Now().Add(20 * time.Second)
		for sp.cmd.Process.Signal(syscall.SIGHUP) == nil { // until it has exited
			if time.Now().After(deadline) {
				t.Fatalf("still running 20 s after SIGTERM\n%s", sp.stderr)
			}
		}
		sp.stopped(t, 5*time.Second)
	}
}
