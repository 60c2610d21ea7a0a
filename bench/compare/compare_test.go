package compare

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunEndToEnd runs the whole harness on a small case: every contender
// must find all its members, stay near its target rate, report a sane size
// and sane timings, and the report must render.
func TestRunEndToEnd(t *testing.T) {
	// Passes of about a millisecond: in passes of tens of microseconds
	// the thread's CPU clock and the wall clock disagree by more than the
	// pass (seen on a KVM guest), which would fail checkTimings.
	const n, p = 50_000, 0.01
	rep, err := Run(Config{Ns: []int{n}, Ps: []float64{p}, Reps: 2, MinQ: 20_000, MaxQ: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || len(rep.Cases[0].Results) != len(Contenders()) {
		t.Fatalf("got %d cases, want 1 with a result per contender", len(rep.Cases))
	}
	for _, r := range rep.Cases[0].Results {
		checkTimings(t, r)
		if r.Floor {
			continue
		}
		checkAnswers(t, r)
	}
	checkBatchRows(t, rep)
	checkRendering(t, rep)
}

func checkTimings(t *testing.T, r Result) {
	t.Helper()
	for name, tm := range map[string]Timing{"add": r.Add, "hit": r.Hit, "miss": r.Miss} {
		if len(tm.Samples) != 2 || !(tm.Median > 0 && tm.Median < 1e5) {
			t.Errorf("%s %s: %d samples, median %g ns/key", r.Name, name, len(tm.Samples), tm.Median)
		}
		// One thread's CPU time cannot much exceed the elapsed time.
		if len(tm.WallSamples) != 2 || tm.Median > 1.2*tm.WallMedian+1 {
			t.Errorf("%s %s: CPU %g ns/key, wall %g ns/key", r.Name, name, tm.Median, tm.WallMedian)
		}
	}
}

func checkAnswers(t *testing.T, r Result) {
	t.Helper()
	if r.FalseNegatives != 0 {
		t.Errorf("%s: %d false negatives", r.Name, r.FalseNegatives)
	}
	// 20,000 queries at rate ≥ 0.4% expect ≥ 78 false positives, so twice
	// the target is many standard deviations away for a correct filter.
	if r.Rate > 2*r.Target || r.FalsePositives == 0 {
		t.Errorf("%s: measured rate %g (%d false positives) for target %g", r.Name, r.Rate, r.FalsePositives, r.Target)
	}
	if !(r.BitsPerKey > 1 && r.BitsPerKey < 64) {
		t.Errorf("%s: %g bits/key", r.Name, r.BitsPerKey)
	}
}

func checkBatchRows(t *testing.T, rep *Report) {
	t.Helper()
	for _, r := range rep.Cases[0].Results {
		isBloomcast := strings.HasPrefix(r.Name, "bloomcast ") && r.Name != NameRibbon
		if hasBatch := r.BatchHit != nil && r.BatchMiss != nil; hasBatch != isBloomcast {
			t.Errorf("%s: batch timings present = %v", r.Name, hasBatch)
		}
	}
}

func checkRendering(t *testing.T, rep *Report) {
	t.Helper()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range Contenders() {
		if !strings.Contains(md.String(), "| "+c.Name+" |") {
			t.Errorf("markdown has no row for %s", c.Name)
		}
	}
	// At n = 50 000 only the checks that apply at every n are present: 5
	// against holiman, 4 rate ratios, 1 size ratio, and 9 against blobloom
	// for each of the blocked layout's two hashing schemes (add, hit, miss
	// and bits/key at each of its two sizings, and the rate at the blocked
	// layout's bits).
	if got := len(Checks(rep)); got != 28 {
		t.Errorf("got %d checks, want 28", got)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil || len(back.Cases) != 1 || len(back.Rows) != len(Contenders()) {
		t.Errorf("JSON does not round-trip: %v", err)
	}
}

func TestChecksAtTargetSizes(t *testing.T) {
	mk := func(name string, n int, ns float64) Result {
		tm := Timing{Median: ns}
		return Result{Name: name, N: n, P: 0.01, Target: 0.01, Rate: 0.01, BitsPerKey: 10,
			Add: tm, Hit: tm, Miss: tm, BatchHit: &tm, BatchMiss: &tm}
	}
	rep := &Report{}
	for _, n := range []int{SmallN, LargeN} {
		rep.Cases = append(rep.Cases, Case{N: n, P: 0.01, Results: []Result{
			mk(NameBlocked, n, 10), mk(NameClassic, n, 20), mk(NameBitsAndBlooms, n, 35), mk(NameHoliman, n, 20),
		}})
	}
	verdicts := map[string]string{}
	for _, c := range Checks(rep) {
		verdicts[c.What+"@"+group(c.N)] = c.Verdict()
	}
	want := map[string]string{
		"blocked vs bits-and-blooms: hit speedup@100,000":                      "PASS", // 3.5×
		"blocked vs bits-and-blooms: single hit speedup@20,000,000":            "PASS", // 3.5× ≥ 2.5
		"blocked vs bits-and-blooms: batch miss vs its single miss@20,000,000": "FAIL", // 3.5× < 4
		"classic vs holiman: add speedup@100,000":                              "PASS", // 1× ≥ 1
		"blocked bits/key ÷ classic bits/key@20,000,000":                       "PASS",
	}
	for k, v := range want {
		if verdicts[k] != v {
			t.Errorf("%s: got %q, want %q", k, verdicts[k], v)
		}
	}
}

func TestKeys(t *testing.T) {
	a, b := Keys(0, 1000), Keys(1000, 1000)
	seen := map[string]bool{}
	for _, k := range append(a, b...) {
		if len(k) != KeyLen || seen[k] {
			t.Fatalf("key %q: length %d or repeated", k, len(k))
		}
		seen[k] = true
	}
	if again := Keys(500, 1); again[0] != a[500] {
		t.Errorf("key 500 differs between calls: %q vs %q", again[0], a[500])
	}
	if !strings.HasPrefix(a[1], "https://cdn-01.example.com/assets/") || !strings.HasSuffix(a[1], ".js") {
		t.Errorf("unexpected key shape %q", a[1])
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}, {nil, 0}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %g, want %g", c.in, got, c.want)
		}
	}
}

func TestRateRatioBound(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want float64
	}{
		{10218, 10185, 1.042}, // blocked and blobloom at equal memory, 10^6 queries
		{100, 100, 1.424},
		{0, 100, 1},
		{100, 0, 1},
	} {
		if got := rateRatioBound(c.a, c.b); got != c.want {
			t.Errorf("rateRatioBound(%d, %d) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
	// 10,218 against 10,185 false positives is a ratio of 1.003: within
	// sampling error, so the check passes.
	rep := &Report{Cases: []Case{{N: SmallN, P: 0.01, Results: []Result{
		{Name: NameBlocked, N: SmallN, P: 0.01, Rate: 0.010218, FalsePositives: 10218},
		{Name: NameBlobloomEq, N: SmallN, P: 0.01, Rate: 0.010185, FalsePositives: 10185},
	}}}}
	found := false
	for _, c := range Checks(rep) {
		if c.What == "blocked vs "+NameBlobloomEq+": blocked's rate / its rate" {
			found = true
			if c.Verdict() != "PASS" {
				t.Errorf("%s = %g against %s: %s", c.What, c.Value, c.TargetString(), c.Verdict())
			}
		}
	}
	if !found {
		t.Error("no rate check for blobloom at equal memory")
	}
}

func TestMeasured(t *testing.T) {
	e := RunEnv{Env: Env{Date: "2026-01-02", GoVersion: "go1.25", OS: "linux", Arch: "amd64", CPU: "X", NumCPU: 2},
		GOMAXPROCS: 2, LoadStart: "0.1 0.2 0.3", LoadEnd: "1 2 3"}
	if got, want := e.Measured(true), "Measured 2026-01-02 with go1.25 on linux/amd64, X (2 CPUs, GOMAXPROCS 2), load average 0.1 0.2 0.3 at the start and 1 2 3 at the end"; got != want {
		t.Errorf("Measured(true) = %q, want %q", got, want)
	}
	if got, want := e.Measured(false), "Measured 2026-01-02 with go1.25 on linux/amd64, X (2 CPUs), load average 0.1 0.2 0.3 at the start and 1 2 3 at the end"; got != want {
		t.Errorf("Measured(false) = %q, want %q", got, want)
	}
}

func TestWriteReport(t *testing.T) {
	md := func(w io.Writer) error { _, err := io.WriteString(w, "table"); return err }
	js := func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }
	var b strings.Builder
	if err := WriteReport(&b, "-", md, js); err != nil || b.String() != "{}" {
		t.Errorf(`"-": %q, %v`, b.String(), err)
	}
	b.Reset()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteReport(&b, path, md, js); err != nil || b.String() != "table" {
		t.Errorf("file: %q, %v", b.String(), err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "{}" {
		t.Errorf("file holds %q, %v", got, err)
	}
}
