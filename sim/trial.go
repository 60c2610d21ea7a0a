package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/params"
)

// Defaults of LayoutTrialConfig.
const (
	DefaultTrialKeys = 200_000
	DefaultTrialP    = 0.01
)

// LayoutTrialConfig describes a LayoutTrial. The zero value is the default
// trial.
type LayoutTrialConfig struct {
	// Keys is the number of member keys added to each filter; as many
	// non-members are queried. 0 means DefaultTrialKeys.
	Keys int
	// P is the false-positive rate each filter is sized for, in (0, 1).
	// 0 means DefaultTrialP.
	P float64
	// Seed drives the keys (Keys) and the filters' hashing.
	Seed uint64
	// Layouts lists the layouts to try, in order; nil means all four.
	Layouts []params.Layout
	// PageBits is the page size of the Paged layout in bits; 0 means
	// params.DefaultPageBits.
	PageBits uint64
}

// LayoutResult is what LayoutTrial measured for one layout.
// The zero value is no result; LayoutTrial fills one per layout.
type LayoutResult struct {
	// Shape is the filter's geometry, chosen by params.Size.
	Shape params.Shape
	// Keys is the number of members added, and of non-members queried.
	Keys int
	// BitsPerKey is Shape.M/Keys.
	BitsPerKey float64
	// Predicted is the model's rate, Shape.FalsePositive(Keys).
	Predicted float64
	// FalsePositives counts the non-members reported present.
	FalsePositives int
	// Measured is FalsePositives/Keys.
	Measured float64
	// FillRatio is the fraction of bits set after the adds.
	FillRatio float64
	// AddNanos is the mean time of one AddString, in nanoseconds, in the
	// fastest of a few passes.
	AddNanos float64
	// QueryNanos is the mean time of one ContainsString over members and
	// non-members alike, in nanoseconds, in the fastest of a few passes.
	QueryNanos float64
	// EncodedBytes is the size of the filter's encoding.
	EncodedBytes int
}

// StdError returns the standard deviation of Measured if the model is
// right: the false positives are then Binomial(Keys, Predicted).
func (r LayoutResult) StdError() float64 {
	return math.Sqrt(r.Predicted * (1 - r.Predicted) / float64(r.Keys))
}

// LayoutTrial builds one filter per layout, each sized by params.Size for
// cfg.Keys keys at rate cfg.P, adds the first cfg.Keys keys of
// Keys(cfg.Seed, 2·cfg.Keys), queries all of them and the other half
// (non-members by construction), and reports the measured false-positive
// rate beside the predicted one, with timings and sizes. The counts are
// deterministic for a given configuration; the timings are not. A member
// reported absent would be a bug and is returned as an error.
func LayoutTrial(cfg LayoutTrialConfig) ([]LayoutResult, error) {
	n, p := cfg.Keys, cfg.P
	if n == 0 {
		n = DefaultTrialKeys
	}
	if p == 0 {
		p = DefaultTrialP
	}
	if n < 0 {
		return nil, fmt.Errorf("sim: %d keys", n)
	}
	layouts := cfg.Layouts
	if layouts == nil {
		layouts = []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged}
	}
	keys := Keys(cfg.Seed, 2*n)
	members, others := keys[:n], keys[n:]
	results := make([]LayoutResult, 0, len(layouts))
	for _, l := range layouts {
		if !l.Valid() { // bloom.Config would take 0 for Classic
			return nil, fmt.Errorf("sim: undefined %v", l)
		}
		c := bloom.Config{Layout: l, N: uint64(n), P: p, Seed: cfg.Seed}
		if l == params.Paged {
			c.BlockBits = cfg.PageBits
		}
		r, err := layoutRun(c, members, others)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// layoutRun builds the filter c describes from members and probes it.
func layoutRun(c bloom.Config, members, others []string) (LayoutResult, error) {
	f, err := bloom.New(c)
	if err != nil {
		return LayoutResult{}, fmt.Errorf("sim: %w", err)
	}
	n := len(members)
	var addTime, queryTime time.Duration
	missed, fp := 0, 0
	for pass := range timingPasses {
		f.Clear()
		start := time.Now()
		for _, k := range members {
			f.AddString(k)
		}
		addTime = minTime(pass, addTime, time.Since(start))

		start = time.Now()
		missed, fp = 0, 0
		for _, k := range members {
			if !f.ContainsString(k) {
				missed++
			}
		}
		for _, k := range others {
			if f.ContainsString(k) {
				fp++
			}
		}
		queryTime = minTime(pass, queryTime, time.Since(start))
	}
	if missed > 0 {
		return LayoutResult{}, fmt.Errorf("sim: %v: %d of %d members reported absent", f.Shape(), missed, n)
	}

	s := f.Shape()
	return LayoutResult{
		Shape:          s,
		Keys:           n,
		BitsPerKey:     s.BitsPerKey(uint64(n)),
		Predicted:      s.FalsePositive(uint64(n)),
		FalsePositives: fp,
		Measured:       float64(fp) / float64(n),
		FillRatio:      f.FillRatio(),
		AddNanos:       float64(addTime.Nanoseconds()) / float64(n),
		QueryNanos:     float64(queryTime.Nanoseconds()) / float64(2*n),
		EncodedBytes:   f.EncodedSize(),
	}, nil
}

// timingPasses is how many times layoutRun builds and probes each filter;
// it reports the fastest pass, the one least disturbed by other work on
// the machine.
const timingPasses = 3

// minTime returns d on the first pass and the smaller of best and d after.
func minTime(pass int, best, d time.Duration) time.Duration {
	if pass == 0 {
		return d
	}
	return min(best, d)
}
