// Command coders measures bloomcast's bit-array coders against flate and
// zstd on the same i.i.d. random arrays, one per density, and prints the
// Markdown table of docs/BENCHMARKS.md, "Entropy coders": each stream's
// size against m·H(p̂) and the encode and decode speed of each coder, on
// the CPU-time clock of the measuring thread and the wall clock:
//
//	go run ./cmd/coders -p 0.5,0.1,0.01 -m 8388608 -reps 7
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
	"time"

	"github.com/bloomcast/bloomcast/bench/coders"
	"github.com/bloomcast/bloomcast/bench/compare"
)

func main() {
	ps := flag.String("p", joinFloats(coders.DefaultPs), "comma-separated densities of ones")
	m := flag.Uint64("m", coders.DefaultM, "bits per array, a multiple of 64")
	reps := flag.Int("reps", coders.DefaultReps, "interleaved rounds; the median is reported")
	seed := flag.Uint64("seed", 1, "seed of the arrays")
	minPass := flag.Duration("minpass", coders.DefaultMinPass, "least duration of a timed pass (faster operations are repeated within it); negative: one run per pass")
	jsonPath := flag.String("json", "", "also write the raw results as JSON to this file")
	render := flag.String("render", "", "measure nothing: print the Markdown report of this JSON file")
	flag.Parse()

	if *render != "" {
		if err := compare.RenderFile(os.Stdout, *render, coders.ReadJSON, coders.WriteMarkdown); err != nil {
			fail(err)
		}
		return
	}

	cfg := coders.Config{M: *m, Reps: *reps, Seed: *seed, MinPass: *minPass, Progress: os.Stderr}
	var err error
	if cfg.Ps, err = compare.ParseList(*ps, parseFloat); err != nil {
		fail(fmt.Errorf("-p: %w", err))
	}
	if *m == 0 {
		fail(fmt.Errorf("-m: must be positive"))
	}
	if *reps < 1 {
		fail(fmt.Errorf("-reps: must be at least 1"))
	}
	if *minPass == 0 {
		cfg.MinPass = -time.Nanosecond // 0 on the command line: one run per pass
	}
	rep, err := coders.Run(cfg)
	if err != nil {
		fail(err)
	}
	if err := coders.WriteMarkdown(os.Stdout, rep); err != nil {
		fail(err)
	}
	if *jsonPath != "" {
		if err := compare.CreateFile(*jsonPath, func(w io.Writer) error { return coders.WriteJSON(w, rep) }); err != nil {
			fail(err)
		}
	}
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coders:", err)
	os.Exit(1)
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
