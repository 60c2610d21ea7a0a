package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
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
	plotFlag(fs, &plotOut)
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.BoolVar(&asJSON, "json", false, "")
	e.quietFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := nonzeroN(fs); err != nil {
		return err
	}
	switch {
	case blockBits%64 != 0:
		return usagef("--block-bits %d: want a positive multiple of 64", blockBits)
	case blockBits != 0 && layout.layout != params.Paged && layout.layout != 0:
		return usagef("--block-bits is the page size of the paged layout; it means nothing with --layout %s", layout.layout)
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
	sol, err := e.solveLayouts(q)
	if err != nil {
		return err
	}
	if plotOut != "" {
		if n == 0 || m == 0 {
			return usagef("--plot draws the rate against k for given -n N and -m M; it needs both")
		}
		if err := e.writeCharts(plotOut, report.RateByKChart(q.N, q.M, q.BlockBits)); err != nil {
			return err
		}
	}

	r := report.NewSolveReport(q, sol)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if note := buildsLarger(r); note != "" {
		fprintf(e.stdout, "\n%s\n", note)
	}
	return nil
}

// solveLayouts solves q as params.Solve does, but with every layout (no
// --layout) a layout that has no answer is left out of the table, with a
// warning that says why, so that p = 1e-100 still gets the classic shape
// that reaches it where no blocked one can. A query that no layout
// answers is a usage error, with the first layout's reason.
func (e *env) solveLayouts(q params.Query) (params.Solution, error) {
	if q.Layout != 0 {
		sol, err := params.Solve(q)
		return sol, usageOf(err)
	}
	var all params.Solution
	var failed []error
	for _, l := range []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged} {
		q.Layout = l
		sol, err := params.Solve(q)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		all.Given, all.Derived = sol.Given, sol.Derived
		all.Layouts = append(all.Layouts, sol.Layouts...)
	}
	if len(all.Layouts) == 0 {
		return params.Solution{}, usageOf(failed[0])
	}
	for _, err := range failed {
		e.warnf("%s; left out", message(err))
	}
	return all, nil
}

// usageOf turns params' refusal of a query into a usage error, which
// names the command and exits 2 as a bad flag does.
func usageOf(err error) error {
	if errors.Is(err, params.ErrInvalid) {
		return usagef("%s", message(err))
	}
	return err
}

// buildsLarger says which of the report's shapes "bloomcast build" writes
// larger, and why: its default --folds rounds m up so that the filter
// halves that many times (bloom.Config.Folds). It is empty when build
// writes every m as the report gives it.
func buildsLarger(r *report.SolveReport) string {
	var larger []string
	for _, l := range r.Layouts {
		layout, err := params.ParseLayout(l.Layout)
		if err != nil {
			continue
		}
		s, err := bloom.Config{Layout: layout, M: l.M, K: l.K, BlockBits: l.BlockBits, Folds: bloom.DefaultFolds}.Shape()
		if err != nil || s.M == l.M {
			continue
		}
		larger = append(larger, fmt.Sprintf("%s %d bits (%s, predicted p %s)", l.Layout, s.M, humanBytes(int64((s.M+7)/8)), rate(s.FalsePositive(l.N))))
	}
	if len(larger) == 0 {
		return ""
	}
	return fmt.Sprintf("bloomcast build writes more bits: %s. Its default --folds %d rounds m up so that the filter halves %d times (fold --to); --folds 0 writes m as above.",
		strings.Join(larger, ", "), bloom.DefaultFolds, bloom.DefaultFolds)
}
