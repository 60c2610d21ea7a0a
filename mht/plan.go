package mht

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Plan is a table configuration and the summaries to compare on it: what
// [Plan.Calculate] computes bounds for and [Plan.Simulate] measures, as in
// section VI of Kirsch and Mitzenmacher.
//
// The zero Plan is not valid: Calculate, Simulate, SizeMBF and NewSummary
// report ErrConfig; DefaultPlan makes one.
type Plan struct {
	// N is the number of items inserted.
	N uint64
	// Sizes are the sub-table sizes.
	Sizes []uint64
	// SFCells and SFK configure the single filters (plain and counting).
	SFCells uint64
	SFK     int
	// MBFBits and MBFK configure the multiple Bloom filters.
	MBFBits []uint64
	MBFK    []int
	// InterpBits is b of interpolation search (0: 64 − ⌈log2 d⌉).
	InterpBits int
	// CounterBits is the counter width of the counting summaries and of
	// Song's counters.
	CounterBits int
	// Kinds are the summaries compared (nil: all of them).
	Kinds []Kind
}

// Defaults of [DefaultPlan].
const (
	DefaultLevels          = 5
	DefaultFirstPerItem    = 3   // m_1 = 3n
	DefaultRatio           = 0.5 // m_{i+1} = m_i/2
	DefaultSFCellsPerItem  = 6
	DefaultSFK             = 10
	DefaultMBFBitsPerItem  = 12   // B_1
	DefaultMBFFailureBound = 1e-3 // expected mistyped items, B_2..B_d together
	DefaultCounterBits     = 4
)

// DefaultPlan returns the configuration used by docs/MHT.md for n items: d
// = 5 sub-tables of 3n, 1.5n, … buckets (5.8 buckets per item, the paper's
// "fewer than 6"), a single filter of 6n cells with k = 10, multiple Bloom
// filters with 12n bits in B_1 and the later filters sized to the skew so
// that the expected number of mistyped items is 10^−3, interpolation
// search over one-word entries, and 4-bit counters.
func DefaultPlan(n uint64) (Plan, error) {
	if n < 1 {
		return Plan{}, fmt.Errorf("%w: n = 0", ErrConfig)
	}
	sizes, err := GeometricSizes(DefaultFirstPerItem*n, DefaultRatio, DefaultLevels)
	if err != nil {
		return Plan{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p := Plan{N: n, Sizes: sizes, SFCells: DefaultSFCellsPerItem * n, SFK: DefaultSFK, CounterBits: DefaultCounterBits}
	if err := p.SizeMBF(DefaultMBFBitsPerItem, DefaultMBFFailureBound); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// SizeMBF sizes the multiple Bloom filters to the skew of the plan's table
// ([Occupancy.MBFSizes]).
func (p *Plan) SizeMBF(bitsPerItem, failureBound float64) error {
	o, err := NewOccupancy(p.N, p.Sizes)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	m, k, err := o.MBFSizes(bitsPerItem, failureBound)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	for i := range k {
		k[i] = min(k[i], params.MaxK)
	}
	p.MBFBits, p.MBFK = m, k
	return nil
}

func (p Plan) kinds() []Kind {
	if p.Kinds == nil {
		return Kinds()
	}
	return p.Kinds
}

// NewSummary returns an empty summary of kind k configured by the plan.
func (p Plan) NewSummary(k Kind) (Summary, error) {
	d := len(p.Sizes)
	switch k {
	case KindSong:
		return NewSong(SongConfig{Sizes: p.Sizes, CounterBits: p.CounterBits})
	case KindInterp:
		return NewInterp(InterpConfig{Levels: d, HashBits: p.InterpBits, Capacity: int(min(p.N, 1<<24))})
	case KindSF, KindCountingSF:
		c := SFConfig{Levels: d, Cells: p.SFCells, K: p.SFK}
		if k == KindCountingSF {
			c.CounterBits = p.CounterBits
		}
		return NewSF(c)
	case KindMBF, KindCountingMBF:
		c := MBFConfig{Bits: p.MBFBits, K: p.MBFK}
		if k == KindCountingMBF {
			c.CounterBits = p.CounterBits
		}
		return NewMBF(c)
	}
	return nil, fmt.Errorf("%w: summary kind %d", ErrConfig, k)
}

// Figures are one summary's calculated (or measured) figures.
// The zero value is a summary of no kind whose figures are all 0.
type Figures struct {
	Kind        Kind
	Bits        uint64  // fast memory
	BitsPerItem float64 // Bits / N
	// FalsePositive: an absent key is given a type. TypeFailure: a stored
	// key is given the wrong type (per key). AnyFailure: the table has at
	// least one mistyped key or the summary could not be built (calculated:
	// a bound; measured: the fraction of trials).
	FalsePositive, TypeFailure, AnyFailure float64
	// Buckets read per lookup of a stored key and of an absent key
	// (calculated: bounds).
	TouchedPresent, TouchedAbsent float64
	// Estimate marks calculated figures that are estimates, not bounds
	// (Song's table: items per bucket read and crowded buckets).
	Estimate bool `json:",omitempty"`
	// Song's table ([FHT]), whose buckets hold lists: the mean number of
	// items in the bucket read by a lookup of a stored and of an absent
	// key, and the number of buckets holding two or more items (per
	// table; measured: the mean over trials). AnyFailure is then the
	// probability that some bucket holds two or more.
	ItemsPresent   float64 `json:",omitempty"`
	ItemsAbsent    float64 `json:",omitempty"`
	CrowdedBuckets float64 `json:",omitempty"`
}

// Calculation is what params computes for a plan.
// The zero value is no calculation; Plan.Calculate fills it.
type Calculation struct {
	Occupancy Occupancy
	// Probe is the plain d-choice lookup that reads every sub-table.
	Probe     Figures
	Summaries []Figures
}

// Calculate computes the plan's occupancy, crisis probability and the
// bounds of each summary with package params.
func (p Plan) Calculate() (Calculation, error) {
	o, err := NewOccupancy(p.N, p.Sizes)
	if err != nil {
		return Calculation{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	d := float64(len(p.Sizes))
	c := Calculation{Occupancy: o}
	present := 0.0
	for j, l := range o.Levels {
		present += l.Placed * float64(j+1)
	}
	c.Probe = Figures{TouchedPresent: present / max(1, float64(p.N)), TouchedAbsent: d}
	for _, k := range p.kinds() {
		if _, err := p.NewSummary(k); err != nil {
			return Calculation{}, err
		}
		var b SummaryBounds
		switch k {
		case KindSong:
			b = o.SongBounds(p.CounterBits)
		case KindInterp:
			s, _ := p.NewSummary(k)
			b = o.InterpBounds(s.(*Interp).HashBits())
		case KindSF:
			b = o.SFBounds(p.SFCells, p.SFK, 0)
		case KindCountingSF:
			b = o.SFBounds(p.SFCells, p.SFK, p.CounterBits)
		case KindMBF:
			b = o.MBFBounds(p.MBFBits, p.MBFK, 0)
		case KindCountingMBF:
			b = o.MBFBounds(p.MBFBits, p.MBFK, p.CounterBits)
		}
		f := Figures{
			Kind: k, Bits: b.Bits, BitsPerItem: float64(b.Bits) / max(1, float64(p.N)),
			FalsePositive: b.FalsePositive, TypeFailure: b.TypeFailure, AnyFailure: b.AnyFailure,
			TouchedPresent: 1 + (d-1)*b.TypeFailure, TouchedAbsent: min(d, b.FalsePositive*d),
			Estimate: b.Estimate,
		}
		if k == KindSong {
			// Song's table reads one bucket, and none when a counter is 0.
			f.TouchedPresent, f.TouchedAbsent = 1, b.FalsePositive
			f.ItemsPresent, f.ItemsAbsent, f.CrowdedBuckets = b.ItemsPresent, b.ItemsAbsent, b.CrowdedBuckets
		}
		c.Summaries = append(c.Summaries, f)
	}
	return c, nil
}

// LevelStat is a measured sub-table occupancy: the mean over trials and
// its standard error.
// The zero value is an empty sub-table measured exactly.
type LevelStat struct {
	Mean, StdErr float64
}

// Measurement is what a simulation measured.
// The zero value is no measurement; Plan.Simulate fills it.
type Measurement struct {
	Trials, Queries int
	Seed            uint64
	Levels          []LevelStat
	// Crises counts the trials in which at least one insertion met a
	// crisis; CrisisItems the items refused in all.
	Crises      int
	CrisisItems uint64
	// Probe is the plain lookup reading every sub-table.
	Probe     Figures
	Summaries []Figures
	// ConstructionFailures counts, per summary, the trials in which it
	// could not be built (interpolation search's collisions).
	ConstructionFailures []int
}

// Simulate inserts N items with random 128-bit hashes (a PCG stream per
// trial, from seed) into the plan's table, trials times, builds every
// summary over each table, and looks up every stored key and queries
// absent keys through it. Song's summary is simulated with the table it
// was designed for: an [FHT] of the plan's sizes holding the same keys
// (a stored key its lookup does not find would count as a type failure).
// Rates are pooled over the trials.
func (p Plan) Simulate(trials, queries int, seed uint64) (Measurement, error) {
	if trials < 1 || queries < 0 {
		return Measurement{}, fmt.Errorf("%w: %d trials, %d queries", ErrConfig, trials, queries)
	}
	kinds := p.kinds()
	sums := make([]Summary, len(kinds))
	for i, k := range kinds {
		s, err := p.NewSummary(k)
		if err != nil {
			return Measurement{}, err
		}
		sums[i] = s
	}
	t, err := New(Config{Sizes: p.Sizes})
	if err != nil {
		return Measurement{}, err
	}
	d := len(p.Sizes)
	ms := Measurement{Trials: trials, Queries: queries, Seed: seed, Levels: make([]LevelStat, d),
		ConstructionFailures: make([]int, len(kinds))}
	sum, sq := make([]float64, d), make([]float64, d)
	type acc struct{ fp, tf, any, tp, ta, present, absent, ip, ia, crowded float64 }
	accs := make([]acc, len(kinds))
	fhts := make([]*FHT, len(kinds))
	for i, k := range kinds {
		if k == KindSong {
			if fhts[i], err = NewFHT(FHTConfig{Sizes: p.Sizes, CounterBits: p.CounterBits}); err != nil {
				return Measurement{}, err
			}
		}
	}
	var probe acc
	keys := make([]hashing.Hash128, 0, p.N)
	for trial := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(trial)))
		t.clear()
		keys = keys[:0]
		crisis := false
		for range p.N {
			h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
			if err := t.Insert(h, h.Lo); err != nil {
				crisis = true
				ms.CrisisItems++
				continue
			}
			keys = append(keys, h)
		}
		if crisis {
			ms.Crises++
		}
		for i, c := range t.Occupancy() {
			sum[i] += float64(c)
			sq[i] += float64(c) * float64(c)
		}
		absent := make([]hashing.Hash128, queries)
		for i := range absent {
			absent[i] = hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
		}
		for _, h := range keys {
			probe.tp += float64(t.Probe(h).Touched)
		}
		for _, h := range absent {
			probe.ta += float64(t.Probe(h).Touched)
		}
		probe.present += float64(len(keys))
		probe.absent += float64(len(absent))
		for i, s := range sums {
			if f := fhts[i]; f != nil {
				a := &accs[i]
				f.Clear()
				for _, h := range keys {
					if err := f.Insert(h, h.Lo); err != nil {
						return Measurement{}, err
					}
				}
				lost := 0
				for _, h := range keys {
					r := f.Lookup(h)
					if !r.Found {
						lost++
					}
					a.tp += float64(r.Touched)
					a.ip += float64(r.Items)
				}
				f.ResetStats()
				for _, h := range absent {
					r := f.Lookup(h)
					a.ta += float64(r.Touched)
					a.ia += float64(r.Items)
				}
				a.fp += float64(f.Stats().FalsePositives)
				crowded := uint64(0)
				for j, c := range f.Loads() {
					if j >= 2 {
						crowded += c
					}
				}
				a.tf += float64(lost)
				a.crowded += float64(crowded)
				if crowded > 0 || lost > 0 {
					a.any++
				}
				a.present += float64(len(keys))
				a.absent += float64(len(absent))
				continue
			}
			if err := t.SetSummary(s); err != nil {
				ms.ConstructionFailures[i]++
				accs[i].any++
				continue
			}
			a := &accs[i]
			t.ResetStats()
			for _, h := range keys {
				t.Lookup(h)
			}
			st := t.Stats()
			a.tf += float64(st.TypeFailures)
			a.tp += float64(st.Touched)
			if st.TypeFailures > 0 {
				a.any++
			}
			t.ResetStats()
			for _, h := range absent {
				t.Lookup(h)
			}
			st = t.Stats()
			a.fp += float64(st.FalsePositives)
			a.ta += float64(st.Touched)
			a.present += float64(len(keys))
			a.absent += float64(len(absent))
		}
		t.summary = nil
	}
	nt := float64(trials)
	for i := range d {
		mean := sum[i] / nt
		v := max(0, sq[i]/nt-mean*mean) * nt / max(1, nt-1)
		ms.Levels[i] = LevelStat{Mean: mean, StdErr: math.Sqrt(v / nt)}
	}
	ms.Probe = Figures{TouchedPresent: ratio(probe.tp, probe.present), TouchedAbsent: ratio(probe.ta, probe.absent)}
	for i, k := range kinds {
		a := accs[i]
		bits := sums[i].Bits()
		if k == KindInterp {
			bits = uint64(float64(p.N) * float64(sums[i].(*Interp).b+int(sums[i].(*Interp).tb)))
		}
		ms.Summaries = append(ms.Summaries, Figures{
			Kind: k, Bits: bits, BitsPerItem: float64(bits) / max(1, float64(p.N)),
			FalsePositive: ratio(a.fp, a.absent), TypeFailure: ratio(a.tf, a.present), AnyFailure: a.any / nt,
			TouchedPresent: ratio(a.tp, a.present), TouchedAbsent: ratio(a.ta, a.absent),
			ItemsPresent: ratio(a.ip, a.present), ItemsAbsent: ratio(a.ia, a.absent), CrowdedBuckets: a.crowded / nt,
		})
	}
	return ms, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// clear empties the table, keeping its buckets.
func (t *Table) clear() {
	for i := range t.levels {
		l := &t.levels[i]
		clear(l.used)
		clear(l.gone)
		clear(l.items)
		l.count = 0
	}
	t.count, t.deleted = 0, 0
	t.stats = Stats{}
	if t.summary != nil {
		t.summary.Clear()
	}
}
