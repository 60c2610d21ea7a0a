package main

import (
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
	"github.com/bloomcast/bloomcast/params"
)

// build --budget: the filter calc --budget chooses, built and written
// compressed, checked to fit.

// buildBudget builds the filter with the lowest rate whose file fits
// o.bytes (after --packet) and writes it. Without -n it sizes for the
// distinct keys read. Should the coded file come out larger than the
// budget (calc's bound holds with probability 99.9%), it solves again for
// a budget smaller by the excess, up to three times.
func buildBudget(e *env, fs *flag.FlagSet, o budgetOptions, seed uint64, inputs []string, out string) error {
	for _, f := range []string{"p", "m", "k", "counting", "width", "minimal-increase", "folds", "deletion"} {
		// --max-m, --max-bpk and --max-k: only with --budget (below).
		if flagSet(fs, f) {
			dash := "--"
			if len(f) == 1 {
				dash = "-"
			}
			return fmt.Errorf("build: %s%s means nothing with --budget: build chooses the shape", dash, f)
		}
	}
	if err := o.check(flagSet(fs, "packet"), false); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	var hs []hashing.Hash128
	src := e.keys(inputs)
	if err := src.each(func(key []byte) { hs = append(hs, hashing.Default.Sum(key, seed)) }); err != nil {
		return err
	}
	if o.n == 0 {
		o.n = max(1, keyfile.CountDistinct(hs))
	}
	limit := o.effective()
	for try := 0; ; try++ {
		res, err := o.solve()
		if err != nil {
			return err
		}
		s := res.Best.Shape
		f, err := bloom.New(bloom.Config{Layout: s.Layout, M: s.M, K: s.K, BlockBits: s.BlockBits, Seed: seed})
		if err != nil {
			return err
		}
		f.AddBatch(hs)
		codec := digest.Raw
		if res.Best.Compressed {
			codec = digest.Auto
		}
		b, err := digest.Encode(&digest.Digest{Bloom: f}, codec)
		if err != nil {
			return err
		}
		if uint64(len(b)) <= limit {
			if res.CapBinds {
				e.warnf("%s: the memory cap binds (m ≤ %d bits); --max-bpk or --max-m above it would lower the rate to %s",
					outputName(out), res.CapBits, rate(res.Uncapped.FalsePositive))
			}
			return e.writeFilter(out, anyfile.Frame(b))
		}
		if try == 2 {
			return fmt.Errorf("build: %s: the filter came to %d bytes, over the budget of %d", outputName(out), len(b), limit)
		}
		// Solve again for the bytes themselves, less the excess.
		o.bytes, o.packet = o.effective()-(uint64(len(b))-limit)-1, 0
	}
}

// buildBudgetFlags are build's flags for --budget.
type buildBudgetFlags struct {
	budget, packet, maxM countValue
	maxBPK               float64
	maxK                 probesValue
}

func (b *buildBudgetFlags) register(fs *flag.FlagSet) {
	fs.Var(&b.budget, "budget", "")
	fs.Var(&b.packet, "packet", "")
	fs.Var(&b.maxM, "max-m", "")
	fs.Float64Var(&b.maxBPK, "max-bpk", 0, "")
	fs.Var(&b.maxK, "max-k", "")
}

// options returns the budget options, from the flags build shares with
// calc --budget.
func (b *buildBudgetFlags) options(n, blockBits uint64, layout params.Layout, layoutGiven bool) budgetOptions {
	o := budgetOptions{n: n, bytes: uint64(b.budget), packet: uint64(b.packet), blockBits: blockBits,
		maxM: uint64(b.maxM), maxBPK: b.maxBPK, maxK: int(b.maxK)}
	if layoutGiven {
		o.layout = layout
	}
	return o
}
