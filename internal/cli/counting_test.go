package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

func TestBuildCounting(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("key", 3000)
	for _, args := range [][]string{
		{"-n", "3000"},
		{},
		{"-m", "40000", "-k", "5", "--layout", "classic"},
		{"-n", "3000", "--width", "16", "--layout", "paged", "--block-bits", "4096"},
		{"-n", "3000", "--minimal-increase", "--width", "8"},
	} {
		out := filepath.Join(dir, "c.bcf")
		ok(t, lines, append([]string{"build", "--counting", "-o", out}, args...)...)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		f, err := counting.Decode(data, envelope.Limits{})
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if f.Len() != 3000 || f.Width() != inspectJSON(t, out).Counting.CounterWidth {
			t.Fatalf("%q: %v", args, f)
		}
		if strings.Contains(strings.Join(args, " "), "--minimal-increase") != f.MinimalIncrease() {
			t.Fatalf("%q: MinimalIncrease %t", args, f.MinimalIncrease())
		}
		// query reads counting filters through their bit view.
		if answers, code := queryAll(t, out, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
			t.Fatalf("%q: query of members: exit %d", args, code)
		}
		// The same shape as the Bloom filter build would make.
		bloomOut := filepath.Join(dir, "b.bf")
		plain := args
		if i := indexOf(plain, "--minimal-increase"); i >= 0 {
			plain = append(append([]string{}, plain[:i]...), plain[i+1:]...)
		}
		if i := indexOf(plain, "--width"); i >= 0 {
			plain = append(append([]string{}, plain[:i]...), plain[i+2:]...)
		}
		ok(t, lines, append([]string{"build", "--folds", "0", "-o", bloomOut}, plain...)...) // counting filters are not rounded for folding
		if b := inspectJSON(t, bloomOut); b.M != f.M() || b.K != f.K() || b.Layout != f.Layout().String() {
			t.Fatalf("%q: counting shape %v, bloom m=%d k=%d %s", args, f.Shape(), b.M, b.K, b.Layout)
		}
	}
	usageFails(t, "build: --width and --minimal-increase describe a counting filter", "build", "--width", "8", "-o", filepath.Join(dir, "x"))
	usageFails(t, "build: --width and --minimal-increase", "build", "--minimal-increase", "-o", filepath.Join(dir, "x"))
	usageFails(t, "build: --width \"5\": want 4, 8 or 16", "build", "--counting", "--width", "5", "-o", filepath.Join(dir, "x"))
}

// usageFails runs bloomcast and expects a usage error: exit status 2 and
// one line, the message then "(bloomcast CMD -h for usage)".
func usageFails(t *testing.T, prefix string, args ...string) {
	t.Helper()
	r := bc(t, "", args...)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+prefix) || !isUsageLine(r.stderr, args[0]) {
		t.Fatalf("bloomcast %q: exit %d, stderr %q, want a usage error starting %q", args, r.code, r.stderr, prefix)
	}
}

// isUsageLine reports whether stderr is one line ending with the pointer
// to cmd's usage.
func isUsageLine(stderr, cmd string) bool {
	return strings.Count(stderr, "\n") == 1 && strings.HasSuffix(stderr, " (bloomcast "+cmd+" -h for usage)\n")
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestAddRemoveCount(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.bcf")
	_, lines := keyLines("key", 1000)
	ok(t, lines, "build", "--counting", "-n", "2000", "-o", out)

	ok(t, "", "add", out, "x", "x", "y")
	ok(t, "x\nz\n", "add", out) // keys from standard input
	if got := ok(t, "", "count", out, "x", "y", "z", "absent"); got != "3\n1\n1\n0\n" {
		t.Fatalf("count: %q", got)
	}
	if got := ok(t, "x\nkey-5\n", "count", "-v", out); got != "x\t3\nkey-5\t1\n" {
		t.Fatalf("count -v from stdin: %q", got)
	}
	data, _ := os.ReadFile(out)
	r := bc(t, string(data), "count", "-", "x")
	if r.code != 0 || r.stdout != "3\n" {
		t.Fatalf("count from stdin: %+v", r)
	}

	// A refused removal leaves the file byte for byte as it was.
	before, _ := os.ReadFile(out)
	r = bc(t, "", "remove", out, "x", "never-added", "y")
	if r.code != 1 || !strings.Contains(r.stderr, "1 of 3 keys not present") || !strings.Contains(r.stderr, "never-added") {
		t.Fatalf("refused removal: %+v", r)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Fatal("a refused removal changed the file")
	}
	r = bc(t, "", "remove", out, "y", "y")
	if r.code != 1 {
		t.Fatalf("removing y twice (added once): %+v", r)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Fatal("a refused removal changed the file")
	}

	ok(t, "", "remove", out, "x", "y")
	ok(t, "x\n", "remove", out)
	if got := ok(t, "", "count", out, "x", "y", "z"); got != "1\n0\n1\n" {
		t.Fatalf("count after removals: %q", got)
	}
	if rep := inspectJSON(t, out); rep.Count != 1000+5-3 || rep.Type != "counting" {
		t.Fatalf("inspect after removals: count %d, type %s", rep.Count, rep.Type)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %d entries", len(entries))
	}
}

func TestCountingCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bloomFile := filepath.Join(dir, "b.bf")
	mi := filepath.Join(dir, "mi.bcf")
	ok(t, "a\nb\n", "build", "-o", bloomFile)
	ok(t, "a\nb\n", "build", "--counting", "--minimal-increase", "-o", mi)

	failsWith(t, bloomFile+": holds a Bloom filter, which cannot remove keys", "remove", bloomFile, "a")
	failsWith(t, bloomFile+": holds a Bloom filter, which does not count", "count", bloomFile, "a")
	failsWith(t, mi+": minimal-increase filters cannot remove keys", "remove", mi, "a")
	usageFails(t, "remove: FILTER is changed in place", "remove", "-", "a")
	usageFails(t, "add: missing FILTER", "add")
	usageFails(t, "count: missing FILTER", "count")
	usageFails(t, "count: the filter is read from standard input", "count", "-")

	// add works on Bloom filters too.
	ok(t, "", "add", bloomFile, "c")
	if answers, code := queryAll(t, bloomFile, []string{"a", "c"}); code != 0 || len(answers) != 2 {
		t.Fatalf("query after add: %q, exit %d", answers, code)
	}
	before, _ := os.ReadFile(mi)
	ok(t, "", "add", mi, "a")
	if got := ok(t, "", "count", mi, "a"); got != "2\n" {
		t.Fatalf("count in a minimal-increase filter: %q", got)
	}
	if after, _ := os.ReadFile(mi); bytes.Equal(before, after) {
		t.Fatal("add did not change the file")
	}
}

func TestInspectCounting(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.bcf")
	_, lines := keyLines("key", 2000)
	ok(t, lines+lines, "build", "--counting", "-q", "-n", "2000", "-o", out)
	r := inspectJSON(t, out)
	c := r.Counting
	if c == nil || c.CounterWidth != 4 || c.MaxCount != 15 || c.MinimalIncrease || c.Saturated != 0 {
		t.Fatalf("counting report %+v", c)
	}
	total, increments := uint64(0), uint64(0)
	for _, b := range c.Histogram {
		total += b.Counters
		increments += b.Value * b.Counters
	}
	if total != r.M || increments != 4000*uint64(r.K) {
		t.Fatalf("histogram covers %d counters (m = %d) and %d increments", total, r.M, increments)
	}
	if r.Count != 4000 || c.OverflowBound <= 0 || c.OverflowBound > 1e-6 {
		t.Fatalf("count %d, overflow bound %g", r.Count, c.OverflowBound)
	}
	text := ok(t, "", "inspect", out)
	for _, want := range []string{"structure            counting", "4-bit (max 15), minimum selection", "saturated            0 counters stuck at 15", "counter values        0:"} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect text lacks %q:\n%s", want, text)
		}
	}
	if want := counting.OverflowLog10(r.M, 4000, r.K, 16); c.OverflowBoundLog10 != want || math.Abs(c.OverflowBoundLog10-math.Log10(c.OverflowBound)) > 1e-9 {
		t.Errorf("overflow_bound_log10 %g, want %g = log10 %g", c.OverflowBoundLog10, want, c.OverflowBound)
	}
	// With 16-bit counters the bound underflows a float64; its logarithm
	// does not, and the text prints it as a power of ten.
	wide := filepath.Join(dir, "w.bcf")
	ok(t, lines, "build", "--counting", "--width", "16", "-q", "-n", "2000", "-o", wide)
	w := inspectJSON(t, wide).Counting
	if w.OverflowBound != 0 || w.OverflowBoundLog10 > -10000 || math.IsInf(w.OverflowBoundLog10, 0) {
		t.Errorf("16-bit counters: overflow bound %g, log10 %g", w.OverflowBound, w.OverflowBoundLog10)
	}
	if text := ok(t, "", "inspect", wide); !strings.Contains(text, fmt.Sprintf("overflow bound       10^%.2f = Pr(some counter reaches 65536)", w.OverflowBoundLog10)) {
		t.Errorf("inspect text of 16-bit counters:\n%s", text)
	}
	// A Bloom filter's JSON has no counting part.
	ok(t, lines, "build", "-o", filepath.Join(dir, "b.bf"))
	if raw := ok(t, "", "inspect", "--json", filepath.Join(dir, "b.bf")); strings.Contains(raw, "counting") {
		t.Errorf("bloom inspect mentions counting: %s", raw)
	}
}

// TestCountingKindsDoNotMix: a counting filter combines only with
// counting filters, and does not fold; both refusals leave OUT unwritten.
func TestCountingKindsDoNotMix(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.bcf")
	b := filepath.Join(dir, "b.bf")
	u := filepath.Join(dir, "u.bf")
	ok(t, "a\nb\n", "build", "--counting", "-m", "4096", "-k", "3", "-o", c)
	ok(t, "c\n", "build", "-m", "4096", "-k", "3", "-o", b)
	failsWith(t, b+": a Bloom filter, and "+c+" is a counting filter", "union", "-o", u, c, b)
	failsWith(t, c+": a counting filter cannot be folded", "fold", "-o", u, c)
	if _, err := os.Stat(u); !os.IsNotExist(err) {
		t.Fatalf("a refused command wrote OUT: %v", err)
	}
}
