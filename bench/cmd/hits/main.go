// Command hits measures cache hits through a bloomcast node and through
// Squid side by side on loopback: an origin with 100 objects of 4 KiB,
// `bloomcast serve` (built from this module, run at GOMAXPROCS=1 and at
// GOMAXPROCS=2, no access log) and Debian's Squid (one worker,
// access_log none), all objects cached hits in both, and Debian's wrk
// sending absolute-URI requests through each proxy in turn, rounds
// interleaved, every round checked against the proxies' own counters:
//
//	go run ./cmd/hits -rounds 3 -duration 10s
//
// With -peer it measures peer hits, the summary cache's own path: each
// proxy is a pair, a front that stores nothing and routes every request
// by its peer's digest to the peer that holds the objects (two nodes;
// two Squids peering by Cache Digest):
//
//	go run ./cmd/hits -peer -procs 1
//
// Both are measured beside their floor (cmd/hitfloor): Go's net/http
// server at GOMAXPROCS=1 answering every request from memory, what a hit
// costs any Go server before a cache does anything, and for peer hits a
// pair of them, the front forwarding through net/http's client.
//
// With -pin (and -procs 1) every proxy process runs on one CPU, the
// first the run may use, and wrk on the others, so that the load
// generator does not take CPU time from the proxy it measures, nor one
// proxy's rounds get more of it than another's:
//
//	go run ./cmd/hits -procs 1 -pin
//
// With -fifo-wake the floor and the node are measured twice, the second
// time built with a Go runtime whose network poller runs the goroutines
// it finds ready in the order epoll reported them (the runtime as it is
// runs them newest first), beside the others in the same rounds:
//
//	go run ./cmd/hits -procs 1 -pin -fifo-wake
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
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bench/hits"
)

func main() {
	var cfg hits.Config
	flag.StringVar(&cfg.Bloomcast, "bloomcast", "", "the bloomcast binary (default: build ./cmd/bloomcast of the module)")
	flag.StringVar(&cfg.Squid, "squid", "/usr/sbin/squid", "the squid binary")
	flag.StringVar(&cfg.Wrk, "wrk", "/usr/bin/wrk", "the wrk binary")
	flag.IntVar(&cfg.Rounds, "rounds", 3, "rounds of each proxy")
	flag.DurationVar(&cfg.Duration, "duration", 0, "one round (0: 10s)")
	flag.IntVar(&cfg.Threads, "threads", 2, "wrk threads")
	flag.IntVar(&cfg.Connections, "connections", 32, "wrk connections")
	flag.IntVar(&cfg.Objects, "objects", 100, "objects of the origin")
	flag.IntVar(&cfg.ObjectBytes, "size", 4096, "object body size in bytes")
	flag.BoolVar(&cfg.Peer, "peer", false, "measure peer hits: each proxy a pair, the front routing every request by its peer's digest to the peer holding the objects")
	flag.BoolVar(&cfg.Pin, "pin", false, "run every proxy on one CPU (the first this run may use) and wrk on the others, so that the load generator does not share the proxies' CPU (Linux, taskset; with -procs 1)")
	flag.BoolVar(&cfg.Floor, "floor", true, "also measure the floor: net/http at GOMAXPROCS=1 answering from memory (with -peer, a pair of them)")
	flag.BoolVar(&cfg.FIFOWake, "fifo-wake", false, "also measure the floor and the node built with a Go runtime whose network poller runs the goroutines it finds ready in the order epoll reported them, not newest first (Linux; go build -overlay of runtime/netpoll_epoll.go)")
	procs := flag.String("procs", "1,2", "comma-separated GOMAXPROCS of the nodes, one node each")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file (- for stdout, instead of the table)")
	flag.Parse()
	for _, p := range strings.Split(*procs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			fail(fmt.Errorf("-procs: %w", err))
		}
		cfg.Procs = append(cfg.Procs, n)
	}
	cfg.Progress = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := hits.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	writeMarkdown := func(w io.Writer) error { return hits.WriteMarkdown(w, rep) }
	writeJSON := func(w io.Writer) error { return hits.WriteJSON(w, rep) }
	if err := compare.WriteReport(os.Stdout, *jsonPath, writeMarkdown, writeJSON); err != nil {
		fail(err)
	}
	if err := rep.Check(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hits:", err)
	os.Exit(1)
}
