package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// build --budget: the filter calc --budget chooses, built and written
// compressed, checked to fit.

// buildBudget builds the filter with the lowest rate whose file fits
// o.Bytes (after --packet), as digest.EncodeWithin chooses and checks
// it, and writes it. Without -n it sizes for the distinct keys read.
func buildBudget(e *env, fs *flag.FlagSet, o digest.Budget, seed uint64, inputs []string, out string) error {
	for _, f := range []string{"p", "m", "k", "counting", "width", "minimal-increase", "folds", "deletion"} {
		// --max-m, --max-bpk and --max-k: only with --budget (below).
		if flagSet(fs, f) {
			return usagef("%s means nothing with --budget: build chooses the shape", dashed(f))
		}
	}
	if err := checkBudget(o, flagSet(fs, "packet"), false); err != nil {
		return err
	}
	var hs []hashing.Hash128
	if err := e.keys(inputs).each(func(key []byte) { hs = append(hs, hashing.Default.Sum(key, seed)) }); err != nil {
		return err
	}
	if err := budgetRoom(o); err != nil {
		return err
	}
	b, res, err := digest.EncodeWithin(o, seed, hs)
	var over *digest.OverBudgetError
	if errors.As(err, &over) {
		return fmt.Errorf("build: %s: the filter came to %d bytes, over the budget of %d", outputName(out), over.Bytes, over.Budget)
	} else if err != nil {
		return err
	}
	if len(hs) == 0 {
		e.warnf("%s: no keys read: the filter is empty", outputName(out))
	} else if res.CapBinds {
		e.warnf("%s: the memory cap binds (m ≤ %d bits); --max-bpk or --max-m above it would lower the rate to %s",
			outputName(out), res.CapBits, rate(res.Uncapped.FalsePositive))
	}
	return e.writeFilter(out, anyfile.Frame(b))
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

// options returns the budget, from the flags build shares with calc
// --budget.
func (b *buildBudgetFlags) options(n, blockBits uint64, layout params.Layout, layoutGiven bool) digest.Budget {
	o := digest.Budget{N: n, Bytes: uint64(b.budget), Packet: uint64(b.packet), BlockBits: blockBits,
		MaxBits: uint64(b.maxM), MaxBitsPerKey: b.maxBPK, MaxK: int(b.maxK)}
	if layoutGiven {
		o.Layout = layout
	}
	return o
}
