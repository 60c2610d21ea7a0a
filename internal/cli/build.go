package cli

import (
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/params"
)

var buildCommand = &command{
	name:    "build",
	summary: "build a filter from keys, one per line",
	usage:   usageText("build"),
	run:     runBuild,
}

func runBuild(e *env, args []string) error {
	if wantsFPSet(args) {
		return runBuildFPSet(e, args)
	}
	if wantsStatic(args) { // build_static.go
		return runBuildStatic(e, args)
	}
	if wantsScalable(args) {
		return runBuildScalable(e, args)
	}
	args, done, err := buildWithFormat(e, args) // build_format.go
	if done {
		return err
	}
	fs := newFlagSet("build")
	e.keyFlags(fs)
	var n, m, blockBits countValue
	p := rateValue(0.01)
	var k probesValue
	layout := layoutValue{layout: params.Blocked}
	var seed uint64
	var folds countValue = bloom.DefaultFolds
	var out string
	var kind filterKind
	kind.flags(fs)
	var squidOut bool
	var bitsPerEntry countValue = squid.DefaultBitsPerEntry
	fs.BoolVar(&squidOut, "squid", false, "")
	fs.Var(&bitsPerEntry, "bits-per-entry", "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.Uint64Var(&seed, "seed", 0, "")
	var hash hashValue
	fs.Var(&hash, "hash", "")
	fs.Var(&folds, "folds", "")
	e.outFlag(fs, &out, "")
	var budget buildBudgetFlags
	budget.register(fs)
	e.quietFlag(fs)
	e.strictFlag(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if flagSet(fs, "hash") && (flagSet(fs, "budget") || squidOut) {
		return usagef("--hash applies to Bloom, counting and deletion filters, not to --budget or --squid (their hashing is fixed)")
	}
	if flagSet(fs, "budget") && !squidOut { // build_budget.go
		return buildBudget(e, fs, budget.options(uint64(n), uint64(blockBits), layout.layout, flagSet(fs, "layout")), seed, inputs, out)
	}
	for _, f := range []string{"packet", "max-m", "max-bpk", "max-k"} {
		if flagSet(fs, f) {
			return usagef("--%s needs --budget BYTES", f)
		}
	}
	if squidOut {
		for _, f := range []string{"m", "k", "p", "layout", "block-bits", "seed", "folds", "counting", "deletion", "budget", "packet", "max-m", "max-bpk", "max-k"} {
			if flagSet(fs, f) {
				return usagef("--%s does not apply to a Squid digest (its shape is Squid's)", f)
			}
		}
		if bitsPerEntry < 1 || bitsPerEntry > 255 {
			return usagef("--bits-per-entry must be 1..255")
		}
		return squidBuild(e, inputs, uint64(n), flagSet(fs, "n"), uint8(bitsPerEntry), out)
	}
	if blockBits != 0 && layout.layout != params.Paged {
		return usagef("--block-bits is the page size of the paged layout; add --layout paged")
	}
	if err := kind.check(fs); err != nil {
		return err
	}
	if folds > 32 {
		return usagef("--folds must be 0..32")
	}
	if kind.counting {
		if flagSet(fs, "folds") {
			return usagef("--folds does not apply to a counting filter (counting filters do not fold)")
		}
		folds = 0
	}

	q := params.Query{N: uint64(n), M: uint64(m), K: int(k), Layout: layout.layout, BlockBits: uint64(blockBits)}
	if m == 0 || flagSet(fs, "p") {
		q.P = float64(p)
	}
	if err := sizeFits(fs, q, kind.counting); err != nil {
		return err
	}
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: kind.kind(), Query: q, Seed: seed, Scheme: hash.scheme, Folds: int(folds),
		Width: int(kind.width), MinimalIncrease: kind.minInc, MaxExactDistinct: maxExactDistinct})
	if err != nil {
		return err
	}
	src := e.keys(inputs)
	if !e.quiet && isTerminal(e.stderr) {
		src.withProgress(e.stderr)
	}
	if err := src.each(b.Add); err != nil {
		return err
	}
	f, res, err := b.Finish()
	if err != nil {
		return err
	}
	read, distinct, solved := res.Read, res.Distinct, res.Solved

	var w warnings
	name := outputName(out)
	if flagSet(fs, "n") && n == 0 {
		if m != 0 && k != 0 {
			w.add("%s: -n 0 is no size: ignored, the shape is -m %d -k %d", name, uint64(m), int(k))
		} else {
			w.add("%s: -n 0 is no size: taken as no -n, so the filter is sized for the %d distinct keys read", name, distinct)
		}
	}
	if read == 0 {
		w.add("%s: no keys read: the filter is empty", name)
	}
	if !flagSet(fs, "layout") {
		if blocked, classic, ok := blockedCost(q); ok {
			w.add("%s: the blocked layout takes %s for -p %s where the classic layout takes %s: give --layout classic for a filter %.0f times smaller (the blocked one is faster)",
				name, humanBytes(int64((blocked+7)/8)), rate(q.P), humanBytes(int64((classic+7)/8)), float64(blocked)/float64(classic))
		}
	}
	// One line for the filter as written: its rate for the distinct keys
	// it holds against -p, and its fill (what --strict judges); else the
	// shape's rate for -n keys, when -m and -k miss -p.
	switch pred := res.PredictedRate; {
	case q.P > 0 && distinct > 0 && pred > q.P:
		more := ""
		if res.Fill > maxFill {
			more = fmt.Sprintf(", %.1f%% of the bits set", 100*res.Fill)
		}
		advice := fmt.Sprintf("give -n %d or more", distinct)
		if m != 0 && !flagSet(fs, "n") {
			advice = "give a larger -m, or -n and -p alone"
		}
		w.add("%s: false-positive rate %s for the %d distinct keys read%s, above the target -p %s: %s",
			name, rate(pred), distinct, more, rate(q.P), advice)
	case res.Fill > maxFill:
		full := "nearly full"
		if res.Fill == 1 {
			full = "full"
		}
		w.add("%s: %.1f%% of the bits are set: the filter is %s (size it for more keys: a larger -n or -m)", name, 100*res.Fill, full)
	case !solved.Meets:
		w.add("%s: predicted false-positive rate %s for %d keys exceeds -p %s",
			name, rate(solved.FalsePositive), solved.N, rate(q.P))
	}
	return e.writeWarned(out, f, w)
}

// blockedCost reports the bits of the blocked and classic filters that
// answer q (a blocked query), and ok when the blocked one takes at least
// twice the classic one's, by 64 KiB or more: at low rates a block's few
// bits fill up, and
// the default layout grows far past the classic filter (about 2 times at
// p = 1e-10 and 4.5 times at 1e-15), which a user asking for a tiny rate
// may not expect.
func blockedCost(q params.Query) (blocked, classic uint64, ok bool) {
	if q.Layout != params.Blocked || q.M != 0 || q.P == 0 {
		return 0, 0, false
	}
	q.Layout = 0 // every layout
	sol, err := params.Solve(q)
	if err != nil {
		return 0, 0, false
	}
	for _, l := range sol.Layouts {
		switch l.Shape.Layout {
		case params.Blocked:
			blocked = l.Shape.M
		case params.Classic:
			classic = l.Shape.M
		}
	}
	const worth = 8 * 64 * 1024 // bits: 64 KiB; a filter of a few blocks is no matter
	return blocked, classic, classic > 0 && blocked >= 2*classic && blocked-classic >= worth
}

// maxExactDistinct is anyfile.DefaultMaxExactDistinct, a variable so
// that tests can lower it.
var maxExactDistinct = anyfile.DefaultMaxExactDistinct

// sizeFits refuses, naming the flags, a filter above the format's
// bloom.MaxBits bits (or counters), before any key is read: the filter's
// constructor would say only the number of bits.
func sizeFits(fs *flag.FlagSet, q params.Query, counting bool) error {
	if q.N == 0 && (q.M == 0 || q.K == 0) {
		return nil // sized for the keys read
	}
	sol, err := params.Solve(q)
	if err != nil {
		return nil //nolint:nilerr // NewBuilder reports the query's error in its own words
	}
	unit := "bits"
	if counting {
		unit = "counters"
	}
	for _, l := range sol.Layouts {
		switch {
		case l.Shape.Layout != q.Layout || l.Shape.M <= bloom.MaxBits:
		case flagSet(fs, "m"):
			return usagef("-m %d: above the maximum of %d %s (2^40)", l.Shape.M, uint64(bloom.MaxBits), unit)
		default:
			return usagef("-n %d at -p %s needs %d %s, above the maximum of %d (2^40): give a smaller -n or a larger -p",
				q.N, rate(q.P), l.Shape.M, unit, uint64(bloom.MaxBits))
		}
	}
	return nil
}
