package mht

import (
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// Lookups through each summary, against the plain d-choice lookup that
// probes the sub-tables in turn and Go's map on the same keys. Half the
// lookups are of stored keys, half of absent ones.
//
//	go test -run '^$' -bench Lookup -count 5 ./mht
func benchKeys(n int) (stored, queries []hashing.Hash128) {
	stored = randomKeys(11, n)
	absent := randomKeys(12, n)
	queries = make([]hashing.Hash128, 0, 2*n)
	for i := range n {
		queries = append(queries, stored[i], absent[i])
	}
	return stored, queries
}

const benchN = 100_000

func BenchmarkLookup(b *testing.B) {
	p := testPlan(b, benchN)
	stored, queries := benchKeys(benchN)
	t := MustNew(Config{Sizes: p.Sizes})
	for _, h := range stored {
		if err := t.Insert(h, h.Lo); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("probe", func(b *testing.B) {
		found := 0
		for i := 0; b.Loop(); i++ {
			if t.Probe(queries[i%len(queries)]).Found {
				found++
			}
		}
		_ = found
	})
	for _, k := range Kinds() {
		s, _ := p.NewSummary(k)
		if err := t.SetSummary(s); err != nil {
			b.Fatal(err)
		}
		b.Run(k.String(), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				t.Lookup(queries[i%len(queries)])
			}
		})
	}
	t.SetSummary(nil)
	m := make(map[hashing.Hash128]uint64, benchN)
	for _, h := range stored {
		m[h] = h.Lo
	}
	b.Run("gomap", func(b *testing.B) {
		found := 0
		for i := 0; b.Loop(); i++ {
			if _, ok := m[queries[i%len(queries)]]; ok {
				found++
			}
		}
		_ = found
	})
}

func BenchmarkInsert(b *testing.B) {
	p := testPlan(b, benchN)
	stored, _ := benchKeys(benchN)
	t := MustNew(Config{Sizes: p.Sizes})
	s, _ := p.NewSummary(KindMBF)
	t.SetSummary(s)
	for i := 0; b.Loop(); i++ {
		if i%benchN == 0 {
			t.clear()
		}
		t.Insert(stored[i%benchN], 1)
	}
}
