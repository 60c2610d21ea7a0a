package filereport_test

import (
	"path/filepath"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/internal/filereport"
)

// TestOf: Of gives each kind the report its own constructor gives, and a
// File that holds nothing none.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		kind anyfile.Kind
		want func(filereport.Report) bool
	}{
		{anyfile.Bloom, func(r filereport.Report) bool { _, ok := r.(*filereport.FilterReport); return ok }},
		{anyfile.Counting, func(r filereport.Report) bool {
			fr, ok := r.(*filereport.FilterReport)
			return ok && fr.Counting != nil
		}},
		{anyfile.Deletion, func(r filereport.Report) bool {
			sr, ok := r.(*filereport.StructureReport)
			return ok && sr.Deletion != nil
		}},
	} {
		r, err := filereport.Of(build(t, c.kind, "a", "b"), "x")
		if err != nil || !c.want(r) {
			t.Errorf("%v: %T, %v", c.kind, r, err)
		}
	}
	if r, err := filereport.Of(&anyfile.File{}, "x"); err == nil {
		t.Errorf("a File that holds nothing: %T", r)
	}
}

// TestStatic: a static digest's report gives the view's figures; the
// other kinds have none.
func TestStatic(t *testing.T) {
	f, err := anyfile.ReadFile(filepath.Join("..", "..", "digest", "testdata", "golden-static-full.bin"), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := filereport.Of(f, "s")
	sr, ok := r.(*filereport.StaticReport)
	if err != nil || !ok || sr.Sequence != 1 || sr.BaseSequence != 1 || sr.RibbonKeys != 200 || sr.FilterBits != 51100 ||
		sr.FalsePositiveRate <= 0 || sr.FalsePositiveRate > 2.0/256 || sr.Type != "static" {
		t.Errorf("report %+v, %v", r, err)
	}
	if _, err := filereport.Static(build(t, anyfile.Bloom, "a"), "x"); err == nil {
		t.Error("a Bloom filter has a StaticReport")
	}
}
