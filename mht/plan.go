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
	sums, fhts, err := p.simSummaries(kinds)
	if err != nil {
		return Measurement{}, err
	}
	t, err := New(Config{Sizes: p.Sizes})
	if err != nil {
		return Measurement{}, err
	}
	d := len(p.Sizes)
	ms := Measurement{Trials: trials, Queries: queries, Seed: seed, Levels: make([]LevelStat, d),
		ConstructionFailures: make([]int, len(kinds))}
	occ := newOccupancyTally(d)
	tallies := make([]simTally, len(kinds))
	var probe simTally
	keys := make([]hashing.Hash128, 0, p.N)
	for trial := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(trial)))
		keys = p.fillTable(t, rng, keys, &ms)
		occ.add(t.Occupancy())
		absent := randomHashes(rng, queries)
		probe.probeTable(t, keys, absent)
		for i, s := range sums {
			if f := fhts[i]; f != nil {
				if err := tallies[i].measureFHT(f, keys, absent); err != nil {
					return Measurement{}, err
				}
				continue
			}
			if !tallies[i].measureSummary(t, s, keys, absent) {
				ms.ConstructionFailures[i]++
			}
		}
		t.summary = nil
	}
	nt := float64(trials)
	occ.stats(ms.Levels, nt)
	ms.Probe = Figures{TouchedPresent: ratio(probe.touchedPresent, probe.present), TouchedAbsent: ratio(probe.touchedAbsent, probe.absent)}
	for i, k := range kinds {
		ms.Summaries = append(ms.Summaries, tallies[i].figures(k, simBits(sums[i], p.N), p.N, nt))
	}
	return ms, nil
}

// simSummaries makes one summary of each kind for Simulate, and for
// Song's the FHT it is simulated with (nil for the others).
func (p Plan) simSummaries(kinds []Kind) ([]Summary, []*FHT, error) {
	sums := make([]Summary, len(kinds))
	fhts := make([]*FHT, len(kinds))
	for i, k := range kinds {
		s, err := p.NewSummary(k)
		if err != nil {
			return nil, nil, err
		}
		sums[i] = s
		if k == KindSong {
			if fhts[i], err = NewFHT(FHTConfig{Sizes: p.Sizes, CounterBits: p.CounterBits}); err != nil {
				return nil, nil, err
			}
		}
	}
	return sums, fhts, nil
}

// fillTable empties t and inserts N random hashes drawn from rng,
// counting crises in ms; it returns the hashes stored, in keys' array.
func (p Plan) fillTable(t *Table, rng *rand.Rand, keys []hashing.Hash128, ms *Measurement) []hashing.Hash128 {
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
	return keys
}

// randomHashes draws n hashes from rng: keys absent from the table.
func randomHashes(rng *rand.Rand, n int) []hashing.Hash128 {
	hs := make([]hashing.Hash128, n)
	for i := range hs {
		hs[i] = hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
	}
	return hs
}

// occupancyTally sums each sub-table's item count, and its square, over
// the trials.
type occupancyTally struct{ sum, sq []float64 }

func newOccupancyTally(d int) occupancyTally {
	return occupancyTally{sum: make([]float64, d), sq: make([]float64, d)}
}

func (o occupancyTally) add(counts []uint64) {
	for i, c := range counts {
		o.sum[i] += float64(c)
		o.sq[i] += float64(c) * float64(c)
	}
}

// stats sets each level's mean and its standard error over nt trials.
func (o occupancyTally) stats(levels []LevelStat, nt float64) {
	for i := range levels {
		mean := o.sum[i] / nt
		v := max(0, o.sq[i]/nt-mean*mean) * nt / max(1, nt-1)
		levels[i] = LevelStat{Mean: mean, StdErr: math.Sqrt(v / nt)}
	}
}

// simTally pools one summary's outcomes (or, for the table's own probe,
// the buckets touched) over the trials.
type simTally struct {
	falsePositives float64 // absent keys given a type
	typeFailures   float64 // stored keys given a wrong type (or, in an FHT, not found)
	anyFailure     float64 // trials with a failure of any kind
	touchedPresent float64 // buckets read by lookups of stored keys
	touchedAbsent  float64 // buckets read by lookups of absent keys
	present        float64 // lookups of stored keys
	absent         float64 // lookups of absent keys
	itemsPresent   float64 // FHT: items in the buckets read for stored keys
	itemsAbsent    float64 // FHT: items in the buckets read for absent keys
	crowded        float64 // FHT: buckets holding two or more items
}

// probeTable counts the buckets the table's own probe touches for the
// stored and the absent keys.
func (a *simTally) probeTable(t *Table, keys, absent []hashing.Hash128) {
	for _, h := range keys {
		a.touchedPresent += float64(t.Probe(h).Touched)
	}
	for _, h := range absent {
		a.touchedAbsent += float64(t.Probe(h).Touched)
	}
	a.present += float64(len(keys))
	a.absent += float64(len(absent))
}

// measureFHT fills f with keys and looks up the keys and the absent
// keys: Song's summary measured with the table it was designed for.
func (a *simTally) measureFHT(f *FHT, keys, absent []hashing.Hash128) error {
	f.Clear()
	for _, h := range keys {
		if err := f.Insert(h, h.Lo); err != nil {
			return err
		}
	}
	lost := 0
	for _, h := range keys {
		r := f.Lookup(h)
		if !r.Found {
			lost++
		}
		a.touchedPresent += float64(r.Touched)
		a.itemsPresent += float64(r.Items)
	}
	f.ResetStats()
	for _, h := range absent {
		r := f.Lookup(h)
		a.touchedAbsent += float64(r.Touched)
		a.itemsAbsent += float64(r.Items)
	}
	a.falsePositives += float64(f.Stats().FalsePositives)
	crowded := uint64(0)
	for j, c := range f.Loads() {
		if j >= 2 {
			crowded += c
		}
	}
	a.typeFailures += float64(lost)
	a.crowded += float64(crowded)
	if crowded > 0 || lost > 0 {
		a.anyFailure++
	}
	a.present += float64(len(keys))
	a.absent += float64(len(absent))
	return nil
}

// measureSummary builds s over t and looks up the keys and the absent
// keys through it. It reports false when s could not be built.
func (a *simTally) measureSummary(t *Table, s Summary, keys, absent []hashing.Hash128) bool {
	if err := t.SetSummary(s); err != nil {
		a.anyFailure++
		return false
	}
	t.ResetStats()
	for _, h := range keys {
		t.Lookup(h)
	}
	st := t.Stats()
	a.typeFailures += float64(st.TypeFailures)
	a.touchedPresent += float64(st.Touched)
	if st.TypeFailures > 0 {
		a.anyFailure++
	}
	t.ResetStats()
	for _, h := range absent {
		t.Lookup(h)
	}
	st = t.Stats()
	a.falsePositives += float64(st.FalsePositives)
	a.touchedAbsent += float64(st.Touched)
	a.present += float64(len(keys))
	a.absent += float64(len(absent))
	return true
}

// figures is the tally as the measured Figures of a summary of kind k
// and the given bits, for n items and nt trials.
func (a simTally) figures(k Kind, bits, n uint64, nt float64) Figures {
	return Figures{
		Kind: k, Bits: bits, BitsPerItem: float64(bits) / max(1, float64(n)),
		FalsePositive: ratio(a.falsePositives, a.absent), TypeFailure: ratio(a.typeFailures, a.present), AnyFailure: a.anyFailure / nt,
		TouchedPresent: ratio(a.touchedPresent, a.present), TouchedAbsent: ratio(a.touchedAbsent, a.absent),
		ItemsPresent: ratio(a.itemsPresent, a.present), ItemsAbsent: ratio(a.itemsAbsent, a.absent), CrowdedBuckets: a.crowded / nt,
	}
}

// simBits is the size Simulate reports for s: its Bits, except for
// interpolation search, whose Bits counts the items it holds at the
// moment: it is reported for the plan's n items.
func simBits(s Summary, n uint64) uint64 {
	if is, ok := s.(*Interp); ok {
		return is.bitsFor(n)
	}
	return s.Bits()
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
