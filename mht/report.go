package mht

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
)

// Report sets a plan's calculated figures (Plan.Calculate) beside a
// simulation's measured ones (Plan.Simulate), in the JSON form that
// "bloomcast mht calc" and "mht sim" print: the comparison of section VI
// of Kirsch and Mitzenmacher, "Simple summaries for hashing with multiple
// choices". NewReport builds one; the zero value is an empty report.
type Report struct {
	N          uint64        `json:"n"`
	Sizes      []uint64      `json:"sizes"`
	Levels     []LevelReport `json:"levels"`
	Crisis     float64       `json:"crisis"` // the crisis probability
	Calculated []Figures     `json:"calculated"`
	Probe      Figures       `json:"probe"`
	// The simulation's settings and figures; absent without one.
	Trials  int    `json:"trials,omitempty"`
	Queries int    `json:"queries,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Crises  *int   `json:"crises,omitempty"`
	// CrisisItems is the items refused in all trials, which the text
	// form gives; the JSON form, fixed before it, has no such field.
	CrisisItems uint64    `json:"-"`
	Measured    []Figures `json:"measured,omitempty"`
	MeasProbe   *Figures  `json:"measured_probe,omitempty"`
	Failures    []int     `json:"construction_failures,omitempty"`
}

// LevelReport is one sub-table in a Report: its expected occupancy, the
// standard deviation, the heuristic m(1 − e^(−n/m)), and, after a
// simulation, the measured mean and its standard error. The zero value
// is an empty sub-table's.
type LevelReport struct {
	Buckets  uint64  `json:"buckets"`
	Expected float64 `json:"expected"`
	StdDev   float64 `json:"std_dev"`
	Approx   float64 `json:"approx"`
	Measured float64 `json:"measured,omitempty"`
	StdErr   float64 `json:"std_err,omitempty"`
}

// NewReport sets out c, p's calculation, and m, a simulation of p (nil:
// none).
func NewReport(p Plan, c Calculation, m *Measurement) *Report {
	r := &Report{N: p.N, Sizes: p.Sizes, Crisis: c.Occupancy.Crisis, Calculated: c.Summaries, Probe: c.Probe}
	for _, l := range c.Occupancy.Levels {
		r.Levels = append(r.Levels, LevelReport{Buckets: l.Buckets, Expected: l.Placed, StdDev: l.StdDev, Approx: l.Approx})
	}
	if m != nil {
		r.Trials, r.Queries, r.Seed, r.Crises, r.CrisisItems = m.Trials, m.Queries, m.Seed, &m.Crises, m.CrisisItems
		r.Measured, r.MeasProbe, r.Failures = m.Summaries, &m.Probe, m.ConstructionFailures
		for i := range min(len(r.Levels), len(m.Levels)) {
			r.Levels[i].Measured, r.Levels[i].StdErr = m.Levels[i].Mean, m.Levels[i].StdErr
		}
	}
	return r
}

// BucketsPerItem returns the plan's buckets in all sub-tables over N.
func (p Plan) BucketsPerItem() float64 {
	t := uint64(0)
	for _, m := range p.Sizes {
		t += m
	}
	return float64(t) / float64(max(p.N, 1))
}

// InsertError is BuildHashes's error for the item the table refused.
// BuildHashes returns it; a zero InsertError describes no item.
type InsertError struct {
	// Index is the item's place in the input; Items and Buckets are
	// what the table held and had when it refused it.
	Index, Items int
	Buckets      uint64
	// Err is Insert's error: it wraps ErrCrisis when every bucket for the
	// item was full.
	Err error
}

func (e *InsertError) Error() string {
	return fmt.Sprintf("item %d: %v, after %d items in %d buckets", e.Index, e.Err, e.Items, e.Buckets)
}

// Unwrap returns Insert's error.
func (e *InsertError) Unwrap() error { return e.Err }

// BuildHashes returns a table of configuration c holding values[i] under
// the key whose hash is hs[i] (hashing.SumSeed with c.Seed), inserted in
// order: a key given twice keeps its last value. When an item meets a
// crisis it returns an *InsertError naming it. A bad c, or hs and values of
// different lengths, is an error wrapping ErrConfig.
func BuildHashes(c Config, hs []hashing.Hash128, values []uint64) (*Table, error) {
	if len(hs) != len(values) {
		return nil, fmt.Errorf("%w: %d keys and %d values", ErrConfig, len(hs), len(values))
	}
	t, err := New(c)
	if err != nil {
		return nil, err
	}
	for i, h := range hs {
		if err := t.Insert(h, values[i]); err != nil {
			return nil, &InsertError{Index: i, Items: t.Len(), Buckets: t.Buckets(), Err: err}
		}
	}
	return t, nil
}
