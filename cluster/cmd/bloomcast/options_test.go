package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/internal/cli"
	"github.com/bloomcast/bloomcast/node"
)

// TestNATSMaxDigest: the node's --max-digest reaches the NATS transport,
// which refuses to send a larger digest (its peers would drop it).
func TestNATSMaxDigest(t *testing.T) {
	srv := natstest.New(t)
	tr, err := options().NATS(cli.NATSConfig{URL: srv.URL, MaxDigestBytes: 5000, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Start(context.Background(), "a", func(node.DigestMessage) {}); err != nil {
		t.Fatal(err)
	}
	natstest.WaitConnected(t, "a", tr)
	for _, n := range []int{5000, 5001} {
		err := tr.Publish(context.Background(), node.DigestMessage{Node: "a", Sequence: 1, Frame: make([]byte, n)})
		if (err == nil) != (n <= 5000) {
			t.Errorf("a frame of %d bytes with --max-digest 5000: %v", n, err)
		}
	}
}
