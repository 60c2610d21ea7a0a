package cli

import (
	"strconv"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/scalable"
	"github.com/bloomcast/bloomcast/sim"
)

// Scalable Bloom filters (package scalable): build --scalable here; add,
// compress, diff, patch, union and query take them through package
// anyfile; inspect describes their layers.

// wantsScalable reports whether build's arguments ask for a scalable
// filter.
func wantsScalable(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-scalable", "--scalable":
			return true
		}
	}
	return false
}

func runBuildScalable(e *env, args []string) error {
	fs := newFlagSet("build")
	e.keyFlags(fs)
	var on, nonScaling bool
	var n countValue = 1000
	var expansion countValue = scalable.DefaultExpansion
	var blockBits countValue
	p := rateValue(0.01)
	tightening := rateValue(scalable.DefaultTightening)
	layout := layoutValue{layout: params.Blocked}
	var seed uint64
	var out string
	fs.BoolVar(&on, "scalable", false, "")
	fs.BoolVar(&nonScaling, "non-scaling", false, "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&expansion, "expansion", "")
	fs.Var(&tightening, "tightening", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.Uint64Var(&seed, "seed", 0, "")
	e.outFlag(fs, &out, "")
	e.quietFlag(fs)
	others := otherBuildFlags(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if err := notInMode(fs, others, "--scalable", scalableWhy); err != nil {
		return err
	}
	if n < 1 || n > scalable.MaxCapacity {
		return usagef("-n %d: a scalable filter's first layer holds 1 to %d keys (2^40)", uint64(n), uint64(scalable.MaxCapacity))
	}
	if expansion < 1 || expansion > 1<<16 {
		return usagef("--expansion %d: want 1 to 65536", uint64(expansion))
	}
	if blockBits != 0 && layout.layout != params.Paged {
		return usagef("--block-bits is the page size of the paged layout; add --layout paged")
	}
	f, err := scalable.New(scalable.Config{Capacity: uint64(n), P: float64(p), Expansion: uint32(expansion),
		Tightening: float64(tightening), Layout: layout.layout, BlockBits: uint64(blockBits), Seed: seed,
		Scheme: hashing.Default, NonScaling: nonScaling})
	if err != nil {
		return usagef("%v", err)
	}
	a := scalable.NewAdder(f)
	src := e.keys(inputs)
	if !e.quiet && isTerminal(e.stderr) {
		src.withProgress(e.stderr)
	}
	read := 0
	err = src.each(func(key []byte) { read++; _ = a.Add(key) }) // the error is Flush's
	if err != nil {
		return err
	}
	if err := a.Flush(); err != nil {
		return fileErr(outputName(out), err)
	}
	if read == 0 {
		e.warnf("%s: no keys read: the filter is empty", outputName(out))
	}
	return e.writeFilter(out, f)
}

var growthUsage = usageText("sim-growth")

func runSimGrowth(e *env, args []string) error {
	fs := newFlagSet("sim growth")
	var n countValue = 1000
	p := rateValue(0.01)
	expansions, tightenings := listValue{"2", "4"}, listValue{"0.5", "0.9"}
	layout := layoutValue{layout: params.Blocked}
	var keys countValue = 1000000
	var probes countValue = 100000
	var seed uint64 = 1
	var asJSON bool
	var plotPath string
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&expansions, "expansion", "")
	fs.Var(&tightenings, "tightening", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&keys, "keys", "")
	fs.Var(&probes, "probes", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	plotFlag(fs, &plotPath)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if len(expansions) != len(tightenings) {
		return usagef("%d expansions and %d tightenings: give one of each per run", len(expansions), len(tightenings))
	}
	if keys < n {
		return usagef("--keys %d is below -n %d: the first point is at the filter's capacity, -n keys", uint64(keys), uint64(n))
	}
	var results []sim.GrowthResult
	for i := range expansions {
		s, err := strconv.ParseUint(expansions[i], 10, 32)
		if err != nil {
			return usagef("--expansion %q: want an integer", expansions[i])
		}
		r, err := strconv.ParseFloat(tightenings[i], 64)
		if err != nil {
			return usagef("--tightening %q: want a number", tightenings[i])
		}
		res, err := sim.ScalableGrowth(sim.GrowthConfig{
			Filter: scalable.Config{Capacity: uint64(n), P: float64(p), Expansion: uint32(s), Tightening: r, Layout: layout.layout, Seed: seed},
			Keys:   uint64(keys), Probes: uint64(probes),
		})
		if err != nil {
			return usagef("%v", err)
		}
		results = append(results, res)
	}
	if plotPath != "" {
		if err := e.writeCharts(plotPath, sim.GrowthCharts(results)...); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			Runs []sim.GrowthResult `json:"runs"`
		}{results})
	}
	for _, r := range results {
		if err := report.WriteGrowthText(e.stdout, r); err != nil {
			return err
		}
	}
	return nil
}
