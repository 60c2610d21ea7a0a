package cli

import (
	"github.com/bloomcast/bloomcast/internal/report"
)

// calc --static: the ribbon filter build --static writes, before it is
// built, beside the Bloom filters of the same n and p and the bound.

var calcStaticUsage = usageText("calc-static")

func runCalcStatic(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n countValue
	p := rateValue(0.01)
	var asJSON, static bool
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&static, "static", false, "")
	if done, err := e.parseModeFlags(fs, args, calcStaticUsage); done || err != nil {
		return err
	}
	if n == 0 {
		return usagef("--static needs -n N")
	}
	r, err := report.NewStaticReport(uint64(n), float64(p))
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
