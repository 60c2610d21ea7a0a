package cli

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/ribbon"
)

// build --static: a ribbon filter of the keys read, the smallest static
// filter for them at rate -p (calc --static sizes it the same way).

// wantsStatic reports whether the arguments ask for the static filter.
func wantsStatic(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-static", "--static":
			return true
		}
	}
	return false
}

func runBuildStatic(e *env, args []string) error {
	fs := newFlagSet("build")
	e.keyFlags(fs)
	var on bool
	p := rateValue(0.01)
	var bitsFlag countValue
	var seed uint64
	var out string
	fs.BoolVar(&on, "static", false, "")
	fs.Var(&p, "p", "")
	fs.Var(&bitsFlag, "bits", "")
	fs.Uint64Var(&seed, "seed", 0, "")
	e.outFlag(fs, &out, "")
	e.quietFlag(fs)
	e.strictFlag(fs)
	others := otherBuildFlags(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if err := notInMode(fs, others, "--static", staticWhy); err != nil {
		return err
	}
	c := ribbon.Config{Rate: float64(p), Seed: seed}
	if flagSet(fs, "bits") {
		if flagSet(fs, "p") {
			return usagef("give -p P or --bits B, not both")
		}
		if bitsFlag < 1 || bitsFlag > 32 {
			return usagef("--bits %d: a ribbon fingerprint has 1 to 32 bits", uint64(bitsFlag))
		}
		c = ribbon.Config{Bits: int(bitsFlag), Seed: seed}
	}
	var hs []hashing.Hash128
	if err := e.keys(inputs).each(func(key []byte) { hs = append(hs, hashing.SumSeed(key, seed)) }); err != nil {
		return err
	}
	f, err := ribbon.BuildHashes(c, hs)
	if err != nil {
		return err
	}
	var w warnings
	if len(hs) == 0 {
		w.add("%s: no keys read: the filter is empty", outputName(out))
	}
	return e.writeWarned(out, f, w)
}
