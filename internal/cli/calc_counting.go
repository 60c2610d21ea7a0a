package cli

import (
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

// calc --counting: counter sizing for counting filters. runCalc hands its
// arguments here when they include --counting.

// countingSimWork is the most insertions calc --counting simulates in all
// (sim.MaxCountLimit; a variable so that a test can lower it).
var countingSimWork float64 = sim.MaxCountLimit

var calcCountingUsage = usageText("calc-counting")

// wantsCounting reports whether calc's arguments ask for counter sizing.
func wantsCounting(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-counting", "--counting":
			return true
		}
	}
	return false
}

func runCalcCounting(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, m, trials, seed countValue
	var k probesValue
	var asJSON, counting bool
	trials, seed = 10, 1
	fs.Var(&n, "n", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&trials, "trials", "")
	fs.Var(&seed, "seed", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&counting, "counting", false, "")
	if done, err := e.parseModeFlags(fs, args, calcCountingUsage); done || err != nil {
		return err
	}
	switch {
	case n == 0 || m == 0:
		return usagef("--counting needs -n N and -m M")
	case m < 2:
		return usagef("--counting needs -m of at least 2")
	}
	r, err := report.NewCounterReport(uint64(m), uint64(n), int(k), int(min(trials, 1<<30)), uint64(seed), countingSimWork)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
