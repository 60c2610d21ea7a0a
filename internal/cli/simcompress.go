package cli

import (
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/sim"
)

const compressSimUsage = `usage: bloomcast sim compress [--n N] [--shapes M/N:K,...] [--trials T]
                             [--codec C] [--queries Q] [--seed S] [--json]

Build many classic filters of N keys for each shape (m/n bits per key, k
probes), each with its own hashing seed, send each as a digest, decode it
and check it, and report the digest sizes (mean, standard deviation,
minimum, maximum) against m·H(p) plus the frame, p = (1 − 1/m)^(kn) the
expected fraction of zero bits, and the measured false-positive rate
against (1 − p)^k. The defaults are the paper's trial (Mitzenmacher,
"Compressed Bloom filters", section VI): n = 100000 at (48, 3) and (14, 2).

flags:
  --n N            keys per filter (default 100000)
  --shapes LIST    comma-separated m/n:k pairs (default 48:3,14:2)
  --trials T       filters per shape (default 100)
  --codec C        auto, arith, fast or raw (default arith)
  --queries Q      absent keys queried per filter (default 100000)
  --seed S         seed of the keys and the hashing seeds (default 1)
  --json           print one JSON array instead of a table
`

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
	var rows []sim.CompressRow
	for _, s := range shapes {
		bpk, k, err := sim.ParseCompressShape(s)
		if err != nil {
			return usagef("--shapes: %v", err)
		}
		r, err := sim.CompressionTrial(sim.CompressConfig{N: int(n), BitsPerKey: bpk, K: k, Trials: int(trials),
			Codec: codec, Queries: int(queries), Seed: seed})
		if err != nil {
			return err
		}
		rows = append(rows, r.Row())
	}
	if asJSON {
		return writeJSON(e.stdout, rows)
	}
	return sim.WriteCompressText(e.stdout, rows)
}
