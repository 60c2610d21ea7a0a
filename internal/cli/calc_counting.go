package cli

import "github.com/bloomcast/bloomcast/sim"

// calc --counting: counter sizing for counting filters. runCalc hands its
// arguments here when they include --counting.

// countingSimWork is the most insertions calc --counting simulates in all
// (sim.MaxCountLimit; a variable so that a test can lower it).
var countingSimWork float64 = sim.MaxCountLimit

const calcCountingUsage = `usage: bloomcast calc --counting -n N -m M [-k K] [--trials T] [--seed S]
                      [--json]

Size the counters of a counting Bloom filter of M counters holding N keys
with K probes each (default: the best k for N and M).

calc prints the asymptotic expected maximum count of Fan, Cao, Almeida and
Broder ("Summary cache", after Knuth): Γ⁻¹(M)·(1 + ln(K·N/M)/ln Γ⁻¹(M)),
without its O(1/ln² Γ⁻¹(M)) term, which makes it run one to two counts
above the real maximum near the optimal load; beside it, the mean largest
count of T real counting filters (classic layout, keys 0..N−1 hashed with
seeds S, S+1, ...; at most 2^25 insertions in all, so T shrinks for large
N·K, and no simulation above 2^25 counters).

Then, for each counter width t = 2..16 bits (a counter overflows at
j = 2^t), log10 of two bounds on Pr(any counter ≥ j):
  survey   M·(1.885/j)^j, the form of the Broder–Mitzenmacher survey,
           valid for K ≤ ln2·M/N (1.885 ≈ e·ln 2)
  at load  M·(e·K·N/(j·M))^j, Fan et al.'s bound for this N and K
Both are computed as logarithms: at 8 bits the survey's bound is
10^−546.03·M, far below the smallest float64. bloomcast's counting filters
have 4-, 8- and 16-bit counters.

flags:
  -n N          number of distinct keys (required)
  -m M          counters (required)
  -k K          probes per key (default: the best k for N and M)
  --trials T    filters simulated (default 10; 0: no simulation)
  --seed S      hashing seed of the first simulated filter (default 1)
  --json        print one JSON object instead of a table
`

// wantsCounting reports whether calc's arguments ask for counter sizing.
func wantsCounting(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-counting", "--counting":
			return true
		}
	}
	return false
}

func runCalcCounting(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, m, trials, seed countValue
	var k probesValue
	var asJSON, counting bool
	trials, seed = 10, 1
	fs.Var(&n, "n", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&trials, "trials", "")
	fs.Var(&seed, "seed", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&counting, "counting", false, "")
	if done, err := e.parseModeFlags(fs, args, calcCountingUsage); done || err != nil {
		return err
	}
	switch {
	case n == 0 || m == 0:
		return usagef("--counting needs -n N and -m M")
	case m < 2:
		return usagef("--counting needs -m of at least 2")
	}
	r, err := sim.NewCounterReport(uint64(m), uint64(n), int(k), int(min(trials, 1<<30)), uint64(seed), countingSimWork)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
