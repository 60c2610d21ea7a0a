package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

func TestCalcCounting(t *testing.T) {
	var r report.CounterReport
	out := ok(t, "", "calc", "--counting", "-n", "2000", "-m", "1", "-m", "40000", "-k", "7", "--trials", "4", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.N != 2000 || r.M != 40000 || r.K != 7 || math.Abs(r.Load-0.35) > 1e-12 || !r.SurveyApplies {
		t.Fatalf("calc --counting: %+v", r)
	}
	if want := counting.ExpectedMaxCount(40000, 2000, 7); r.ExpectedMaxCount != want {
		t.Errorf("expected_max_count %g, want %g", r.ExpectedMaxCount, want)
	}
	res, err := sim.MaxCount(sim.MaxCountConfig{M: 40000, N: 2000, K: 7, Trials: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.SimulatedMax == nil || *r.SimulatedMax != res.Mean || r.Trials != 4 || r.Seed != 1 || len(r.SimulatedMaxima) != 4 {
		t.Errorf("simulated %v over %d trials (%v), sim.MaxCount says %g", r.SimulatedMax, r.Trials, r.SimulatedMaxima, res.Mean)
	}
	if len(r.Overflow) != 15 || r.Overflow[0].Bits != 2 || r.Overflow[14].Bits != 16 {
		t.Fatalf("overflow widths: %+v", r.Overflow)
	}
	// The JSON field names are the interface.
	for _, field := range []string{`"expected_max_count"`, `"simulated_max_count"`, `"overflow": [`, `"bits": 8`, `"log10_probability"`} {
		if !strings.Contains(out, field) {
			t.Errorf("JSON lacks %s", field)
		}
	}
	for _, w := range r.Overflow {
		j := 1 << w.Bits
		if w.OverflowsAt != uint64(j) || w.Log10P != counting.SurveyOverflowLog10(40000, j) || w.Log10AtLoad != counting.OverflowLog10(40000, 2000, 7, j) {
			t.Errorf("width %d: %+v", w.Bits, w)
		}
		if w.Bits == 8 && math.Abs(w.Log10P-math.Log10(40000)-(-546.03)) > 0.005 {
			t.Errorf("8-bit counters: survey log10 %g, want -546.03 + log10 m", w.Log10P)
		}
		if w.Bits == 16 && (math.IsInf(w.Log10P, 0) || w.Log10P > -290000) {
			t.Errorf("16-bit counters: %+v", w)
		}
	}
	if r.SmallestWidth != 4 {
		t.Errorf("smallest width %d", r.SmallestWidth)
	}

	text := ok(t, "", "calc", "-n", "1e5", "-m", "1e6", "--counting", "--trials", "0")
	for _, want := range []string{
		"counting filter: n = 100000 keys, m = 1000000 counters, k = 7 (mean count k·n/m = 0.7000)",
		"expected maximum count   8.858",
		"simulated maximum count  -      (not simulated",
		"8              256           -540.03",
		"k·n/m = 0.7000 is above ln 2",
		"4-bit counters overflow with probability below 10^-6",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("calc --counting text lacks %q:\n%s", want, text)
		}
	}
	// Beyond the simulation's limit, the trials shrink, then stop.
	defer func(w float64) { countingSimWork = w }(countingSimWork)
	countingSimWork = 50000
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "--counting", "-n", "3000", "-m", "40000", "-k", "4", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Trials != 4 || r.SimulatedMax == nil || len(r.SimulatedMaxima) != 4 {
		t.Errorf("n·k = 12000, limit 50000: %d trials, %v", r.Trials, r.SimulatedMaxima)
	}
	r = report.CounterReport{}
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "--counting", "-n", "30000", "-m", "400000", "-k", "4", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.SimulatedMax != nil || len(r.SimulatedMaxima) != 0 {
		t.Errorf("n·k = 120000, limit 50000: simulated %v", r.SimulatedMaxima)
	}
	if out := ok(t, "", "calc", "--counting", "-h"); !strings.HasPrefix(out, "usage: bloomcast calc --counting") {
		t.Errorf("calc --counting -h: %q", out)
	}
	for args, msg := range map[string]string{
		"--counting -n 100":      "calc: --counting needs -n N and -m M",
		"--counting -n 100 -m 1": "calc: --counting needs -m of at least 2",
		"--counting -n 1 -m 9 x": `calc: unexpected argument "x"`,
	} {
		r := bc(t, "", append([]string{"calc"}, strings.Fields(args)...)...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+msg) {
			t.Errorf("calc %s: exit %d, %q; want %q", args, r.code, r.stderr, msg)
		}
	}
}
