package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

var calcCommand = &command{
	name:    "calc",
	summary: "solve for n, p, m, k in every layout",
	usage: `usage: bloomcast calc [-n N] [-p P] [-m BITS] [-k K] [--layout L]
                      [--block-bits B] [--json]

Give any two or more of n (distinct keys), p (false-positive rate), m (bits)
and k (probes per key). calc derives the rest for each layout and predicts
the false-positive rate of each shape:

  -n -p       the smallest m, and its k      -m -p      the most keys n, and k
  -n -p -k    the smallest m for that k      -m -k -p   the most keys n
  -n -m       the best k                     -n -m -k   the rate
  -n -k       the m at which k is optimal    -m -k      the n at which k is optimal

For blocked, -n -p takes the fewest probes whose m is within 1% of the
smallest (at p = 0.001, k = 8 for 0.7% more bits than k = 9), as build
and the library do. m is rounded up to each layout's granularity, as
build rounds it. With -n, -m and -p all given, p is a check: the "meets
p" column says whether each shape reaches it.

flags:
  -n N             number of distinct keys
  -p P             false-positive rate
  -m BITS          size in bits
  -k K             probes per key, 1..64
  --layout L       classic, partitioned, blocked, paged or all (default all)
  --block-bits B   page size of the paged layout in bits (default 32768)
  --json           print one JSON object instead of a table
  --plot OUT.svg   with -n and -m: also draw the rate against k for each
                   layout (log scale)
  --fpset          compare a fingerprint set with a Bloom filter instead
                   (see "bloomcast calc --fpset -h")
  --transmit Z     the compressed filter with the lowest rate that can be
                   sent in Z bits per key (see "bloomcast calc --compressed -h")
  --compressed     with -n and -p: the compressed filter with the smallest
                   message at rate P
  --counting       with -n and -m: the counters' expected maximum and the
                   overflow bound of each counter width
                   (see "bloomcast calc --counting -h")
  --budget BYTES   with -n: the filter with the lowest rate whose message
                   fits BYTES (see "bloomcast calc --budget 1 -h")

--fpset, --transmit, --compressed, --counting and --budget choose a mode with flags
of its own (its -h lists them); a flag that means nothing in the mode
given is refused in one line that says which flag it needs.
`,
	run: runCalc,
}

func runCalc(e *env, args []string) error {
	mode, err := calcModeOf(args) // calc_flags.go
	if errors.Is(err, errHelp) {
		switch {
		case wantsCounting(args):
			mode = modeCounting
		case wantsFlag(args, "budget"):
			mode = modeBudget
		case wantsFPSet(args):
			mode = modeFPSet
		case wantsTransmit(args):
			mode = modeTransmit
		default:
			return errHelp
		}
	} else if err != nil {
		return err
	}
	switch mode {
	case modeBudget: // calc_budget.go
		return runCalcBudget(e, args)
	case modeCounting: // calc_counting.go
		return runCalcCounting(e, args)
	case modeFPSet: // calc_fpset.go
		return runCalcFPSet(e, args)
	case modeTransmit, modeCompressed: // calc_transmit.go
		return runCalcTransmit(e, args)
	}
	fs := newFlagSet("calc")
	var n, m, blockBits countValue
	var p rateValue
	var k probesValue
	var layout = layoutValue{all: true}
	var asJSON bool
	var plotOut string
	fs.StringVar(&plotOut, "plot", "", "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	switch {
	case blockBits%64 != 0:
		return fmt.Errorf("calc: --block-bits %d: want a positive multiple of 64", blockBits)
	case blockBits != 0 && layout.layout != params.Paged && layout.layout != 0:
		return fmt.Errorf("calc: --block-bits is the page size of the paged layout; it means nothing with --layout %s", layout.layout)
	}
	q := params.Query{N: uint64(n), P: float64(p), M: uint64(m), K: int(k), Layout: layout.layout, BlockBits: uint64(blockBits)}
	given := 0
	for _, set := range []bool{n != 0, p != 0, m != 0, k != 0} {
		if set {
			given++
		}
	}
	if given < 2 {
		return usagef("give at least two of -n, -p, -m and -k")
	}
	sol, err := params.Solve(q)
	if err != nil {
		return err
	}
	if plotOut != "" {
		if n == 0 || m == 0 {
			return errors.New("calc: --plot draws the rate against k for given -n N and -m M; it needs both")
		}
		if err := writeCharts(plotOut, sim.RateByKChart(q.N, q.M, q.BlockBits)); err != nil {
			return err
		}
	}

	r := params.NewSolveReport(q, sol)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
