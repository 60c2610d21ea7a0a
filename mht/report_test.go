package mht_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/mht"
)

func TestBuildHashes(t *testing.T) {
	keys := []string{"a", "b", "a", "c"}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, 7)
	}
	tab, err := mht.BuildHashes(mht.Config{Sizes: []uint64{8, 4}, Seed: 7}, hs, []uint64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tab.Get(tab.HashString("a")); !ok || v != 3 || tab.Len() != 3 {
		t.Errorf("a = %d, %v; %d items", v, ok, tab.Len())
	}
	// Two buckets hold two items; the third meets a crisis.
	_, err = mht.BuildHashes(mht.Config{Sizes: []uint64{1, 1}}, []hashing.Hash128{hs[0], hs[1], hs[3]}, []uint64{1, 2, 3})
	var ie *mht.InsertError
	if !errors.As(err, &ie) || !errors.Is(err, mht.ErrCrisis) || ie.Index != 2 || ie.Items != 2 || ie.Buckets != 2 {
		t.Fatalf("crisis: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "item 2: mht: crisis") || !strings.HasSuffix(err.Error(), ", after 2 items in 2 buckets") {
		t.Errorf("message %q", err)
	}
	if _, err := mht.BuildHashes(mht.Config{}, hs, []uint64{1}); !errors.Is(err, mht.ErrConfig) {
		t.Errorf("lengths differ: %v", err)
	}
	if _, err := mht.BuildHashes(mht.Config{}, nil, nil); !errors.Is(err, mht.ErrConfig) {
		t.Errorf("no sizes: %v", err)
	}
}

func TestNewReport(t *testing.T) {
	p, err := mht.DefaultPlan(2000)
	if err != nil {
		t.Fatal(err)
	}
	p.Kinds = []mht.Kind{mht.KindSF, mht.KindMBF}
	c, err := p.Calculate()
	if err != nil {
		t.Fatal(err)
	}
	r := mht.NewReport(p, c, nil)
	if r.N != 2000 || len(r.Levels) != 5 || r.Levels[0].Expected != c.Occupancy.Levels[0].Placed || len(r.Calculated) != 2 || r.Crises != nil {
		t.Fatalf("%+v", r)
	}
	if b, _ := json.Marshal(r); strings.Contains(string(b), "measured") {
		t.Errorf("a calculation's JSON has measured figures: %s", b)
	}
	m, err := p.Simulate(3, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	r = mht.NewReport(p, c, &m)
	if r.Trials != 3 || *r.Crises != m.Crises || r.Levels[0].Measured != m.Levels[0].Mean || len(r.Measured) != 2 || r.MeasProbe == nil {
		t.Errorf("%+v", r)
	}
	if got := p.BucketsPerItem(); got != 5.8125 {
		t.Errorf("buckets per item %g", got)
	}
}

// A table built from key-value entries, as "bloomcast mht build" builds
// one from KEY<TAB>VALUE lines: a key given twice keeps its last value.
func ExampleBuildHashes() {
	keys := []string{"alpha", "beta", "gamma", "beta"}
	values := []uint64{1, 2, 3, 20}
	c := mht.Config{First: 8, Levels: 3, Seed: 1}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, c.Seed)
	}
	t, err := mht.BuildHashes(c, hs, values)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, ok := t.Get(t.HashString("beta"))
	fmt.Println(t.Len(), v, ok)
	// Output:
	// 3 20 true
}
