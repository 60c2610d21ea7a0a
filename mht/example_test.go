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

// Song et al.'s fast hash table keeps each item in the bucket of its
// smallest counter, so a lookup reads one bucket; the same counters laid
// over a multilevel table, which places an item in the first empty bucket,
// name the wrong sub-table for many keys.
func ExampleFHT() {
	p, _ := mht.DefaultPlan(10000)
	f, _ := mht.NewFHT(mht.FHTConfig{Sizes: p.Sizes, CounterBits: 4})
	t, _ := mht.New(mht.Config{Sizes: p.Sizes})
	s, _ := mht.NewSong(mht.SongConfig{Sizes: p.Sizes, CounterBits: 4})
	t.SetSummary(s)
	for i := range 10000 {
		key := fmt.Sprint("key-", i)
		f.InsertString(key, uint64(i))
		t.InsertString(key, uint64(i))
	}
	for i := range 10000 {
		key := fmt.Sprint("key-", i)
		f.GetString(key)
		t.GetString(key)
	}
	fs, ts := f.Stats(), t.Stats()
	fmt.Printf("Song's table: %d of %d found, %.4f buckets and %.4f items read per key, %d relocations\n",
		fs.Hits, fs.Lookups, fs.TouchedPerLookup(), float64(fs.Items)/float64(fs.Lookups), f.Relocations())
	fmt.Printf("its counters on a multilevel table: %.4f of keys mistyped, %.4f buckets read per key\n",
		float64(ts.TypeFailures)/float64(ts.Lookups), ts.TouchedPerLookup())
	// Output:
	// Song's table: 10000 of 10000 found, 1.0000 buckets and 1.0268 items read per key, 1815 relocations
	// its counters on a multilevel table: 0.1555 of keys mistyped, 1.1839 buckets read per key
}
