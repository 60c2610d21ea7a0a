package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
)

// calc --transmit and calc --compressed: the compressed-filter optimiser.
// runCalc hands its arguments here when they include either flag.

var calcTransmitUsage = usageText("calc-transmit")

// wantsTransmit reports whether calc's arguments ask for the optimiser.
func wantsTransmit(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-transmit", "--transmit", "-compressed", "--compressed":
			return true
		}
		if strings.HasPrefix(a, "--transmit=") || strings.HasPrefix(a, "-transmit=") {
			return true
		}
	}
	return false
}

func runCalcTransmit(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, maxM countValue
	var p rateValue
	var maxK probesValue
	var z, maxBPK, overhead, churn, delta float64
	var compressed, whole, exact, asJSON bool
	var plotOut string
	plotFlag(fs, &plotOut)
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&maxM, "max-m", "")
	fs.Var(&maxK, "max-k", "")
	fs.Float64Var(&z, "transmit", 0, "")
	fs.Float64Var(&maxBPK, "max-bpk", 0, "")
	fs.Float64Var(&overhead, "overhead", 0, "")
	fs.Float64Var(&churn, "churn", 0, "")
	fs.Float64Var(&delta, "delta", 0, "")
	fs.BoolVar(&compressed, "compressed", false, "")
	fs.BoolVar(&whole, "whole", false, "")
	fs.BoolVar(&exact, "exact", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if done, err := e.parseModeFlags(fs, args, calcTransmitUsage); done || err != nil {
		return err
	}
	switch {
	case n == 0:
		return usagef("calc --transmit and --compressed need -n N")
	case flagSet(fs, "transmit") == compressed:
		return usagef("give either --transmit Z or -p P --compressed")
	case compressed && p == 0:
		return usagef("--compressed needs a target rate -p P")
	case !compressed && p != 0:
		return usagef("-p is the target of --compressed; --transmit takes a budget instead")
	case !compressed && (!(z > 0) || math.IsInf(z, 0)):
		return usagef("--transmit %g: want bits per key above 0", z)
	case !(maxBPK >= 0) || math.IsInf(maxBPK, 0):
		return usagef("--max-bpk %g: want bits per key above 0", maxBPK)
	case !(overhead >= 0) || math.IsInf(overhead, 0):
		return usagef("--overhead %g: want a fraction ≥ 0, such as 0.005", overhead)
	case !(churn >= 0 && churn <= 1):
		return usagef("--churn %g: want a fraction of the keys from 0 to 1", churn)
	case !(delta >= 0) || math.IsInf(delta, 0):
		return usagef("--delta %g: want bits per key above 0", delta)
	case delta > 0 && churn == 0:
		return usagef("--delta bounds the delta for a churn: it needs --churn C")
	}
	opts := params.TransmitOptions{
		MaxBitsPerElement: maxBPK, MaxBits: uint64(maxM), MaxK: int(maxK), Overhead: overhead,
		Exact: exact, WholeBitsPerElement: whole, Churn: churn, DeltaBitsPerElement: delta,
	}
	var res params.TransmitResult
	var r *report.TransmitReport
	var err error
	if compressed {
		tq := params.TargetQuery{N: uint64(n), P: float64(p), TransmitOptions: opts}
		if res, err = params.OptimizeTarget(tq); err == nil {
			r = report.NewTargetReport(tq, res)
		}
	} else {
		tq := params.TransmitQuery{N: uint64(n), BitsPerElement: z, TransmitOptions: opts}
		if res, err = params.OptimizeTransmit(tq); err == nil {
			r = report.NewTransmitReport(tq, res)
		}
	}
	if err != nil {
		return err
	}
	if plotOut != "" && len(r.PerK) > 0 {
		q := fmt.Sprintf("budget %g bits per key", r.Budget)
		if compressed {
			q = fmt.Sprintf("target rate %g", r.TargetP)
		}
		if err := e.writeCharts(plotOut, report.TransmitCharts(r.N, q, res)...); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
