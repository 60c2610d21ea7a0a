package cli

import (
	"flag"
	"strconv"

	"github.com/bloomcast/bloomcast/mht"
)

var mhtCommand = &command{
	name:    "mht",
	summary: "multilevel hash tables: build, get, calculate, simulate",
	usage:   usageText("mht"),
	run:     runMHT,
}

func runMHT(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("missing calc, sim, build or get")
	}
	switch args[0] {
	case "build":
		return e.mhtBuild(args[1:])
	case "get":
		return e.mhtGet(args[1:])
	case "calc":
		return e.mhtCalc(args[1:])
	case "sim":
		return e.mhtSim(args[1:])
	case "-h", "-help", "--help", "help":
		return errHelp
	}
	return usagef("unknown subcommand %q: want calc, sim, build or get", args[0])
}

// planFlags are the flags that describe a plan.
type planFlags struct {
	n                 countValue
	levels            int
	first, ratio      float64
	sizes, summaries  listValue
	sfCells, mbfBits  float64
	sfK               probesValue
	mbfFail           rateValue
	interpBits, width int
	json              bool
}

func newPlanFlags(fs *flag.FlagSet) *planFlags {
	p := &planFlags{n: 10000, sfK: mht.DefaultSFK, mbfFail: mht.DefaultMBFFailureBound}
	fs.Var(&p.n, "n", "")
	fs.IntVar(&p.levels, "levels", mht.DefaultLevels, "")
	fs.Float64Var(&p.first, "first", mht.DefaultFirstPerItem, "")
	fs.Float64Var(&p.ratio, "ratio", mht.DefaultRatio, "")
	fs.Var(&p.sizes, "sizes", "")
	fs.Var(&p.summaries, "summaries", "")
	fs.Float64Var(&p.sfCells, "sf-cells", mht.DefaultSFCellsPerItem, "")
	fs.Var(&p.sfK, "sf-k", "")
	fs.Float64Var(&p.mbfBits, "mbf-bits", mht.DefaultMBFBitsPerItem, "")
	fs.Var(&p.mbfFail, "mbf-fail", "")
	fs.IntVar(&p.interpBits, "interp-bits", 0, "")
	fs.IntVar(&p.width, "counter-bits", mht.DefaultCounterBits, "")
	fs.BoolVar(&p.json, "json", false, "")
	return p
}

func (f *planFlags) plan(fs *flag.FlagSet) (mht.Plan, error) {
	if f.n < 1 || f.n > 1<<28 {
		return mht.Plan{}, usagef("--n %d: want 1 to 2^28 items", f.n)
	}
	n := uint64(f.n)
	p := mht.Plan{N: n, SFK: int(f.sfK), InterpBits: f.interpBits, CounterBits: f.width}
	var err error
	if p.Sizes, err = tableSizes(fs, n, f.levels, f.first, f.ratio, f.sizes); err != nil {
		return p, err
	}
	if !(f.sfCells > 0) || !(f.mbfBits > 0) {
		return p, usagef("--sf-cells and --mbf-bits must be positive")
	}
	p.SFCells = uint64(f.sfCells*float64(n) + 0.5)
	for _, s := range f.summaries {
		k, err := mht.ParseKind(s)
		if err != nil {
			return p, usagef("--summaries: %q: want song, interp, sf, counting-sf, mbf or counting-mbf", s)
		}
		p.Kinds = append(p.Kinds, k)
	}
	if err := p.SizeMBF(f.mbfBits, float64(f.mbfFail)); err != nil {
		return p, usagef("%v", err)
	}
	if _, err := p.Calculate(); err != nil {
		return p, usagef("%v", err)
	}
	return p, nil
}

// tableSizes reads the sub-table sizes of n items from --sizes, or from
// --levels, --first and --ratio.
func tableSizes(fs *flag.FlagSet, n uint64, levels int, first, ratio float64, sizes listValue) ([]uint64, error) {
	if len(sizes) == 0 {
		if !(first > 0) {
			return nil, usagef("--first %g: want a positive number of buckets per item", first)
		}
		s, err := mht.GeometricSizes(uint64(first*float64(n)+0.5), ratio, levels)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return s, nil
	}
	if flagSet(fs, "levels") || flagSet(fs, "first") || flagSet(fs, "ratio") {
		return nil, usagef("--sizes replaces --levels, --first and --ratio")
	}
	var out []uint64
	for _, s := range sizes {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v < 1 {
			return nil, usagef("--sizes: %q is not a size", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func (e *env) mhtCalc(args []string) error {
	fs := newFlagSet("mht calc")
	pf := newPlanFlags(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	p, err := pf.plan(fs)
	if err != nil {
		return err
	}
	c, _ := p.Calculate()
	r := mht.NewReport(p, c, nil)
	if pf.json {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}

func (e *env) mhtSim(args []string) error {
	fs := newFlagSet("mht sim")
	pf := newPlanFlags(fs)
	trials, queries := countValue(10), countValue(100000)
	var seed uint64 = 1
	fs.Var(&trials, "trials", "")
	fs.Var(&queries, "queries", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	p, err := pf.plan(fs)
	if err != nil {
		return err
	}
	if trials < 1 || trials > 1e6 || queries > 1e9 {
		return usagef("--trials %d, --queries %d: want 1 to 10^6 trials and at most 10^9 queries", trials, queries)
	}
	c, _ := p.Calculate()
	m, err := p.Simulate(int(trials), int(queries), seed)
	if err != nil {
		return err
	}
	r := mht.NewReport(p, c, &m)
	if pf.json {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
