// Command ttfb measures the time to the first byte of a miss's body
// directly from an origin, through a bloomcast node and through Squid,
// on loopback: the origin sends its header and a first piece of body at
// once and the rest after a pause, every request is for a new URL, and
// the requests are interleaved (direct, node, Squid, …):
//
//	go run ./cmd/ttfb -requests 200
//
// Progress goes to stderr, the report to stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bench/hits"
)

func main() {
	var cfg hits.TTFBConfig
	flag.StringVar(&cfg.Bloomcast, "bloomcast", "", "the bloomcast binary (default: build ./cmd/bloomcast of the module)")
	flag.StringVar(&cfg.Squid, "squid", "/usr/sbin/squid", "the squid binary")
	flag.IntVar(&cfg.Requests, "requests", 200, "requests per target")
	flag.DurationVar(&cfg.Pause, "pause", 0, "the origin's pause between the body's two pieces (0: 20ms)")
	flag.IntVar(&cfg.Piece, "piece", 1024, "bytes of each piece of the body")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file (- for stdout, instead of the table)")
	flag.Parse()
	cfg.Progress = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := hits.RunTTFB(ctx, cfg)
	if err != nil {
		fail(err)
	}
	writeMarkdown := func(w io.Writer) error { return hits.WriteTTFBMarkdown(w, rep) }
	writeJSON := func(w io.Writer) error { return hits.WriteTTFBJSON(w, rep) }
	if err := compare.WriteReport(os.Stdout, *jsonPath, writeMarkdown, writeJSON); err != nil {
		fail(err)
	}
	if err := rep.Check(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ttfb:", err)
	os.Exit(1)
}
