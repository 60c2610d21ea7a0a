// Command load measures a summary-cache node under load: it
// starts an origin and two nodes, A and B, peers through digests, in this
// process on loopback, and drives concurrent keep-alive clients through A
// for local hits (objects A holds) and for peer hits (objects only B
// holds, each asked for once), printing requests/s and latency:
//
//	go run ./cmd/load -clients 32 -duration 10s
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
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/bench/load"
)

func main() {
	clients := flag.Int("clients", 32, "concurrent keep-alive clients")
	duration := flag.Duration("duration", 0, "measured time per scenario (0: 10s)")
	warmup := flag.Duration("warmup", 0, "unmeasured time before each scenario (0: 1s)")
	objects := flag.Int("objects", 1000, "objects of the local-hit set")
	size := flag.Int("size", 1024, "object body size in bytes")
	scenarios := flag.String("scenarios", load.ScenarioLocal+","+load.ScenarioPeer, "comma-separated scenarios")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file (- for stdout, instead of the table)")
	flag.Parse()

	cfg := load.Config{Clients: *clients, Duration: *duration, Warmup: *warmup, Objects: *objects,
		ObjectBytes: *size, Scenarios: strings.Split(*scenarios, ","), Progress: os.Stderr}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	writeMarkdown := func(w io.Writer) error { return load.WriteMarkdown(w, rep) }
	writeJSON := func(w io.Writer) error { return load.WriteJSON(w, rep) }
	if err := compare.WriteReport(os.Stdout, *jsonPath, writeMarkdown, writeJSON); err != nil {
		fail(err)
	}
	for _, r := range rep.Results {
		if err := r.Check(); err != nil {
			fail(fmt.Errorf("%s: %w", r.Scenario, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}
