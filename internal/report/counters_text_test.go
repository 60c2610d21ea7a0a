package report_test

import (
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
)

// Counter sizing for 1000 keys in 10^4 counters, without a simulation.
func ExampleCounterReport_WriteText() {
	r, err := report.NewCounterReport(10000, 1000, 0, 0, 1, 0)
	if err != nil {
		panic(err)
	}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// counting filter: n = 1000 keys, m = 10000 counters, k = 7 (mean count k·n/m = 0.7000)
	//
	// expected maximum count   6.934  (Fan et al.'s asymptote)
	// simulated maximum count  -      (not simulated: --trials 0, or beyond 2^25 counters or insertions)
	//
	// bits  overflows at  log10 Pr, survey  log10 Pr, at load
	// 2                4              2.69               2.71
	// 3                8             -1.02              -0.99
	// 4               16            -10.86             -10.80
	// 5               32            -35.35             -35.22
	// 6               64            -93.98             -93.71
	// 7              128           -230.48            -229.96
	// 8              256           -542.03            -540.98
	// 9              512          -1242.19           -1240.10
	// 10            1024          -2796.63           -2792.45
	// 11            2048          -6213.77           -6205.41
	// 12            4096         -13664.55          -13647.83
	// 13            8192         -29799.14          -29765.71
	// 14           16384         -64534.36          -64467.49
	// 15           32768        -138936.86         -138803.13
	// 16           65536        -297606.02         -297338.56
	//
	// log10 of the bounds on Pr(any counter ≥ j): survey m·(1.885/j)^j, at load m·(e·k·n/(j·m))^j; 0 or more bounds nothing.
	// k·n/m = 0.7000 is above ln 2: the survey's form assumes k ≤ ln2·m/n and does not bound this filter.
	// 4-bit counters overflow with probability below 10^-6 at this load.
}

func TestCounterReportWriteText(t *testing.T) {
	r, err := report.NewCounterReport(1000, 500, 3, 2, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"k = 3 (mean count k·n/m = 1.5000)", "(mean of 2 filters, seeds 7..8: ", "is above ln 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if r.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}
