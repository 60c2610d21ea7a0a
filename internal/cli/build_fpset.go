package cli

import (
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/hashing"
)

// runBuildFPSet is build --fpset: a set of fingerprints of the keys,
// sized as calc --fpset sizes it.
func runBuildFPSet(e *env, args []string) error {
	fs := newFlagSet("build")
	e.keyFlags(fs)
	var n, bitsFlag, countBits countValue
	var p rateValue
	var c float64
	var seed uint64
	var out string
	var fp, rice bool
	fs.BoolVar(&fp, "fpset", false, "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&bitsFlag, "bits", "")
	fs.Float64Var(&c, "c", 0, "")
	fs.Var(&countBits, "count-bits", "")
	fs.BoolVar(&rice, "rice", false, "")
	fs.Uint64Var(&seed, "seed", 0, "")
	e.outFlag(fs, &out, "")
	e.quietFlag(fs)
	others := otherBuildFlags(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if err := notInMode(fs, others, "--fpset", fpsetWhy); err != nil {
		return err
	}
	if n > fpset.MaxLen {
		return usagef("-n %d: above the maximum of %d keys (2^40) of a fingerprint set", uint64(n), uint64(fpset.MaxLen))
	}
	if countBits > fpset.MaxCountBits {
		return usagef("--count-bits %d above %d", countBits, fpset.MaxCountBits)
	}
	if err := fpsetFlags(fs, int(bitsFlag), c); err != nil {
		return err
	}
	var hs []hashing.Hash128
	err = e.keys(inputs).each(func(key []byte) { hs = append(hs, hashing.SumSeed(key, seed)) })
	if err != nil {
		return err
	}
	set, err := fpset.FromHashes(fpset.Config{N: uint64(n), P: float64(p), Bits: int(bitsFlag), C: c, CountBits: int(countBits), Seed: seed}, hs)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		e.warnf("%s: no keys read: the set is empty", outputName(out))
	}
	if !e.quiet && n != 0 && set.Len() > uint64(n) {
		fprintf(e.stderr, "bloomcast: warning: %s: %d distinct fingerprints, more than -n %d: the rate is %s, not %s\n",
			outputName(out), set.Len(), uint64(n), rate(set.FalsePositiveRate()), rate(fpset.FalsePositive(uint64(n), set.Bits())))
	}
	if rice {
		return e.writeFilter(out, set.Compress())
	}
	return e.writeFilter(out, set)
}
