package filereport

import (
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
)

// TestEveryKindReported: every kind anyfile names has a report, so a
// kind added there without one here fails.
func TestEveryKindReported(t *testing.T) {
	n := 0
	for k := anyfile.Kind(1); !strings.HasPrefix(k.String(), "Kind("); k++ {
		if reports[k] == nil {
			t.Errorf("%v has no report", k)
		}
		n++
	}
	if n != len(reports) {
		t.Errorf("%d kinds, %d reports", n, len(reports))
	}
}
