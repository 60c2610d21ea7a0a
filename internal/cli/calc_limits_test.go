package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
)

// TestCalcBeyondLimits: a rate that some layouts cannot reach within
// 2^62 bits leaves those out with a warning that names the bound, and the
// others answer; a query no layout answers is a usage error that names
// the bound.
func TestCalcBeyondLimits(t *testing.T) {
	r := bc(t, "", "calc", "-n", "1", "-p", "1e-300")
	if r.code != 0 {
		t.Fatalf("calc -n 1 -p 1e-300: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, l := range []string{"classic ", "partitioned "} {
		if !strings.Contains(r.stdout, "\n"+l) {
			t.Errorf("calc -n 1 -p 1e-300: no %s row:\n%s", l, r.stdout)
		}
	}
	warnings := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(warnings) != 2 || !strings.Contains(warnings[0], "warning: no blocked filter") || !strings.Contains(warnings[1], "warning: no paged filter") {
		t.Errorf("calc -n 1 -p 1e-300: stderr %q, want a warning for blocked and for paged", r.stderr)
	}
	for _, w := range warnings {
		if !strings.Contains(w, "want p of at least ") {
			t.Errorf("warning %q names no bound", w)
		}
	}
	if r := bc(t, "", "calc", "-n", "1", "-p", "1e-300", "-q"); r.code != 0 || r.stderr != "" {
		t.Errorf("calc -q: exit %d, stderr %q", r.code, r.stderr)
	}

	var rep report.SolveReport
	r = bc(t, "", "calc", "--json", "-q", "-n", "1", "-p", "1e-300")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Layouts) != 2 {
		t.Errorf("calc --json: %v, %d layouts, want 2: %s", err, len(rep.Layouts), r.stdout)
	}

	msg := failsWith(t, "calc: no classic filter of at most 2^62 bits reaches p = 0.01 for n = 18446744073709551615: want p of at least 0.982",
		"calc", "-n", "18446744073709551615", "-p", "0.01")
	if !isUsageLine(msg, "calc") {
		t.Errorf("calc -n 2^64-1: %q is not a usage line", msg)
	}
	failsWith(t, "calc: no blocked filter of at most 2^62 bits reaches p = 1e-80 for n = 1: want p of at least 3.36e-74",
		"calc", "--layout", "blocked", "-n", "1", "-p", "1e-80")
	ok(t, "", "calc", "--layout", "blocked", "-n", "1", "-p", "3.36e-74")
}
