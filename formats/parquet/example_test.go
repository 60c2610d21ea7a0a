package parquet_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/bloomcast/bloomcast/formats/parquet"
)

// A standalone filter sized as DuckDB sizes one for 1000 distinct values
// at 1% false positives, filled, written as Parquet writers store it, and
// read back.
func Example() {
	f, err := parquet.NewNDV(1000, 0.01)
	if err != nil {
		panic(err)
	}
	f.InsertString("customer-4711")
	f.InsertInt64(4711)
	data, _ := f.MarshalBinary()

	g, err := parquet.Decode(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Blocks(), g.Bytes(), len(data))
	fmt.Println(g.CheckString("customer-4711"), g.CheckInt64(4711), g.CheckString("customer-9999"))
	// Output:
	// 64 2048 2064
	// true true false
}

// The row groups of a Parquet file written by DuckDB whose filter on
// column s may hold each value.
func ExampleFile_Probe() {
	data, err := os.ReadFile("testdata/duckdb.parquet")
	if err != nil {
		panic(err)
	}
	file, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		panic(err)
	}
	for _, c := range file.Filters()[:2] {
		fmt.Println(c.RowGroup, c.Column, c.Type, c.Length)
	}
	answers, err := file.Probe("s", []string{"k7", "k1100", "k5000"})
	if err != nil {
		panic(err)
	}
	for _, a := range answers {
		fmt.Println(a.Value, a.RowGroups)
	}
	// Output:
	// 0 s BYTE_ARRAY 2064
	// 0 i32 INT32 2064
	// k7 [0 1]
	// k1100 [1]
	// k5000 []
}

// Add and Contains are Insert and Check under the names every filter of
// the module answers to.
func ExampleFilter_Contains() {
	f, err := parquet.NewNDV(1000, 0.01)
	if err != nil {
		panic(err)
	}
	f.Add([]byte("customer-4711"))
	fmt.Println(f.Contains([]byte("customer-4711")), f.Check([]byte("customer-4711")))
	// Output: true true
}
