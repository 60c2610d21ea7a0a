package mht_test

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/mht"
)

// A table of four sub-tables with a multiple-Bloom-filter summary: a
// lookup reads one bucket.
func Example() {
	t, _ := mht.New(mht.Config{First: 3000, Levels: 4})
	s, _ := mht.NewMBF(mht.MBFConfig{Bits: []uint64{12000, 4096, 1024, 256}, K: []int{8, 10, 10, 10}})
	t.SetSummary(s)
	for i := range 1000 {
		t.InsertString(fmt.Sprint("key-", i), uint64(i))
	}
	r := t.Lookup(t.HashString("key-42"))
	fmt.Println(r.Value, r.Found, r.Touched)
	fmt.Println(t.Occupancy())
	// Output:
	// 42 true 1
	// [840 156 4 0]
}

// A crisis leaves the table as it was.
func ExampleTable_Insert() {
	t, _ := mht.New(mht.Config{Sizes: []uint64{2, 1}})
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if err := t.InsertString(k, 1); errors.Is(err, mht.ErrCrisis) {
			fmt.Println(k, "refused")
		}
	}
	fmt.Println(t.Len())
	// Output:
	// d refused
	// e refused
	// 3
}

// The calculator's figures beside measured ones.
func ExamplePlan_Simulate() {
	p, _ := mht.DefaultPlan(1000)
	p.Kinds = []mht.Kind{mht.KindMBF}
	c, _ := p.Calculate()
	m, _ := p.Simulate(10, 10000, 1)
	fmt.Printf("T1 holds %.0f (calculated) and %.0f (measured)\n", c.Occupancy.Levels[0].Placed, m.Levels[0].Mean)
	fmt.Printf("false positives %.4f (bound) and %.4f (measured)\n", c.Summaries[0].FalsePositive, m.Summaries[0].FalsePositive)
	// Output:
	// T1 holds 851 (calculated) and 842 (measured)
	// false positives 0.0031 (bound) and 0.0031 (measured)
}
