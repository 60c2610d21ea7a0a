package cli

import (
	"strconv"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/scalable"
	"github.com/bloomcast/bloomcast/sim"
)

// Scalable Bloom filters (package scalable): build --scalable here; add,
// compress, diff, patch, union and query take them through package
// anyfile; inspect describes their layers.

// buildScalableUsage is the part of build's usage about --scalable.
const buildScalableUsage = `
Scalable filters (--scalable): a stack of Bloom filters that grows as keys
come (Almeida et al., "Scalable Bloom Filters", 2007): the first layer
takes -n N keys (default 1000), each new layer --expansion S times as
many as the one before (default 2), at a target rate --tightening R times
the one before's (default 0.5), so that the compound false-positive rate
stays below -p P however many keys are added, by "bloomcast add" too.
--non-scaling keeps one layer, and "bloomcast add" then refuses keys
beyond -n. Each layer has --layout L (default blocked); the file travels
as one digest per layer (compress, diff, patch), and a delta after adds
carries only the newest layer and any new ones.
  --scalable        build a scalable filter
  --expansion S     capacity factor between layers, an integer ≥ 1
  --tightening R    rate factor between layers, 0 < R < 1
  --non-scaling     one layer; adds beyond -n are refused
`

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
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
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
	err = src.each(func(key []byte) { _ = a.Add(key) }) // the error is Flush's
	if err != nil {
		return err
	}
	if err := a.Flush(); err != nil {
		return fileErr(outputName(out), err)
	}
	return e.writeFilter(out, f)
}

const growthUsage = `usage: bloomcast sim growth [-n N] [-p P] [--expansion LIST]
                           [--tightening LIST] [--layout L] [--keys N]
                           [--probes N] [--seed S] [--json] [--plot OUT.svg]

Grow a scalable Bloom filter (Almeida et al. 2007) from -n keys to
--keys keys, and at four points per factor of ten measure its
false-positive rate on --probes keys never added, against the rate its
layers predict and the target -p, and its bytes per key against a Bloom
filter sized for that many keys from the start. One run for each pair of
--expansion and --tightening values, in order.

flags:
  -n N              keys of the first layer (default 1000)
  -p P              target compound false-positive rate (default 0.01)
  --expansion LIST  comma-separated capacity factors (default 2,4)
  --tightening LIST comma-separated rate factors, one per expansion
                    (default 0.5,0.9)
  --layout L        layout of the layers (default blocked)
  --keys N          keys added in all (default 1000000)
  --probes N        absent keys queried at every point (default 100000)
  --seed S          seed of the keys and the hashing (default 1)
  --json            print one JSON object instead of a table
  --plot OUT.svg    also draw the rate and the bytes per key against the
                    keys added as an SVG chart
`

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
	fs.StringVar(&plotPath, "plot", "", "")
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
		if err := writeCharts(plotPath, sim.GrowthCharts(results)...); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			Runs []sim.GrowthResult `json:"runs"`
		}{results})
	}
	for _, r := range results {
		if err := r.WriteText(e.stdout); err != nil {
			return err
		}
	}
	return nil
}
