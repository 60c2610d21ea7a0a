// Command fill fills a bloomcast node and Squid (memory cache only, the
// same budget) with distinct objects from a loopback origin, each
// requested once, and reports for each what it holds, what it accounts
// and the resident memory it takes, per object:
//
//	go run ./cmd/fill -memory 256 -sets 100000x100,10000x65536
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
	var cfg hits.FillConfig
	flag.StringVar(&cfg.Bloomcast, "bloomcast", "", "the bloomcast binary (default: build ./cmd/bloomcast of the module)")
	flag.StringVar(&cfg.Squid, "squid", "/usr/sbin/squid", "the squid binary")
	flag.Int64Var(&cfg.MemoryMiB, "memory", 256, "the node's --memory and Squid's cache_mem, in MiB")
	flag.IntVar(&cfg.Workers, "workers", 8, "concurrent requests")
	sets := flag.String("sets", "100000x100,10000x65536", "comma-separated OBJECTSxBYTES fills, each into a fresh node and Squid")
	proxies := flag.String("proxies", "bloomcast,squid", "comma-separated proxies to fill: bloomcast, squid")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file (- for stdout, instead of the table)")
	flag.Parse()
	for _, s := range strings.Split(*sets, ",") {
		o, b, ok := strings.Cut(strings.TrimSpace(s), "x")
		n, err1 := strconv.Atoi(o)
		size, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			fail(fmt.Errorf("-sets: %q is not OBJECTSxBYTES", s))
		}
		cfg.Sets = append(cfg.Sets, hits.FillSet{Objects: n, Bytes: size})
	}
	cfg.Proxies = strings.Split(*proxies, ",")
	cfg.Progress = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := hits.RunFill(ctx, cfg)
	if err != nil {
		fail(err)
	}
	writeMarkdown := func(w io.Writer) error { return hits.WriteFillMarkdown(w, rep) }
	writeJSON := func(w io.Writer) error { return hits.WriteFillJSON(w, rep) }
	if err := compare.WriteReport(os.Stdout, *jsonPath, writeMarkdown, writeJSON); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fill:", err)
	os.Exit(1)
}
