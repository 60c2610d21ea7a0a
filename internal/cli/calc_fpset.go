package cli

import (
	"flag"

	"github.com/bloomcast/bloomcast/params"
)

// calc --fpset: a fingerprint set next to a Bloom filter at the same rate.
// runCalc hands its arguments here when they include --fpset.

const calcFPSetUsage = `usage: bloomcast calc --fpset -n N [-p P | --bits B | -c C] [--count-bits W]
                      [--json]

Size a set of fingerprints (bloomcast's fpset: a b-bit hash per key) for N
keys and compare it with a classic Bloom filter with the same false-positive
rate. The rate of b-bit fingerprints is 1 − (1 − 1/(2^b − 1))^N ≤ N/2^b;
with b = c·log2 N it is at most 1/N^(c−1). The forms:

  table       the dynamic set (add, remove, count): (b + W)/load bits per
              key, the load between 0.4 and 0.8
  sorted      static, interpolation search: b (+ W) bits per key
  Rice-coded  static, for transmission: about log2(1/p) + 1.5 bits per key

calc also says from which width on each form is smaller than the Bloom
filter at the same rate.

flags:
  -n N             number of distinct keys (required)
  -p P             the narrowest fingerprints with a rate of at most P
  --bits B         fingerprint width, 2..64
  -c C             fingerprint width ceil(C·log2 N) (default 2)
  --count-bits W   multiset counts of W bits (adds W to the table and the
                   sorted form)
  --json           print one JSON object instead of a table
`

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
	s, err := params.FingerprintSetOf(params.FingerprintQuery{N: uint64(n), P: float64(p), Bits: int(bitsFlag), C: c})
	if err != nil {
		return err
	}
	r, err := params.NewFingerprintReport(s, int(countBits))
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}

// fpsetFlags checks calc's and build's -p, --bits and -c: at most one of
// them, and a --bits or -c that params refuses for any number of keys
// (0 among them, which fpset.Config would take for the default).
func fpsetFlags(fs *flag.FlagSet, b int, c float64) error {
	hasP, hasBits, hasC := flagSet(fs, "p"), flagSet(fs, "bits"), flagSet(fs, "c")
	var err error
	switch {
	case hasP && (hasBits || hasC) || hasBits && hasC:
		return usagef("give one of -p, --bits and -c")
	case hasBits:
		_, err = params.FingerprintSetWithBits(1, b)
	case hasC:
		_, err = params.FingerprintBits(1, c)
	}
	return err
}
