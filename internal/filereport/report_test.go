package filereport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/ribbon"
)

// Describe a deletion filter read from a file.
func ExampleStructure() {
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: anyfile.Deletion, Query: params.Query{N: 100, P: 0.01}})
	if err != nil {
		fmt.Println(err)
		return
	}
	b.Add([]byte("a"))
	b.Add([]byte("b"))
	f, _, err := b.Finish()
	if err != nil {
		fmt.Println(err)
		return
	}
	if d, ok := anyfile.As[*counting.DeletionFilter](f); ok {
		d.Remove([]byte("a"))
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		fmt.Println(err)
		return
	}
	g, err := anyfile.Read(&buf, anyfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := filereport.Structure(g, "keys.bf")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.File, r.Type, r.HashScheme, r.Deletion.Layout, r.Deletion.Added, "added,", r.Deletion.Removed, "removed")
	// Output:
	// keys.bf deletion xxh3 blocked 2 added, 1 removed
}

func readBack(t *testing.T, b []byte) *anyfile.File {
	t.Helper()
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReports(t *testing.T) {
	cf := counting.MustNew(counting.Config{N: 100, P: 0.01, Width: 4})
	for range 3 {
		cf.AddString("x")
	}
	r := filereport.NewCountingReport(cf)
	if r.CounterWidth != 4 || r.MaxCount != 15 || len(r.Histogram) < 2 || r.Histogram[len(r.Histogram)-1].Value != 3 || r.OverflowBound > 1e-6 {
		t.Errorf("counting report %+v", r)
	}
	base := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, M: 1 << 14, K: 4})
	next := base.Clone()
	next.AddString("new")
	next.SetCount(1)
	delta, err := digest.Diff(&digest.Digest{Bloom: base}, &digest.Digest{Bloom: next, Sequence: 1}, digest.Raw)
	if err != nil {
		t.Fatal(err)
	}
	df := readBack(t, delta)
	dr, err := filereport.Delta(df, "d")
	if err != nil || dr.ChangedBits == 0 || dr.ChangedBits > 4 || dr.Sequence != 1 || dr.Target != "bloom" || dr.Type != "delta" {
		t.Errorf("delta report %+v, %v", dr, err)
	}
	if _, err := filereport.Structure(df, "d"); err == nil {
		t.Error("a delta has a StructureReport")
	}
	if _, err := filereport.Delta(new(anyfile.File), "x"); err == nil {
		t.Error("an empty File has a DeltaReport")
	}
	pieces, err := digest.EncodePieces(&digest.Digest{Bloom: next}, digest.Fast, 512)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := anyfile.Read(bytes.NewReader(pieces), anyfile.Options{LazyPieces: true})
	if err != nil {
		t.Fatal(err)
	}
	pv, _ := anyfile.As[*digest.Pieces](pf)
	if p := filereport.NewPiecesReport(pv); p == nil || p.Count != 4 || p.PieceBytes != 512 || p.IndexBytes != 8+4*4 {
		t.Errorf("pieces report %+v", p)
	}
	if filereport.NewPiecesReport(nil) != nil {
		t.Error("a report of no pieces")
	}
	if filereport.SchemeName(200) != "scheme 200" || filereport.SchemeName(3) != "xxh3-64" || filereport.EntropyRatio(10, 0) != nil || *filereport.EntropyRatio(10, 5) != 2 {
		t.Error("SchemeName or EntropyRatio")
	}
	sr, err := filereport.Structure((&anyfile.File{}), "x")
	if err == nil {
		t.Errorf("an empty File reported: %+v", sr)
	}
	b, _ := json.Marshal(filereport.StructureReport{})
	if bytes.Contains(b, []byte("deletion")) || bytes.Contains(b, []byte("HashSchemeID")) {
		t.Errorf("JSON %s", b)
	}
}

// TestRibbonReport: a ribbon filter's report gives its keys, its rate and
// the formula of the rate, and its text compares the size with the bound.
func TestRibbonReport(t *testing.T) {
	keys := []string{"a", "b", "c", "http://www.example.com/"}
	rf, err := ribbon.BuildStrings(ribbon.Config{Rate: 0.01, Seed: 9}, keys)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := rf.MarshalBinary()
	r, err := filereport.Structure(readBack(t, b), "x")
	if err != nil || r.Ribbon == nil || r.Ribbon.Keys != 4 || r.Ribbon.FalsePositiveRate != rf.FalsePositiveRate() ||
		!strings.HasPrefix(r.Ribbon.RateFormula, "2^-r") {
		t.Fatalf("report %+v, %v", r.Ribbon, err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "× the bound") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
}
