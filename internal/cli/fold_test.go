package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// TestFoldDefaultBuilds folds filters built with the default sizing to
// 1/2, 1/4, 1/8 and 1/16 of their size with "fold --to": every key stays
// present, and the false-positive rate measured on keys never added
// agrees with the model's for the folded shape at the recorded count
// within a binomial margin (fixed keys, so the run is repeatable).
func TestFoldDefaultBuilds(t *testing.T) {
	dir := t.TempDir()
	const trials = 100_000
	for _, c := range []struct {
		n      int
		p      string
		layout string
	}{
		{1000, "0.01", "blocked"}, {20_000, "0.01", "blocked"}, {200_000, "0.001", "blocked"},
		{50_000, "0.0001", "blocked"}, {30_000, "0.01", "classic"}, {30_000, "0.001", "partitioned"},
		{100_000, "0.01", "paged"},
	} {
		name := fmt.Sprintf("%s-n%d-p%s", c.layout, c.n, c.p)
		keys, lines := keyLines(name, c.n)
		in := writeFile(t, filepath.Join(dir, name+".txt"), lines)
		full := filepath.Join(dir, name+".bf")
		ok(t, "", "build", "-n", fmt.Sprint(c.n), "-p", c.p, "--layout", c.layout, "-o", full, in)
		m := readFilter(t, full).M()
		for _, div := range []uint64{2, 4, 8, 16} {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d.bf", name, div))
			ok(t, "", "fold", "-q", "--to", fmt.Sprint(m/div), "-o", out, full)
			f := readFilter(t, out)
			if f.M() != m/div {
				t.Fatalf("%s folded to 1/%d: %d bits, want %d", name, div, f.M(), m/div)
			}
			for _, k := range keys {
				if !f.ContainsString(k) {
					t.Fatalf("%s folded to 1/%d: false negative %q", name, div, k)
				}
			}
			fp := 0
			for i := range trials {
				if f.ContainsString(fmt.Sprintf("absent-%s-%d", name, i)) {
					fp++
				}
			}
			// The measured rate against the filter's own (from its bits):
			// a binomial margin. The filter's against the model's at the
			// recorded count: the bits of one filter scatter around the
			// model's expectation, more so in few blocks (1000 keys
			// folded to 1/16 leave 2 blocks), hence the 4% relative slack.
			got, bitsRate := float64(fp)/trials, f.FalsePositiveRate()
			if margin := 5*math.Sqrt(bitsRate*(1-bitsRate)/trials) + 1.0/trials; math.Abs(got-bitsRate) > margin {
				t.Errorf("%s folded to 1/%d (m = %d, k = %d): false-positive rate %.5f measured, %.5f from the bits ± %.5f", name, div, f.M(), f.K(), got, bitsRate, margin)
			}
			want := f.Shape().FalsePositive(uint64(c.n))
			if math.Abs(bitsRate-want) > 0.04*want {
				t.Errorf("%s folded to 1/%d (m = %d, k = %d): false-positive rate %.5f from the bits, model %.5f", name, div, f.M(), f.K(), bitsRate, want)
			}
		}
	}
}

// readFilter decodes a raw-codec filter file.
func readFilter(t *testing.T, path string) *bloom.Filter {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bloom.Decode(b, envelope.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// TestBuildFolds checks --folds: more headroom on request, none with 0,
// its range, and its refusal for kinds that do not fold.
func TestBuildFolds(t *testing.T) {
	dir := t.TempDir()
	_, lines := keyLines("k", 5000)
	in := writeFile(t, filepath.Join(dir, "keys.txt"), lines)
	for _, c := range []struct {
		folds string
		min   int
	}{{"", 4}, {"7", 7}, {"0", 0}} {
		out := filepath.Join(dir, "f"+c.folds+".bf")
		args := []string{"build", "-n", "5000", "-o", out, in}
		if c.folds != "" {
			args = append(args, "--folds", c.folds)
		}
		ok(t, "", args...)
		r := inspectJSON(t, out)
		if r.Folds < c.min {
			t.Errorf("--folds %q: inspect says %d folds, want ≥ %d", c.folds, r.Folds, c.min)
		}
		if f := readFilter(t, out); f.Folds() != r.Folds {
			t.Errorf("--folds %q: inspect %d, filter %d", c.folds, r.Folds, f.Folds())
		}
	}
	for _, c := range [][]string{
		{"build: --folds must be 0..32", "--folds", "33"},
		{"build: --folds does not apply to a counting filter", "--counting", "--folds", "5"},
	} {
		args := append([]string{"build", "-n", "10", "-o", filepath.Join(dir, "x.bf"), in}, c[1:]...)
		if r := bc(t, "", args...); r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+c[0]) {
			t.Errorf("bloomcast %q: exit %d, stderr %q, want exit 2 and %q", args, r.code, r.stderr, c[0])
		}
	}
}
