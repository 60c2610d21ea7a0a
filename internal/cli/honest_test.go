package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBuildRecordsDistinctKeys: a filter sized for 10^5 distinct keys
// from 8·10^5 lines (each key eight times) records 10^5 keys, so inspect
// predicts the target rate, not a rate for eight times the keys; union
// and intersect record an estimate, marked as one; fold keeps the count.
func TestBuildRecordsDistinctKeys(t *testing.T) {
	dir := t.TempDir()
	const n = 100_000
	keys, lines := keyLines("d", n)
	in := writeFile(t, filepath.Join(dir, "keys.txt"), strings.Repeat(lines, 8))
	a := filepath.Join(dir, "a.bf")
	ok(t, "", "build", "-n", fmt.Sprint(n), "-p", "0.01", "-o", a, in) // no warning: the keys fit
	r := inspectJSON(t, a)
	if r.Count != n || r.CountEstimated || r.PredictedFalsePositiveRate > 0.011 {
		t.Fatalf("count %d (estimated %t), predicted rate %g; want %d, exact, ≈ 0.01", r.Count, r.CountEstimated, r.PredictedFalsePositiveRate, n)
	}
	if text := ok(t, "", "inspect", a); !strings.Contains(text, fmt.Sprintf("%d keys, as recorded", n)) {
		t.Errorf("inspect text:\n%s", text)
	}

	// Fold keeps the tally: the folded filter holds the same keys.
	f := filepath.Join(dir, "f.bf")
	ok(t, "", "fold", "-q", "-o", f, a)
	if r := inspectJSON(t, f); r.Count != n || r.CountEstimated {
		t.Errorf("fold: count %d (estimated %t), want %d exact", r.Count, r.CountEstimated, n)
	}

	// Union and intersect: estimates from the bits, and said to be.
	b := filepath.Join(dir, "b.bf")
	ok(t, strings.Join(keys[n/2:], "\n")+"\nd-extra-1\nd-extra-2\n", "build", "-n", fmt.Sprint(n), "-p", "0.01", "-o", b)
	for _, c := range []struct {
		cmd  string
		want float64
	}{{"union", n + 2}, {"intersect", n / 2}} {
		out := filepath.Join(dir, c.cmd+".bf")
		ok(t, "", c.cmd, "-o", out, a, b)
		r := inspectJSON(t, out)
		if !r.CountEstimated || r.Saturated || math.Abs(float64(r.Count)-c.want) > 0.05*c.want {
			t.Errorf("%s: count %d (estimated %t, saturated %t), want ≈ %.0f, estimated", c.cmd, r.Count, r.CountEstimated, r.Saturated, c.want)
		}
		if text := ok(t, "", "inspect", out); !strings.Contains(text, "estimated from the bits (after a union or intersection)") {
			t.Errorf("%s: inspect text does not say the count is estimated:\n%s", c.cmd, text)
		}
		// The mark travels through the codecs.
		z := filepath.Join(dir, c.cmd+".z")
		ok(t, "", "compress", "-o", z, out)
		if rz := inspectJSON(t, z); !rz.CountEstimated || rz.Count != r.Count || rz.FormatVersion != 2 {
			t.Errorf("%s, compressed: count %d (estimated %t), format version %d", c.cmd, rz.Count, rz.CountEstimated, rz.FormatVersion)
		}
	}
}

// TestBuildDistinctBeyondBound lowers the bound on exact counting: past
// it, build records the estimate from the bits and marks it.
func TestBuildDistinctBeyondBound(t *testing.T) {
	defer func(v int) { maxExactDistinct = v }(maxExactDistinct)
	maxExactDistinct = 1000
	dir := t.TempDir()
	_, lines := keyLines("b", 5000)
	out := filepath.Join(dir, "f.bf")
	ok(t, lines+lines, "build", "-n", "5000", "-o", out)
	if r := inspectJSON(t, out); !r.CountEstimated || math.Abs(float64(r.Count)-5000) > 250 {
		t.Errorf("count %d (estimated %t), want ≈ 5000, estimated", r.Count, r.CountEstimated)
	}
}

// TestSaturatedFilter: -m 512 -k 3 on 10^5 keys fills the filter; build
// warns, and inspect says "saturated" where it printed an estimate.
func TestSaturatedFilter(t *testing.T) {
	dir := t.TempDir()
	_, lines := keyLines("s", 100_000)
	out := filepath.Join(dir, "s.bf")
	r := bc(t, lines, "build", "-m", "512", "-k", "3", "--layout", "classic", "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr, "bloomcast: warning: "+out+": 100.0% of the bits are set") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("build: exit %d, stderr %q; want one warning of a full filter", r.code, r.stderr)
	}
	if j := inspectJSON(t, out); !j.Saturated || j.Count != 100_000 {
		t.Errorf("inspect: saturated %t, count %d", j.Saturated, j.Count)
	}
	text := ok(t, "", "inspect", out)
	if !strings.Contains(text, "saturated: the filter has every bit set, so the bits no longer tell how many keys") {
		t.Errorf("inspect text does not say saturated:\n%s", text)
	}
	u := filepath.Join(dir, "u.bf")
	ok(t, "", "union", "-q", "-o", u, out, out)
	if text := ok(t, "", "inspect", u); !strings.Contains(text, "count                saturated: ") {
		t.Errorf("inspect of a saturated union does not say saturated for the count:\n%s", text)
	}
}

// TestBuildWarnings: no keys, -n 0, a rate far above the target and a
// nearly full filter each warn in one line and exit 0; --strict makes
// each an error (exit 2, nothing written); --quiet silences the warning
// but not --strict.
func TestBuildWarnings(t *testing.T) {
	dir := t.TempDir()
	_, some := keyLines("w", 3000)
	for _, c := range []struct {
		name, stdin, warning string
		args                 []string
	}{
		{"empty input", "", "no keys read: the filter is empty", []string{"-n", "100"}},
		{"-n 0", some, "-n 0 is no size: taken as no -n, so the filter is sized for the 3000 distinct keys read", []string{"-n", "0"}},
		{"-n 0 with -m -k", some, "-n 0 is no size: ignored, the shape is -m 100000 -k 4", []string{"-n", "0", "-m", "100000", "-k", "4"}},
		{"rate", some, "false-positive rate 0.3495 for the 3000 distinct keys read, above the target -p 0.001", []string{"-m", "8192", "-k", "4", "-p", "0.001", "--layout", "classic"}},
		{"full", some, "of the bits are set: the filter is nearly full", []string{"-m", "2048", "-k", "4", "--layout", "classic"}},
		{"squid -n 0", "http://a/\n", "-n 0 is no capacity", []string{"--squid", "-n", "0"}},
		{"squid empty", "", "no keys read: the digest is empty", []string{"--squid", "-n", "10"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".bf")
		args := append([]string{"build", "-o", out}, c.args...)
		r := bc(t, c.stdin, args...)
		if first, _, _ := strings.Cut(r.stderr, "\n"); r.code != 0 || !strings.HasPrefix(first, "bloomcast: warning: "+out+": ") || !strings.Contains(first, c.warning) {
			t.Errorf("%s: exit %d, stderr %q; want a warning %q", c.name, r.code, r.stderr, c.warning)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("%s: no output: %v", c.name, err)
		}
		if r := bc(t, c.stdin, append(args, "-q")...); r.code != 0 || r.stderr != "" {
			t.Errorf("%s -q: exit %d, stderr %q", c.name, r.code, r.stderr)
		}
		os.Remove(out)
		for _, extra := range [][]string{{"--strict"}, {"--strict", "--quiet"}} {
			r := bc(t, c.stdin, append(args, extra...)...)
			if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "bloomcast: "+out+": ") ||
				!strings.Contains(r.stderr, "(--strict: "+out+" not written)") {
				t.Errorf("%s %q: exit %d, stderr %q; want exit 2 and one line", c.name, extra, r.code, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s %q: output written", c.name, extra)
			}
		}
	}
	// A filter that fits its keys: no warning, --strict or not.
	ok(t, some, "build", "--strict", "-n", "3000", "-o", filepath.Join(dir, "fits.bf"))
}

// TestEmptyInputWarns: every command that builds from keys or entries
// says in one warning when it read none, and writes the empty structure
// (exit 0); -q silences it.
func TestEmptyInputWarns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		warning string
		args    []string
	}{
		{"no keys read: the set is empty", []string{"build", "--fpset", "-n", "10"}},
		{"no keys read: the filter is empty", []string{"build", "--scalable", "-n", "10"}},
		{"no keys read: the filter is empty", []string{"build", "--budget", "1000"}},
		{"no entries read: the filter is empty", []string{"bloomier", "build"}},
		{"no entries read: the table is empty", []string{"mht", "build"}},
	} {
		out := filepath.Join(dir, "out")
		args := append(slices.Clone(c.args), "-o", out)
		r := bc(t, "", args...)
		if r.code != 0 || r.stderr != "bloomcast: warning: "+out+": "+c.warning+"\n" {
			t.Errorf("%q: exit %d, stderr %q; want one warning %q", args, r.code, r.stderr, c.warning)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("%q: no output: %v", args, err)
		}
		if r := bc(t, "", append(args, "-q")...); r.code != 0 || r.stderr != "" {
			t.Errorf("%q -q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		os.Remove(out)
	}
}
