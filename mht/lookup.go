package mht

import "github.com/bloomcast/bloomcast/hashing"

// Outcome classifies a lookup.
// The zero value is Miss.
type Outcome uint8

// Outcomes.
const (
	// Miss: the key is absent and the summary said so (or, without a
	// summary, every sub-table was probed).
	Miss Outcome = iota
	// Hit: the key was in the bucket the summary named (or, without a
	// summary, found by probing).
	Hit
	// FalsePositive: the key is absent but the summary named a sub-table.
	FalsePositive
	// TypeFailure: the key is present in another sub-table than the one
	// the summary named; the fallback found it.
	TypeFailure
)

func (o Outcome) String() string {
	switch o {
	case Miss:
		return "miss"
	case Hit:
		return "hit"
	case FalsePositive:
		return "false positive"
	case TypeFailure:
		return "type failure"
	}
	return "outcome(?)"
}

// Result is what a lookup found and what it cost.
// The zero value is a miss that read no bucket.
type Result struct {
	Value   uint64
	Found   bool
	Type    int     // the sub-table holding the key (1..d), 0 if absent
	Touched int     // buckets of the table read
	Outcome Outcome // how the summary did
	// Items is the number of items in the bucket read by an [FHT] lookup,
	// whose buckets hold lists; a [Table] lookup leaves it 0.
	Items int
}

// Stats accumulates the lookups through [Table.Lookup] and [Table.Get]
// (or [FHT.Lookup] and [FHT.Get]). The zero value counts no lookup.
type Stats struct {
	Lookups        uint64 // lookups
	Hits           uint64 // lookups that found their key
	Touched        uint64 // buckets read, in all
	FalsePositives uint64 // absent keys the summary called present
	TypeFailures   uint64 // present keys the summary put in the wrong sub-table
	Items          uint64 // items in the buckets read, in all ([FHT] only)
}

// TouchedPerLookup returns the mean number of buckets a lookup read.
func (s Stats) TouchedPerLookup() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.Touched) / float64(s.Lookups)
}

// Stats returns the lookup statistics since the table was made or
// ResetStats was called.
func (t *Table) Stats() Stats { return t.stats }

// ResetStats zeroes the lookup statistics.
func (t *Table) ResetStats() { t.stats = Stats{} }

// Lookup finds the key whose hash is h. With a summary it reads the one
// bucket the summary names, and the other sub-tables only if the key is
// not there; without one it probes the sub-tables in order ([Table.Probe]).
// It allocates nothing and records the lookup in [Table.Stats].
func (t *Table) Lookup(h hashing.Hash128) Result {
	var r Result
	if t.summary == nil {
		r = t.Probe(h)
	} else {
		r = t.viaSummary(h)
	}
	s := &t.stats
	s.Lookups++
	s.Touched += uint64(r.Touched)
	switch r.Outcome {
	case Hit:
		s.Hits++
	case TypeFailure:
		s.Hits++
		s.TypeFailures++
	case FalsePositive:
		s.FalsePositives++
	}
	return r
}

func (t *Table) viaSummary(h hashing.Hash128) Result {
	typ := t.summary.Type(h)
	if typ < 1 || typ > len(t.levels) {
		return Result{Outcome: Miss}
	}
	l := &t.levels[typ-1]
	b := bucketIn(h, typ-1, l.m)
	if l.live(b, h) {
		return Result{Value: l.items[b].val, Found: true, Type: typ, Touched: 1, Outcome: Hit}
	}
	// The summary was wrong: look everywhere else.
	r := Result{Touched: 1, Outcome: FalsePositive}
	p := hashing.NewProbes(h)
	for i := range t.levels {
		l := &t.levels[i]
		v := p.Next()
		if i == typ-1 {
			continue
		}
		b := hashing.Reduce(v, l.m)
		r.Touched++
		if l.live(b, h) {
			r.Value, r.Found, r.Type, r.Outcome = l.items[b].val, true, i+1, TypeFailure
			return r
		}
	}
	return r
}

// Probe is the plain d-choice lookup: it reads h's bucket in T1, T2, …
// until it finds the key, ignoring the summary and the statistics.
func (t *Table) Probe(h hashing.Hash128) Result {
	p := hashing.NewProbes(h)
	for i := range t.levels {
		l := &t.levels[i]
		b := hashing.Reduce(p.Next(), l.m)
		if l.live(b, h) {
			return Result{Value: l.items[b].val, Found: true, Type: i + 1, Touched: i + 1, Outcome: Hit}
		}
	}
	return Result{Touched: len(t.levels), Outcome: Miss}
}

// Get returns the value stored under the key whose hash is h, through
// Lookup.
func (t *Table) Get(h hashing.Hash128) (uint64, bool) {
	r := t.Lookup(h)
	return r.Value, r.Found
}

// GetString returns the value stored under key.
func (t *Table) GetString(key string) (uint64, bool) { return t.Get(t.HashString(key)) }
