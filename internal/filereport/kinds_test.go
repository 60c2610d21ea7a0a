package filereport_test

import (
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
