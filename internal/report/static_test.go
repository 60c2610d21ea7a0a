package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

func TestStaticReport(t *testing.T) {
	r, err := NewStaticReport(100000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 6 || !strings.HasPrefix(r.Rows[0].Filter, "ribbon") || !strings.HasPrefix(r.Rows[1].Filter, "binary fuse (3-wise") ||
		!strings.HasPrefix(r.Rows[2].Filter, "binary fuse (4-wise") || r.Fuse3.Arity != 3 || r.Fuse4.Arity != 4 {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, row := range r.Rows {
		if row.Rate > r.P || row.TimesBound < 1 {
			t.Errorf("%s: rate %g, × %g", row.Filter, row.Rate, row.TimesBound)
		}
	}
	if r.Rows[0].TimesBound > 1.06 || r.Rows[3].TimesBound < 1.44 {
		t.Errorf("ribbon × %g, classic × %g", r.Rows[0].TimesBound, r.Rows[3].TimesBound)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "6.644 bits per key") {
		t.Errorf("%v\n%s", err, b.String())
	}
	if _, err := NewStaticReport(0, 0.01); !errors.Is(err, params.ErrInvalid) {
		t.Errorf("n = 0: %v", err)
	}
	// A p below the ribbon's 2^-32 is refused with that bound, not with
	// the blocked layout's (p = 3.36e-74 for one key).
	if _, err := NewStaticReport(1, 1e-80); err == nil || !strings.Contains(err.Error(), "below 2^-32") {
		t.Errorf("p = 1e-80: %v, want the ribbon's bound 2^-32", err)
	}
}
