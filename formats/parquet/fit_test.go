package parquet

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the fold-to-fit table in docs/PARQUET.md")

// TestFitExact: the filter a Fit returns is bit for bit the filter of its
// size built from the same values, its rate meets p, and half its blocks
// would not.
func TestFitExact(t *testing.T) {
	for _, n := range []int{0, 1, 100, 5000, 70000} {
		b, err := NewFit(1<<20, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < n; v++ {
			b.InsertHash(HashInt64(int64(v)))
			b.InsertHash(HashInt64(int64(v))) // duplicates count once
		}
		if b.Distinct() != uint64(n) {
			t.Errorf("n=%d: Distinct %d", n, b.Distinct())
		}
		f := b.Filter()
		want, _ := NewBlocks(f.Blocks())
		for v := 0; v < n; v++ {
			want.InsertInt64(int64(v))
		}
		if !f.Equal(want) {
			t.Errorf("n=%d: the fit of %d blocks differs from the filter of that size", n, f.Blocks())
		}
		if FalsePositive(f.Blocks(), uint64(n)) > 0.01 || (f.Blocks() > 1 && FalsePositive(f.Blocks()/2, uint64(n)) <= 0.01) {
			t.Errorf("n=%d: %d blocks (rate %v) is not the smallest that meets 1%%", n, f.Blocks(), FalsePositive(f.Blocks(), uint64(n)))
		}
	}
	var zero Fit
	if zero.Filter() != nil || zero.Blocks() != 0 {
		t.Error("zero Fit")
	}
	if _, err := NewFit(10, 1); !errors.Is(err, ErrConfig) {
		t.Errorf("NewFit(10, 1): %v", err)
	}
	if FitBlocks(6, 1, 0.5) != 3 || FitBlocks(8, 1<<30, 0.01) != 8 {
		t.Error("FitBlocks")
	}
}

// fitTable computes the fold-to-fit table of docs/PARQUET.md: for each
// distinct count n (int64 values 0..n-1), the filter a Fit from the size
// of 10^7 values at 1% folds to, its modelled and measured rate (10^6
// absent values), against DuckDB's sizing at the exact count, at a
// guessed 10^6, and parquet-java's default maximum (1 MiB), which it uses
// when no NDV is given.
func fitTable(t *testing.T) string {
	t.Helper()
	const p = 0.01
	guess, _ := NDVBytes(1000000, p)
	var out strings.Builder
	fmt.Fprintf(&out, "| distinct values | fold-to-fit (rate: model, measured) | DuckDB at the exact NDV (rate) | guessed NDV 10^6, DuckDB's rule: %s | saved by fold-to-fit | parquet-java's default, 1 MiB (rate) | saved by fold-to-fit |\n", size(guess))
	fmt.Fprintf(&out, "|---:|---:|---:|---:|---:|---:|---:|\n")
	rate := func(bytes, n int) string {
		return fmt.Sprintf("%.2f%%", 100*FalsePositive(bytes/BlockBytes, uint64(n)))
	}
	saved := func(from, to int) string {
		return fmt.Sprintf("%s (%s%%)", size(from-to), strings.Replace(fmt.Sprintf("%.1f", 100*float64(from-to)/float64(from)), "-", "−", 1))
	}
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		b, err := NewFit(10000000, p)
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < n; v++ {
			b.InsertHash(HashInt64(int64(v)))
		}
		f := b.Filter()
		fp := 0
		const absent = 1000000
		for v := 0; v < absent; v++ {
			if f.CheckInt64(-1 - int64(v)) {
				fp++
			}
		}
		exact, _ := NDVBytes(uint64(n), p)
		fmt.Fprintf(&out, "| %d | %s (%s, %.2f%%) | %s (%s) | %s | %s | %s (%s) | %s |\n",
			n, size(f.Bytes()), rate(f.Bytes(), n), 100*float64(fp)/absent,
			size(exact), rate(exact, n), rate(guess, n), saved(guess, f.Bytes()),
			size(1<<20), rate(1<<20, n), saved(1<<20, f.Bytes()))
	}
	return out.String()
}

func size(b int) string {
	switch {
	case b < 0:
		return "−" + size(-b)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// TestFitTable checks the fold-to-fit table in docs/PARQUET.md; with
// -update it rewrites it:
//
//	go test ./formats/parquet -run TestFitTable -update
func TestFitTable(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 1.1·10^6 values and probes 4·10^6")
	}
	const path = "../../docs/PARQUET.md"
	const begin, end = "<!-- fit-table: go test ./formats/parquet -run TestFitTable -update -->\n", "<!-- end fit-table -->\n"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), begin)
	j := strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s: no fit-table markers", path)
	}
	table := fitTable(t)
	if *update {
		out := string(doc[:i+len(begin)]) + table + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := string(doc[i+len(begin) : j]); got != table {
		t.Errorf("%s's table is stale; run go test ./formats/parquet -run TestFitTable -update\nhave:\n%s\nwant:\n%s", path, got, table)
	}
}
