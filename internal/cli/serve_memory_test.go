package cli

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/node"
)

// TestServeMemoryLimit: serve sets the node's suggested soft memory limit
// and restores the one before when it ends, and leaves GOMEMLIMIT's alone.
func TestServeMemoryLimit(t *testing.T) {
	n, err := node.NewNode(node.NodeConfig{MemoryBytes: 64 << 20, Manual: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	before := debug.SetMemoryLimit(-1)

	t.Setenv("GOMEMLIMIT", "")
	restore := setMemoryLimit(n, log)
	if got := debug.SetMemoryLimit(-1); got != n.MemoryLimit() || got < 64<<20 {
		t.Errorf("limit %d, want the node's %d", got, n.MemoryLimit())
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after restore, want %d", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	setMemoryLimit(n, log)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d with GOMEMLIMIT set, want it unchanged (%d)", got, before)
	}
	if !strings.Contains(logs.String(), "memory limit set") || !strings.Contains(logs.String(), "memory limit from GOMEMLIMIT") {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestServeMemoryLimitFollowsCache: the limit serve set grows as the
// cache fills, without waiting for a restart.
func TestServeMemoryLimitFollowsCache(t *testing.T) {
	n, err := node.NewNode(node.NodeConfig{MemoryBytes: 128 << 20, Capacity: 1000, Manual: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMEMLIMIT", "")
	restore := setMemoryLimit(n, slog.New(slog.DiscardHandler))
	defer restore()
	empty := debug.SetMemoryLimit(-1)
	now := time.Now()
	for i := range 100000 {
		if err := n.Store().Put(&cache.Entry{URL: fmt.Sprintf("http://origin.test/%d", i), Status: http.StatusOK,
			Header: http.Header{"Cache-Control": {"max-age=3600"}}, Body: []byte("x"), RequestTime: now, ResponseTime: now}); err != nil {
			t.Fatal(err)
		}
	}
	want := n.MemoryLimit()
	if want <= empty {
		t.Fatalf("the node's limit %d with 100000 objects, %d empty", want, empty)
	}
	deadline := time.Now().Add(3 * memoryLimitEvery)
	for debug.SetMemoryLimit(-1) != want {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d after %v, want %d", debug.SetMemoryLimit(-1), 3*memoryLimitEvery, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
