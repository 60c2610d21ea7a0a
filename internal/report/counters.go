package report

import (
	"io"
	"strconv"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/internal/textfmt"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

// WriteText writes r as "bloomcast calc --counting" prints it: the
// filter and its load, the expected and simulated maximum count, a table
// of the two overflow bounds for each counter width, and the narrowest
// width that keeps the bound at this load below 10^-6.
func (r *CounterReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("counting filter: n = %d keys, m = %d counters, k = %d (mean count k·n/m = %.4f)\n\n", r.N, r.M, r.K, r.Load)
	tw.Printf("expected maximum count   %.3f  (Fan et al.'s asymptote)\n", r.ExpectedMaxCount)
	if r.SimulatedMax != nil {
		tw.Printf("simulated maximum count  %.3f  (mean of %d filters, seeds %d..%d: %v)\n", *r.SimulatedMax, r.Trials, r.Seed, r.Seed+uint64(r.Trials)-1, r.SimulatedMaxima)
	} else {
		tw.Println("simulated maximum count  -      (not simulated: --trials 0, or beyond 2^25 counters or insertions)")
	}
	tw.Println()
	var t textfmt.Table
	t.Add("bits", "overflows at", "log10 Pr, survey", "log10 Pr, at load")
	for _, o := range r.Overflow {
		t.Add(strconv.Itoa(o.Bits), strconv.FormatUint(o.OverflowsAt, 10), textfmt.Float(o.Log10P, 2), textfmt.Float(o.Log10AtLoad, 2))
	}
	tw.Write(&t)
	tw.Println()
	tw.Println("log10 of the bounds on Pr(any counter ≥ j): survey m·(1.885/j)^j, at load m·(e·k·n/(j·m))^j; 0 or more bounds nothing.")
	if !r.SurveyApplies {
		tw.Printf("k·n/m = %.4f is above ln 2: the survey's form assumes k ≤ ln2·m/n and does not bound this filter.\n", r.Load)
	}
	if r.SmallestWidth != 0 {
		tw.Printf("%d-bit counters overflow with probability below 10^-6 at this load.\n", r.SmallestWidth)
	} else {
		tw.Println("no counter width up to 16 bits keeps the bound at this load below 10^-6.")
	}
	return tw.Err()
}

// A CounterReport is counting.SizeCounters's sizing of the counters of a
// counting filter beside the mean largest count of real ones (sim.MaxCount),
// in the JSON form "bloomcast calc --counting --json" prints. The zero
// value is an empty report.
type CounterReport struct {
	counting.Sizing
	SimulatedMax    *float64 `json:"simulated_max_count"` // null without a simulation
	SimulatedMaxima []uint64 `json:"simulated_maxima"`
	Trials          int      `json:"trials"`
	Seed            uint64   `json:"seed"`
}

// NewCounterReport sizes the counters of m counters holding n keys with
// k probes (0: params.OptimalK) and simulates up to trials filters
// (seeds seed, seed+1, …): as many as fit in work insertions in all
// (0: sim.MaxCountLimit), none above sim.MaxCountLimit counters.
func NewCounterReport(m, n uint64, k, trials int, seed uint64, work float64) (*CounterReport, error) {
	if k == 0 {
		k = params.OptimalK(m, n)
	}
	if work == 0 {
		work = sim.MaxCountLimit
	}
	r := &CounterReport{Sizing: counting.SizeCounters(m, n, k), SimulatedMaxima: []uint64{}}
	if trials <= 0 || m > sim.MaxCountLimit || n == 0 {
		return r, nil
	}
	t := min(uint64(trials), uint64(work/(float64(n)*float64(k))))
	if t == 0 {
		return r, nil
	}
	res, err := sim.MaxCount(sim.MaxCountConfig{M: r.M, N: r.N, K: r.K, Trials: int(t), Seed: seed})
	if err != nil {
		return nil, err
	}
	r.SimulatedMax, r.SimulatedMaxima, r.Trials, r.Seed = &res.Mean, res.Max, int(t), seed
	return r, nil
}
