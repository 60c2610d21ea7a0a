package cli

import (
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/params"
)

// calc --budget and build --budget: the filter with the lowest rate whose
// message fits a budget in bytes.

var calcBudgetUsage = usageText("calc-budget")

func runCalcBudget(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, budget, packet, blockBits, maxM countValue
	var maxK probesValue
	var maxBPK float64
	layout := layoutValue{all: true}
	var asJSON bool
	fs.Var(&n, "n", "")
	fs.Var(&budget, "budget", "")
	fs.Var(&packet, "packet", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.Var(&maxM, "max-m", "")
	fs.Float64Var(&maxBPK, "max-bpk", 0, "")
	fs.Var(&maxK, "max-k", "")
	fs.BoolVar(&asJSON, "json", false, "")
	if done, err := e.parseModeFlags(fs, args, calcBudgetUsage); done || err != nil {
		return err
	}
	o := digest.Budget{N: uint64(n), Bytes: uint64(budget), Packet: uint64(packet), Layout: layout.layout,
		BlockBits: uint64(blockBits), MaxBits: uint64(maxM), MaxBitsPerKey: maxBPK, MaxK: int(maxK)}
	if err := checkBudget(o, flagSet(fs, "packet"), true); err != nil {
		return err
	}
	res, err := solveBudget(o)
	if err != nil {
		return err
	}
	r := digest.NewBudgetReport(o, res)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}

// checkBudget validates the flags calc --budget and build --budget share.
func checkBudget(o digest.Budget, hasPacket, needN bool) error {
	switch {
	case needN && o.N == 0:
		return usagef("--budget needs -n N")
	case o.Bytes == 0:
		return usagef("--budget needs a number of bytes above 0")
	case hasPacket && o.Packet == 0:
		return usagef("--packet needs a number of bytes above 0")
	case o.MaxBitsPerKey < 0:
		return usagef("--max-bpk %g: want bits per key above 0", o.MaxBitsPerKey)
	case o.BlockBits%64 != 0:
		return usagef("--block-bits %d: want a positive multiple of 64", o.BlockBits)
	case o.BlockBits != 0 && o.Layout != params.Paged && o.Layout != 0:
		return usagef("--block-bits is the page size of the paged layout; it means nothing with --layout %s", o.Layout)
	}
	return nil
}

// solveBudget is o.Solve, refusing first a budget with no room for a
// filter (budgetRoom).
func solveBudget(o digest.Budget) (params.BudgetResult, error) {
	if err := budgetRoom(o); err != nil {
		return params.BudgetResult{}, err
	}
	return o.Solve()
}

// budgetRoom refuses a budget with no room for a filter.
func budgetRoom(o digest.Budget) error {
	if b := o.Effective(); b <= digest.BudgetFrameBytes+8 {
		return usagef("--budget %d leaves no room for a filter after the %d-byte frame", b, digest.BudgetFrameBytes)
	}
	return nil
}
