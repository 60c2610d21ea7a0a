package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNoNATSClient: this build has no NATS client, and says in one line
// which build has one.
func TestNoNATSClient(t *testing.T) {
	conf := writeFile(t, filepath.Join(t.TempDir(), "node.conf"), "nats nats://127.0.0.1:4222\n")
	for _, args := range [][]string{
		{"serve", "--nats", "nats://127.0.0.1:4222", "--check-config"},
		{"serve", "--config", conf, "--check-config"},
		{"simulate", "--transport", "nats", "--requests", "100"},
	} {
		var out, errOut strings.Builder
		code := run(args, strings.NewReader(""), &out, &errOut)
		msg := errOut.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "no NATS client") ||
			!strings.Contains(msg, "go -C cluster build -o ../bloomcast ./cmd/bloomcast") {
			t.Errorf("%v: status %d, stderr %q", args, code, msg)
		}
	}
}
