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
	"errors"
	"os"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/internal/cli"
	"github.com/bloomcast/bloomcast/node"
)

func main() { os.Exit(cli.MainWith(options())) }

// options are the cluster build's additions to the commands.
func options() cli.Options {
	return cli.Options{
		NATS: func(o cli.NATSConfig) (node.DigestTransport, error) {
			cfg := natsdigest.Config{URL: o.URL, MaxDigestBytes: o.MaxDigestBytes, Logger: o.Logger}
			if ns := o.Namespace; ns != "" {
				cfg.Stream = "BLOOMCAST_" + ns
				cfg.Subject = "bloomcast." + ns + ".digest"
				cfg.AliveSubject = "bloomcast." + ns + ".alive"
			}
			return natsdigest.New(cfg)
		},
		StartNATS: func() (string, func(), error) {
			dir, err := os.MkdirTemp("", "bloomcast-nats")
			if err != nil {
				return "", nil, err
			}
			s, err := natstest.Start(dir)
			if err != nil {
				return "", nil, errors.Join(err, os.RemoveAll(dir))
			}
			return s.URL, func() {
				s.Kill()
				_ = os.RemoveAll(dir) // a temporary directory
			}, nil
		},
	}
}
