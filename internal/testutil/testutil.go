// Package testutil holds the helpers that tests across the module share,
// defined once: waiting for a condition that another goroutine or process
// brings about, a buffer written concurrently, a clock the test moves, a
// small file system, the live heap, an origin that never answers.
package testutil

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"
)

// maxPoll bounds the pause between two checks of a condition.
const maxPoll = 100 * time.Millisecond

// WaitFor checks ok until it holds, failing the test after limit with
// what it was waiting for. It checks again after 1 ms, then after
// pauses that double up to 100 ms, so that a condition that is nearly
// there costs little and a slow one (a process starting) is not polled
// in a busy loop.
func WaitFor(t testing.TB, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPoll)
	}
}

// SyncBuffer is a buffer that a server's goroutines write (an access log,
// a slog handler) while the test reads it: every Write and String holds
// its lock.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Clock is an injectable clock that moves only when the test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock that reads t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// MountTmpfs mounts a tmpfs of size bytes on a new directory, or skips
// the test when it cannot (not root, no mount).
func MountTmpfs(t testing.TB, size int) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// LiveHeap is the live heap after a full collection.
func LiveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// StallOrigin accepts connections, reads the request and answers
// nothing until the client goes away.
func StallOrigin(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				_, _ = io.Copy(io.Discard, c) // until the proxy hangs up
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}
