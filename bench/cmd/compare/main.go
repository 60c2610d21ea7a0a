// Command compare runs bloomcast's Bloom filters against other Go filter
// libraries on the same keys and prints Markdown tables and the target
// ratios that compare.Checks computes:
//
//	go run ./cmd/compare -n 100000,20000000 -p 0.01,0.001 -reps 5
//
// Progress goes to stderr, the report to stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
)

func main() {
	ns := flag.String("n", "100000,20000000", "comma-separated member counts")
	ps := flag.String("p", "0.01,0.001", "comma-separated target false-positive rates")
	reps := flag.Int("reps", 0, "repetitions per pass, the median is reported (0: 5, or 3 for n ≥ 10^7)")
	minQ := flag.Int("minq", 1_000_000, "least number of non-member queries")
	maxQ := flag.Int("maxq", 2_000_000, "most non-member queries (q = min(max(n, minq), maxq))")
	batch := flag.Int("batch", 1024, "group size of the batch passes")
	clock := flag.String("clock", compare.ClockCPU, "what a pass is charged: cpu (the measuring thread's CPU time) or wall")
	jsonPath := flag.String("json", "", "also write the raw results as JSON to this file")
	render := flag.String("render", "", "measure nothing: print the Markdown report of this JSON file")
	only := flag.String("only", "", "comma-separated short names of the contenders to run (default: all): "+shortNames())
	flag.Parse()

	if *render != "" {
		if err := compare.RenderFile(os.Stdout, *render, compare.ReadJSON, compare.WriteMarkdown); err != nil {
			fail(err)
		}
		return
	}

	cfg := compare.Config{Reps: *reps, MinQ: *minQ, MaxQ: *maxQ, Batch: *batch, Clock: *clock, Progress: os.Stderr}
	var err error
	if cfg.Ns, err = compare.ParseList(*ns, strconv.Atoi); err != nil {
		fail(fmt.Errorf("-n: %w", err))
	}
	if cfg.Ps, err = compare.ParseList(*ps, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		fail(fmt.Errorf("-p: %w", err))
	}
	if *only != "" {
		if cfg.Contenders, err = pick(*only); err != nil {
			fail(fmt.Errorf("-only: %w", err))
		}
	}
	rep, err := compare.Run(cfg)
	if err != nil {
		fail(err)
	}
	if err := compare.WriteMarkdown(os.Stdout, rep); err != nil {
		fail(err)
	}
	if *jsonPath != "" {
		if err := compare.CreateFile(*jsonPath, func(w io.Writer) error { return compare.WriteJSON(w, rep) }); err != nil {
			fail(err)
		}
	}
}

// shortNames lists the contenders' short names.
func shortNames() string {
	var names []string
	for _, c := range compare.Contenders() {
		names = append(names, c.Short)
	}
	return strings.Join(names, ",")
}

// pick returns the contenders named in list, in the harness's order.
func pick(list string) ([]compare.Contender, error) {
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		want[strings.TrimSpace(name)] = true
	}
	var out []compare.Contender
	for _, c := range compare.Contenders() {
		if want[c.Short] {
			out = append(out, c)
			delete(want, c.Short)
		}
	}
	for name := range want {
		return nil, fmt.Errorf("no contender %q (have %s)", name, shortNames())
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(1)
}
