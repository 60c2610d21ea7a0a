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
	usage:   usageText("calc"),
	run:     runCalc,
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
		case wantsStatic(args):
			mode = modeStatic
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
	case modeStatic: // calc_static.go
		return runCalcStatic(e, args)
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
