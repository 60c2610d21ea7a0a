// Package compare runs bloomcast's filters and other Go filter libraries side
// by side, in one process, on the same keys, and reports per-key timings,
// measured false-positive rates and sizes, with the target ratios the
// project tracks (Checks; docs/BENCHMARKS.md, "Bloom filters against other
// Go libraries").
package compare

import (
	"fmt"
	"io"
	"slices"
)

// Config is one run of the comparison.
type Config struct {
	Ns []int     // member counts
	Ps []float64 // target false-positive rates
	// Reps is how many times each pass is repeated; the median is
	// reported. Zero means 5, or 3 for n ≥ 10^7 where a pass takes seconds.
	Reps int
	// MinQ and MaxQ bound the number of non-member queries,
	// q = min(max(n, MinQ), MaxQ). Zero means 10^6 and 2·10^6.
	MinQ, MaxQ int
	// Batch is the group size of the batch pass; zero means 1024.
	Batch int
	// Clock is ClockCPU or ClockWall; empty means ClockCPU.
	Clock string
	// Contenders are the rows; nil means Contenders().
	Contenders []Contender
	// Progress receives one line per measurement; nil discards them.
	Progress io.Writer
}

// Timing is the per-key cost of a phase's passes, in nanoseconds: Median
// and Samples on the report's clock, and the wall-clock figures as well.
type Timing struct {
	Median      float64   `json:"median_ns_per_key"`
	Samples     []float64 `json:"samples_ns_per_key"`
	WallMedian  float64   `json:"wall_median_ns_per_key"`
	WallSamples []float64 `json:"wall_samples_ns_per_key"`
}

// Result is one contender at one (n, p).
type Result struct {
	Name           string  `json:"name"`
	Floor          bool    `json:"floor,omitempty"`
	N              int     `json:"n"`
	Q              int     `json:"q"`
	P              float64 `json:"p"`
	Target         float64 `json:"target_rate"`
	K              int     `json:"k,omitempty"`
	Bits           uint64  `json:"bits"`
	BitsPerKey     float64 `json:"bits_per_key"`
	FalseNegatives int     `json:"false_negatives"`
	FalsePositives int     `json:"false_positives"`
	Rate           float64 `json:"measured_rate"`
	Add            Timing  `json:"add"`
	Hit            Timing  `json:"hit"`
	Miss           Timing  `json:"miss"`
	// BatchHit and BatchMiss are nil for contenders without a batch API.
	BatchHit  *Timing `json:"batch_hit,omitempty"`
	BatchMiss *Timing `json:"batch_miss,omitempty"`
}

// Case is every contender at one (n, p).
type Case struct {
	N    int     `json:"n"`
	Q    int     `json:"q"`
	P    float64 `json:"p"`
	Reps int     `json:"reps"`
	// MemberPasses is how often a hit pass goes over the members: Q/N, so
	// that hit and miss passes make as many queries (see queryPass). Zero
	// in reports from before it existed, which went over them once.
	MemberPasses int      `json:"member_passes,omitempty"`
	Results      []Result `json:"results"`
}

// Report is a whole run.
type Report struct {
	Env   Env    `json:"env"`
	Batch int    `json:"batch_group"`
	Clock string `json:"clock"`
	Rows  []Row  `json:"rows"`
	Cases []Case `json:"cases"`
}

// Row says how one contender is configured.
type Row struct {
	Name string `json:"name"`
	Note string `json:"note"`
}

// Find returns the result of the named contender at (n, p).
func (r *Report) Find(name string, n int, p float64) (Result, bool) {
	for _, c := range r.Cases {
		if c.N != n || c.P != p {
			continue
		}
		for _, res := range c.Results {
			if res.Name == name {
				return res, true
			}
		}
	}
	return Result{}, false
}

func (c *Config) defaults() {
	if c.MinQ == 0 {
		c.MinQ = 1_000_000
	}
	if c.MaxQ == 0 {
		c.MaxQ = 2_000_000
	}
	if c.Batch == 0 {
		c.Batch = 1024
	}
	if c.Clock == "" {
		c.Clock = ClockCPU
	}
	if c.Contenders == nil {
		c.Contenders = Contenders()
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

func (c *Config) q(n int) int { return min(max(n, c.MinQ), c.MaxQ) }

func (c *Config) reps(n int) int {
	switch {
	case c.Reps > 0:
		return c.Reps
	case n >= 10_000_000:
		return 3
	}
	return 5
}

func (c *Config) validate() error {
	if len(c.Ns) == 0 || len(c.Ps) == 0 {
		return fmt.Errorf("compare: need at least one n and one p")
	}
	for _, n := range c.Ns {
		if n < 1 || n > MaxKeys/2 {
			return fmt.Errorf("compare: n = %d out of range", n)
		}
	}
	for _, p := range c.Ps {
		if !(p > 0 && p < 1) {
			return fmt.Errorf("compare: p = %g outside (0, 1)", p)
		}
	}
	if c.MinQ < 1 || c.MaxQ < c.MinQ || c.Batch < 1 || c.Reps < 0 {
		return fmt.Errorf("compare: bad q bounds, batch size or reps")
	}
	if c.Clock != ClockCPU && c.Clock != ClockWall {
		return fmt.Errorf("compare: clock %q, want %q or %q", c.Clock, ClockCPU, ClockWall)
	}
	return nil
}

// Run measures every contender at every (n, p).
func Run(cfg Config) (*Report, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// Keys are built once for the largest case; smaller cases use
	// prefixes. Non-members come after every member index, so the two
	// sets are disjoint for every n.
	maxN, maxQ := slices.Max(cfg.Ns), 0
	for _, n := range cfg.Ns {
		maxQ = max(maxQ, cfg.q(n))
	}
	// A progress line is informational: failing to show one does not
	// change the measurement.
	_, _ = fmt.Fprintf(cfg.Progress, "generating %d member and %d non-member keys\n", maxN, maxQ)
	members, others := Keys(0, maxN), Keys(maxN, maxQ)

	rep := &Report{Env: CurrentEnv(), Batch: cfg.Batch, Clock: cfg.Clock}
	for _, ct := range cfg.Contenders {
		rep.Rows = append(rep.Rows, Row{ct.Name, ct.Note})
	}
	for _, n := range cfg.Ns {
		for _, p := range cfg.Ps {
			c := Case{N: n, Q: cfg.q(n), P: p, Reps: cfg.reps(n)}
			c.MemberPasses = max(1, c.Q/n)
			m := newCaseRun(&cfg, c, members[:n], others[:c.Q])
			results, err := m.run()
			if err != nil {
				return nil, fmt.Errorf("n = %d, p = %g: %w", n, p, err)
			}
			c.Results = results
			rep.Cases = append(rep.Cases, c)
		}
	}
	return rep, nil
}
