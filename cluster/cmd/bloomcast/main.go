// Command bloomcast is the bloomcast command with the clients of the
// cluster module: everything cmd/bloomcast does, and serve --nats URL and
// simulate --transport nats, which push digests between nodes over NATS
// JetStream (package natsdigest). Build it from the repository's root
// with
//
//	go -C cluster build -o ../bloomcast ./cmd/bloomcast
//
// The commands live in package internal/cli; this command only runs
// them with a NATS client.
package main

import (
	"log/slog"
	"os"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/internal/cli"
)

func main() { os.Exit(cli.MainWith(options())) }

// options are the cluster build's additions to the commands.
func options() cli.Options {
	return cli.Options{
		NATS: func(url string, logger *slog.Logger) (cache.DigestTransport, error) {
			return natsdigest.New(natsdigest.Config{URL: url, Logger: logger})
		},
	}
}
