package cli

import (
	"flag"

	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/internal/report"
)

// calc --fpset: a fingerprint set next to a Bloom filter at the same rate.
// runCalc hands its arguments here when they include --fpset.

var calcFPSetUsage = usageText("calc-fpset")

// wantsFPSet reports whether calc's arguments ask for the fingerprint set.
func wantsFPSet(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-fpset", "--fpset":
			return true
		}
	}
	return false
}

func runCalcFPSet(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, bitsFlag, countBits countValue
	var p rateValue
	var c float64
	var asJSON, fpset bool
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&bitsFlag, "bits", "")
	fs.Float64Var(&c, "c", 0, "")
	fs.Var(&countBits, "count-bits", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&fpset, "fpset", false, "")
	if done, err := e.parseModeFlags(fs, args, calcFPSetUsage); done || err != nil {
		return err
	}
	if n == 0 {
		return usagef("--fpset needs -n N")
	}
	if countBits > 32 {
		return usagef("--count-bits %d above 32", countBits)
	}
	if err := fpsetFlags(fs, int(bitsFlag), c); err != nil {
		return err
	}
	s, err := report.FingerprintSetOf(report.FingerprintQuery{N: uint64(n), P: float64(p), Bits: int(bitsFlag), C: c})
	if err != nil {
		return err
	}
	r, err := report.NewFingerprintReport(s, int(countBits))
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}

// fpsetFlags checks calc's and build's -p, --bits and -c: at most one of
// them, and a --bits or -c that fpset refuses for any number of keys
// (0 among them, which fpset.Config would take for the default).
func fpsetFlags(fs *flag.FlagSet, b int, c float64) error {
	hasP, hasBits, hasC := flagSet(fs, "p"), flagSet(fs, "bits"), flagSet(fs, "c")
	var err error
	switch {
	case hasP && (hasBits || hasC) || hasBits && hasC:
		return usagef("give one of -p, --bits and -c")
	case hasBits:
		_, err = fpset.OfBits(1, b)
	case hasC:
		_, err = fpset.BitsForC(1, c)
	}
	return err
}
