package cli

import (
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

var compressSimUsage = usageText("sim-compress")

func runSimCompress(e *env, args []string) error {
	fs := newFlagSet("sim compress")
	n, trials, queries := countValue(100000), countValue(100), countValue(100000)
	shapes := listValue{"48:3", "14:2"}
	codecName := "arith"
	var seed uint64
	var asJSON bool
	fs.Var(&n, "n", "")
	fs.Var(&trials, "trials", "")
	fs.Var(&queries, "queries", "")
	fs.Var(&shapes, "shapes", "")
	fs.StringVar(&codecName, "codec", "arith", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	codec, err := digest.ParseCodec(codecName)
	if err != nil {
		return usagef("--codec: %v", err)
	}
	var rows []report.CompressRow
	for _, s := range shapes {
		bpk, k, err := report.ParseCompressShape(s)
		if err != nil {
			return usagef("--shapes: %v", err)
		}
		r, err := sim.CompressionTrial(sim.CompressConfig{N: int(n), BitsPerKey: bpk, K: k, Trials: int(trials),
			Codec: codec, Queries: int(queries), Seed: seed})
		if err != nil {
			return err
		}
		rows = append(rows, report.CompressRowOf(r))
	}
	if asJSON {
		return writeJSON(e.stdout, rows)
	}
	return report.WriteCompressText(e.stdout, rows)
}
