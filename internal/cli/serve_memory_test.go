package cli

import (
	"bytes"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"

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
