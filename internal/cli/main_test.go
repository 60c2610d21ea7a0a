package cli

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
)

// result is what one in-process run of bloomcast printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// bc runs bloomcast in-process with stdin as standard input.
func bc(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return result{out.String(), errOut.String(), code}
}

// ok runs bloomcast and fails the test unless it succeeds silently on
// standard error.
func ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := bc(t, stdin, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("bloomcast %q: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// failsWith runs bloomcast, expects exit status 2 and one line on
// standard error starting with "bloomcast: " + prefix, and returns it.
func failsWith(t *testing.T, prefix string, args ...string) string {
	t.Helper()
	r := bc(t, "", args...)
	if r.code != 2 {
		t.Fatalf("bloomcast %q: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "bloomcast: "+prefix) {
		t.Fatalf("bloomcast %q: stderr %q, want one line starting %q", args, r.stderr, "bloomcast: "+prefix)
	}
	return r.stderr
}

// keyLines returns n distinct keys and the same as input lines.
func keyLines(prefix string, n int) ([]string, string) {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return keys, strings.Join(keys, "\n") + "\n"
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func inspectJSON(t *testing.T, path string) filereport.FilterReport {
	t.Helper()
	var r filereport.FilterReport
	if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", path)), &r); err != nil {
		t.Fatalf("inspect --json %s: %v", path, err)
	}
	return r
}

// queryAll queries every key and returns the answers.
func queryAll(t *testing.T, filter string, keys []string) (answers []string, code int) {
	t.Helper()
	r := bc(t, strings.Join(keys, "\n")+"\n", "query", "-q", filter)
	if r.stderr != "" {
		t.Fatalf("query %s: %s", filter, r.stderr)
	}
	return strings.Fields(r.stdout), r.code
}

func countAnswers(answers []string, want string) int {
	n := 0
	for _, a := range answers {
		if a == want {
			n++
		}
	}
	return n
}

func TestBuildFromFileAndStdin(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("key", 5000)
	others, _ := keyLines("other", 5000)
	input := writeFile(t, filepath.Join(dir, "keys.txt"), lines)
	fromFile := filepath.Join(dir, "file.bf")
	fromStdin := filepath.Join(dir, "stdin.bf")
	ok(t, "", "build", "-n", "5000", "-o", fromFile, input)
	ok(t, lines, "build", "-n", "5000", "-o", fromStdin)
	ok(t, lines, "build", "-n", "5000", "-o", filepath.Join(dir, "dash.bf"), "-")
	a, _ := os.ReadFile(fromFile)
	b, _ := os.ReadFile(fromStdin)
	c, _ := os.ReadFile(filepath.Join(dir, "dash.bf"))
	if len(a) == 0 || !bytes.Equal(a, b) || !bytes.Equal(a, c) {
		t.Fatal("the filters built from a file, from stdin and from - differ")
	}

	answers, code := queryAll(t, fromFile, keys)
	if code != 0 || countAnswers(answers, "maybe") != len(keys) {
		t.Errorf("members: exit %d, %d of %d maybe", code, countAnswers(answers, "maybe"), len(keys))
	}
	answers, code = queryAll(t, fromFile, others)
	if fp := countAnswers(answers, "maybe"); code != 1 || fp > 100 || len(answers) != len(others) {
		t.Errorf("non-members: exit %d, %d of %d maybe (want about 50)", code, fp, len(answers))
	}

	// Only the output file is left behind: the temporary file was renamed.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"dash.bf", "file.bf", "keys.txt", "stdin.bf"}; !slices.Equal(names, want) {
		t.Errorf("directory holds %q, want %q", names, want)
	}
}

func TestBuildLines(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.bf")
	ok(t, "alpha\r\n\n\nbeta\r\n\r\ngamma", "build", "-o", out, "--layout", "classic")
	if r := inspectJSON(t, out); r.Count != 3 || r.Layout != "classic" {
		t.Errorf("count %d, layout %s; want 3 keys (CR stripped, empty lines skipped), classic", r.Count, r.Layout)
	}
	if got := ok(t, "", "query", out, "alpha", "beta", "gamma"); got != "maybe\nmaybe\nmaybe\n" {
		t.Errorf("query: %q", got)
	}
	// "\r" alone is an empty key once stripped; "alpha\r" is alpha.
	if got := ok(t, "alpha\r\n", "query", "-v", out); got != "alpha\tmaybe\n" {
		t.Errorf("query -v from stdin: %q", got)
	}
}

func TestBuildSizing(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("k", 3000)
	// Duplicates do not count when the filter is sized from the keys.
	input := writeFile(t, filepath.Join(dir, "keys.txt"), lines+strings.Join(keys[:1000], "\n")+"\n")
	out := filepath.Join(dir, "f.bf")
	// Sized by params.Size, then rounded up for four folds (bloomcast
	// build --folds, default bloom.DefaultFolds).
	size := func(l params.Layout, n uint64, p float64) params.Shape {
		s, err := params.Size(l, n, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		return foldRounded(s)
	}
	for _, c := range []struct {
		args []string
		want params.Shape
	}{
		{[]string{"-n", "1e4", "-p", "0.001"}, size(params.Blocked, 10_000, 0.001)},
		{[]string{"-n", "10_000", "--layout", "classic"}, size(params.Classic, 10_000, 0.01)},
		{[]string{}, size(params.Blocked, 3000, 0.01)},
		{[]string{"-p", "1e-4", "--layout", "partitioned"}, size(params.Partitioned, 3000, 1e-4)},
		{[]string{"-m", "100000", "-k", "5", "--layout", "paged", "--block-bits", "4096"}, params.Shape{Layout: params.Paged, M: 131072, K: 5, BlockBits: 4096}},
		{[]string{"-m", "100000", "-k", "5", "--layout", "paged", "--block-bits", "4096", "--folds", "0"}, params.Shape{Layout: params.Paged, M: 102400, K: 5, BlockBits: 4096}},
		{[]string{"-m", "64000", "--layout", "classic"}, params.Shape{Layout: params.Classic, M: 64000, K: params.OptimalK(64000, 3000)}},
	} {
		ok(t, "", append(append([]string{"build", "-o", out}, c.args...), input)...)
		r := inspectJSON(t, out)
		got := params.Shape{Layout: params.Layout(0), M: r.M, K: r.K, BlockBits: r.BlockBits}
		if err := got.Layout.UnmarshalText([]byte(r.Layout)); err != nil {
			t.Fatal(err)
		}
		// 4000 lines, 3000 distinct keys: the count is of distinct keys.
		if got != c.want || r.Count != 3000 || r.CountEstimated {
			t.Errorf("build %q: %v with count %d (estimated %t), want %v with count 3000", c.args, got, r.Count, r.CountEstimated, c.want)
		}
	}
	// -n -k: the smallest m for that k.
	ok(t, "", "build", "-q", "-n", "3000", "-k", "4", "-o", out, input)
	if r := inspectJSON(t, out); r.K != 4 || r.PredictedFalsePositiveRate > 0.01*4000/3000*2 {
		t.Errorf("-n -k: k = %d, rate %g", r.K, r.PredictedFalsePositiveRate)
	}
}

func TestBuildWarnsWhenOverfull(t *testing.T) {
	dir := t.TempDir()
	_, lines := keyLines("k", 30000)
	r := bc(t, lines, "build", "-n", "10000", "-o", filepath.Join(dir, "f.bf"))
	if r.code != 0 || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "for the 30000 distinct keys read, above the target -p 0.01") || !strings.Contains(r.stderr, "give -n 30000 or more") {
		t.Errorf("exit %d, stderr %q; want a warning", r.code, r.stderr)
	}
	if r := bc(t, lines, "build", "-q", "-n", "10000", "-o", filepath.Join(dir, "f.bf")); r.stderr != "" {
		t.Errorf("-q: stderr %q", r.stderr)
	}
}

func TestBuildToStdout(t *testing.T) {
	dir := t.TempDir()
	r := bc(t, "a\nb\n", "build", "-o", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "BLMC") {
		t.Fatalf("build -o -: exit %d, stdout %q", r.code, r.stdout)
	}
	if got := ok(t, r.stdout, "query", "-", "a", "b"); got != "maybe\nmaybe\n" {
		t.Errorf("query - a b: %q", got)
	}
	path := writeFile(t, filepath.Join(dir, "f.bf"), r.stdout)
	if rep := inspectJSON(t, path); rep.Count != 2 {
		t.Errorf("count %d", rep.Count)
	}
}

func TestQueryExitCodes(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bf")
	ok(t, "in1\nin2\n", "build", "-n", "100", "-p", "1e-6", "-o", f)

	if r := bc(t, "", "query", f, "in1", "in2"); r.code != 0 || r.stdout != "maybe\nmaybe\n" {
		t.Errorf("all present: %+v", r)
	}
	if r := bc(t, "", "query", f, "in1", "out"); r.code != 1 || r.stdout != "maybe\nno\n" || r.stderr != "" {
		t.Errorf("one absent: %+v", r)
	}
	if r := bc(t, "", "query", "--keys", f, "in1", "out"); r.code != 1 || r.stdout != "in1\tmaybe\nout\tno\n" {
		t.Errorf("--keys: %+v", r)
	}
	if r := bc(t, "out\nin2\n", "query", f, "-v"); r.code != 1 || r.stdout != "out\tno\nin2\tmaybe\n" {
		t.Errorf("stdin, -v after FILTER: %+v", r)
	}
	// "--" ends the flags: "-v" is then a key.
	if r := bc(t, "", "query", f, "--", "-v"); r.code != 1 || r.stdout != "no\n" {
		t.Errorf("-- -v: %+v", r)
	}
	failsWith(t, filepath.Join(dir, "missing.bf")+": no such file or directory", "query", filepath.Join(dir, "missing.bf"), "x")
	corrupt := writeFile(t, filepath.Join(dir, "corrupt.bf"), "BLMC and then nonsense")
	failsWith(t, corrupt+": ", "query", corrupt, "x")
}

func TestInspectJSON(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("k", 20_000)
	f := writeFile(t, filepath.Join(dir, "keys.txt"), lines)
	out := filepath.Join(dir, "f.bf")
	ok(t, "", "build", "-n", "20000", "-p", "0.01", "--seed", "0x2a", "-o", out, f)

	raw := ok(t, "", "inspect", out, "--json")
	var fields map[string]any
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"file", "format_version", "type", "codec", "hash_scheme", "hash_scheme_id", "seed",
		"layout", "m", "k", "block_bits", "size_bytes", "encoded_bytes", "count", "set_bits", "fill_ratio",
		"estimated_count", "false_positive_rate", "predicted_false_positive_rate", "bits_per_key"} {
		if _, ok := fields[name]; !ok {
			t.Errorf("inspect --json lacks %q", name)
		}
	}

	r := inspectJSON(t, out)
	want, _ := params.Size(params.Blocked, 20_000, 0.01, 0)
	want = foldRounded(want)
	fi, _ := os.Stat(out)
	switch {
	case r.FormatVersion != 1 || r.Type != "bloom" || r.Codec != "raw" || r.HashScheme != "xxh3" || r.HashSchemeID != 1 || r.Seed != 42:
		t.Errorf("frame fields: %+v", r)
	case r.Layout != "blocked" || r.M != want.M || r.K != want.K || r.BlockBits != 512:
		t.Errorf("shape: %+v, want %v", r, want)
	case r.SizeBytes != int(want.M/8) || r.EncodedBytes != fi.Size() || r.Count != uint64(len(keys)):
		t.Errorf("sizes and count: %+v (file of %d bytes)", r, fi.Size())
	case r.SetBits == 0 || math.Abs(r.FillRatio-float64(r.SetBits)/float64(r.M)) > 1e-12:
		t.Errorf("set bits %d, fill %g", r.SetBits, r.FillRatio)
	case math.Abs(r.EstimatedCount-20_000) > 400:
		t.Errorf("estimated count %g, want about 20000", r.EstimatedCount)
	case math.Abs(r.PredictedFalsePositiveRate-want.FalsePositive(20_000)) > 1e-15:
		t.Errorf("predicted %g, want %g", r.PredictedFalsePositiveRate, want.FalsePositive(20_000))
	case math.Abs(r.FalsePositiveRate-0.01) > 0.002:
		t.Errorf("rate from the bits %g, want about 0.01", r.FalsePositiveRate)
	case r.BitsPerKey == nil || *r.BitsPerKey != float64(r.M)/20_000:
		t.Errorf("bits per key %v", r.BitsPerKey)
	}

	text := ok(t, "", "inspect", out)
	for _, s := range []string{"format version", "xxh3", "seed 0x2a", "blocked", "fill ratio", "estimated count", "predicted rate", "bits per key"} {
		if !strings.Contains(text, s) {
			t.Errorf("inspect text lacks %q:\n%s", s, text)
		}
	}

	// An empty filter has no bits per key: null, not an error.
	empty := filepath.Join(dir, "empty.bf")
	if r := bc(t, "", "build", "-n", "10", "-o", empty); r.code != 0 || !strings.Contains(r.stderr, "no keys read") {
		t.Errorf("build of no keys: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := inspectJSON(t, empty); r.BitsPerKey != nil || r.Count != 0 {
		t.Errorf("empty filter: %+v", r)
	}
}

func TestCalc(t *testing.T) {
	solve := func(q params.Query) params.Solution {
		sol, err := params.Solve(q)
		if err != nil {
			t.Fatal(err)
		}
		return sol
	}
	for _, c := range []struct {
		args    []string
		q       params.Query
		derived []string
	}{
		{[]string{"-n", "1000000", "-p", "0.01"}, params.Query{N: 1e6, P: 0.01}, []string{"m", "k"}},
		{[]string{"-n", "1e6", "-p", "0.01", "-k", "4"}, params.Query{N: 1e6, P: 0.01, K: 4}, []string{"m"}},
		{[]string{"-n", "1e6", "-m", "8e6"}, params.Query{N: 1e6, M: 8e6}, []string{"k"}},
		{[]string{"-m", "8e6", "-p", "0.02"}, params.Query{M: 8e6, P: 0.02}, []string{"n", "k"}},
		{[]string{"-m", "8e6", "-k", "5", "-p", "0.02"}, params.Query{M: 8e6, K: 5, P: 0.02}, []string{"n"}},
		{[]string{"-m", "8e6", "-k", "5", "-n", "1e6"}, params.Query{M: 8e6, K: 5, N: 1e6}, []string{}},
		{[]string{"-n", "1e6", "-k", "7"}, params.Query{N: 1e6, K: 7}, []string{"m"}},
		{[]string{"-m", "1e7", "-k", "7"}, params.Query{M: 1e7, K: 7}, []string{"n"}},
		{[]string{"-n", "1e6", "-m", "8e6", "-p", "0.01"}, params.Query{N: 1e6, M: 8e6, P: 0.01}, []string{"k"}},
		{[]string{"-n", "1e6", "-p", "0.01", "--layout", "paged", "--block-bits", "4096"}, params.Query{N: 1e6, P: 0.01, Layout: params.Paged, BlockBits: 4096}, []string{"m", "k"}},
	} {
		var r report.SolveReport
		if err := json.Unmarshal([]byte(ok(t, "", append([]string{"calc", "--json"}, c.args...)...)), &r); err != nil {
			t.Fatalf("calc %q: %v", c.args, err)
		}
		want := solve(c.q)
		if !slices.Equal(r.Derived, c.derived) || !slices.Equal(r.Derived, append([]string{}, want.Derived...)) {
			t.Errorf("calc %q: derived %q, want %q", c.args, r.Derived, c.derived)
		}
		if len(r.Layouts) != len(want.Layouts) {
			t.Fatalf("calc %q: %d layouts, want %d", c.args, len(r.Layouts), len(want.Layouts))
		}
		for i, got := range r.Layouts {
			w := want.Layouts[i]
			if got.Layout != w.Shape.Layout.String() || got.N != w.N || got.M != w.Shape.M || got.K != w.Shape.K ||
				got.BlockBits != w.Shape.BlockBits || got.FalsePositiveRate != w.FalsePositive || got.MeetsP != w.Meets {
				t.Errorf("calc %q: %+v, want %+v", c.args, got, w)
			}
		}

		text := ok(t, "", append([]string{"calc"}, c.args...)...)
		for _, s := range []string{"layout", "bits/key", "predicted p", want.Layouts[0].Shape.Layout.String()} {
			if !strings.Contains(text, s) {
				t.Errorf("calc %q: text lacks %q:\n%s", c.args, s, text)
			}
		}
		if check := strings.Contains(text, "meets p"); check != (c.q.N != 0 && c.q.M != 0 && c.q.P != 0) {
			t.Errorf("calc %q: meets p column shown = %v:\n%s", c.args, check, text)
		}
	}

	if r := bc(t, "", "calc", "-n", "5"); r.code != 2 || !strings.Contains(r.stderr, "at least two") || !isUsageLine(r.stderr, "calc") {
		t.Errorf("calc -n 5: %+v", r)
	}
	failsWith(t, "calc: k and p fix only the bits per key", "calc", "-k", "7", "-p", "0.01")
	if r := bc(t, "", "calc", "-n", "5", "-p", "2"); r.code != 2 || !strings.Contains(r.stderr, "calc: -p \"2\": want a rate between 0 and 1") {
		t.Errorf("calc -p 2: %+v", r)
	}
}

func TestTable(t *testing.T) {
	text := ok(t, "", "table")
	if !strings.Contains(text, "10     6.93  0.0952   0.0329") {
		t.Errorf("table lacks the m/n = 10 row:\n%s", text)
	}
	md := ok(t, "", "table", "--markdown")
	if !strings.Contains(md, "| 10 | 6.93 | 0.0952 | 0.0329 | 0.0174 | 0.0118 | 0.00943 | 0.00844 | 0.00819 | 0.00846 |") {
		t.Errorf("markdown table lacks the m/n = 10 row:\n%s", md)
	}
	if n := strings.Count(md, "\n"); n != 2+31 {
		t.Errorf("markdown table has %d lines, want 33", n)
	}
}

func TestUnionIntersectFold(t *testing.T) {
	dir := t.TempDir()
	keys, _ := keyLines("k", 4000)
	half := len(keys) / 2
	a, b, all := filepath.Join(dir, "a.bf"), filepath.Join(dir, "b.bf"), filepath.Join(dir, "all.bf")
	shape := []string{"-m", "1048576", "-k", "7", "--layout", "classic"}
	build := func(out string, keys []string) {
		ok(t, strings.Join(keys, "\n"), append([]string{"build", "-o", out}, shape...)...)
	}
	build(a, keys[:half])
	build(b, keys[half:])
	build(all, keys)

	u := filepath.Join(dir, "u.bf")
	ok(t, "", "union", "-o", u, a, b)
	if answers, code := queryAll(t, u, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
		t.Errorf("union: exit %d", code)
	}
	ub, _ := os.ReadFile(u)
	allb, _ := os.ReadFile(all)
	// The same bits; the count is the estimate from them, so marked.
	if r := inspectJSON(t, u); !r.CountEstimated || math.Abs(float64(r.Count)-float64(len(keys))) > 0.02*float64(len(keys)) ||
		r.SetBits != inspectJSON(t, all).SetBits || len(ub) != len(allb) {
		t.Errorf("union of the halves differs from the filter of all keys: %+v", r)
	}

	i := filepath.Join(dir, "i.bf")
	ok(t, "", "intersect", a, all, "-o", i) // flags after the arguments too
	if answers, code := queryAll(t, i, keys[:half]); code != 0 || countAnswers(answers, "maybe") != half {
		t.Errorf("intersect: keys of both inputs: exit %d", code)
	}
	if answers, _ := queryAll(t, i, keys[half:]); countAnswers(answers, "no") < half*9/10 {
		t.Errorf("intersect: only %d of %d keys of one input are absent", countAnswers(answers, "no"), half)
	}

	f := filepath.Join(dir, "f.bf")
	ok(t, "", "fold", "-o", f, u)
	if r := inspectJSON(t, f); r.M != 1048576/2 {
		t.Errorf("fold: m = %d", r.M)
	}
	ok(t, "", "fold", "--to", "100000", "-o", f, u)
	r := inspectJSON(t, f)
	if r.M != 65536 {
		t.Errorf("fold --to 100000: m = %d, want 65536", r.M)
	}
	if answers, code := queryAll(t, f, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
		t.Errorf("folded filter lost keys: exit %d", code)
	}

	// Incompatible inputs: the message names the file and the reason.
	other := filepath.Join(dir, "other.bf")
	ok(t, "x\n", "build", "-m", "1048576", "-k", "6", "--layout", "classic", "-o", other)
	msg := failsWith(t, "union: "+a+" has k 7, "+other+" 6: ", "union", "-o", u, a, other)
	if !strings.Contains(msg, ": build both with the same -n and -p") {
		t.Errorf("message %q does not say why", msg)
	}
	if r := bc(t, "", "intersect", "-o", u, a); r.code != 2 || r.stderr != "bloomcast: intersect: want at least two filters, got 1 (bloomcast intersect -h for usage)\n" {
		t.Errorf("intersect with one filter: %+v", r)
	}
	odd := filepath.Join(dir, "odd.bf")
	ok(t, "x\n", "build", "-m", "1536", "-k", "4", "--layout", "blocked", "--folds", "0", "-o", odd) // three blocks
	failsWith(t, odd+": cannot fold", "fold", "-o", f, odd)
}

func TestErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	junk := writeFile(t, filepath.Join(dir, "junk.bf"), "junk")
	empty := writeFile(t, filepath.Join(dir, "empty.bf"), "")
	good := filepath.Join(dir, "good.bf")
	ok(t, "a\n", "build", "-o", good)
	data, _ := os.ReadFile(good)
	truncated := writeFile(t, filepath.Join(dir, "truncated.bf"), string(data[:len(data)-3]))
	trailing := writeFile(t, filepath.Join(dir, "trailing.bf"), string(data)+"x")
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 1
	bad := writeFile(t, filepath.Join(dir, "crc.bf"), string(flipped))

	failsWith(t, junk+": not a bloomcast filter", "inspect", junk)
	failsWith(t, empty+": empty input", "query", empty, "x")
	failsWith(t, truncated+": truncated", "inspect", truncated)
	failsWith(t, trailing+": unexpected bytes after the filter", "inspect", trailing)
	failsWith(t, bad+": checksum", "fold", "-o", filepath.Join(dir, "x.bf"), bad)
	failsWith(t, dir+": is a directory", "inspect", dir)
	failsWith(t, filepath.Join(dir, "none.txt")+": no such file", "build", "-o", filepath.Join(dir, "x.bf"), filepath.Join(dir, "none.txt"))
	failsWith(t, filepath.Join(dir, "no", "such", "x.bf")+": ", "build", "-o", filepath.Join(dir, "no", "such", "x.bf"))
}

func TestUsage(t *testing.T) {
	for _, c := range commands {
		for _, h := range []string{"-h", "--help", "-help"} {
			r := bc(t, "", c.name, h)
			if r.code != 0 || r.stdout != c.usage || r.stderr != "" || !strings.HasPrefix(c.usage, "usage: bloomcast "+c.name) {
				t.Errorf("%s %s: exit %d, stdout %q", c.name, h, r.code, r.stdout)
			}
		}
		if got := ok(t, "", "help", c.name); got != c.usage {
			t.Errorf("help %s: %q", c.name, got)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		if r := bc(t, "", args...); r.code != 0 || !strings.Contains(r.stdout, "commands:") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	for _, args := range [][]string{{}, {"frobnicate"}} {
		if r := bc(t, "", args...); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "build, query, add") || !strings.HasSuffix(r.stderr, " (bloomcast -h for usage)\n") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: %+v", args, r)
		}
	}
	r := bc(t, "", "build", "--frobnicate", "-o", "x")
	if r.code != 2 || r.stderr != "bloomcast: build: unknown flag --frobnicate (bloomcast build -h for usage)\n" {
		t.Errorf("bad flag: %+v", r)
	}
	if r := bc(t, "", "build"); r.code != 2 || r.stderr != "bloomcast: build: missing -o OUT (bloomcast build -h for usage)\n" {
		t.Errorf("build without -o: %+v", r)
	}
	if r := bc(t, "", "build", "-o", "x", "--block-bits", "4096"); r.code != 2 || !strings.Contains(r.stderr, "--layout paged") {
		t.Errorf("--block-bits without paged: %+v", r)
	}
	if r := bc(t, "", "inspect", "--layout=x"); r.code != 2 {
		t.Errorf("inspect --layout=x: %+v", r)
	}
}

func TestParseFlags(t *testing.T) {
	fs := newFlagSet("t")
	var n countValue
	var v bool
	var s string
	fs.Var(&n, "n", "")
	fs.BoolVar(&v, "v", false, "")
	fs.StringVar(&s, "o", "", "")
	args, err := parseFlags(fs, []string{"a", "--n", "1e3", "-", "-v", "b", "-o=out", "--", "-n", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "-", "b", "-n", "c"}; !slices.Equal(args, want) || n != 1000 || !v || s != "out" {
		t.Errorf("args %q n %d v %v o %q", args, n, v, s)
	}
	for _, bad := range []string{"-1", "1.5", "x", "1e30"} {
		if err := n.Set(bad); err == nil {
			t.Errorf("count %q accepted", bad)
		}
	}
}

func TestDemo(t *testing.T) {
	text := ok(t, "", "demo", "--keys", "20000", "--requests", "1500")
	for _, s := range []string{"classic", "partitioned", "blocked", "paged", "predicted", "measured", "add ns/key", "query ns/key", "bloomcast calc", "bloomcast table",
		"the summary cache", "none", "icp", demoSummary, "hit ratio", "query msgs", "control bytes", "query messages", "Squid access.log"} {
		if !strings.Contains(text, s) {
			t.Errorf("demo output lacks %q:\n%s", s, text)
		}
	}
	var r demoReport
	if err := json.Unmarshal([]byte(ok(t, "", "demo", "--json", "--keys", "5000", "--seed", "3", "-p", "0.05", "--requests", "1000")), &r); err != nil {
		t.Fatal(err)
	}
	if c := r.Cluster; c == nil || c.Nodes != demoNodes || c.Trace.Requests != 1000 || c.Trace.Seed != 3 || len(c.Results) != 3 ||
		c.Results[2].Mode != demoSummary || c.Results[1].QueryMessages == 0 || c.Results[2].DeltaFetches == 0 {
		t.Fatalf("demo --json cluster: %+v", c)
	}
	lt := r.LayoutTrial
	if lt == nil || lt.Keys != 5000 || lt.Seed != 3 || lt.P != 0.05 || len(lt.Results) != 4 {
		t.Fatalf("demo --json: %+v", lt)
	}
	for i, layout := range []string{"classic", "partitioned", "blocked", "paged"} {
		x := lt.Results[i]
		if x.Layout != layout || x.M == 0 || x.EncodedBytes == 0 || math.Abs(x.MeasuredFalsePositiveRate-x.PredictedFalsePositiveRate) > 6*x.StdError+0.005 {
			t.Errorf("demo --json result %d: %+v", i, x)
		}
	}
	if r := bc(t, "", "demo", "--keys", "0"); r.code != 2 {
		t.Errorf("demo --keys 0: %+v", r)
	}
	if text := ok(t, "", "demo", "--keys", "1000", "--requests", "0"); strings.Contains(text, "summary cache") {
		t.Errorf("demo --requests 0 replayed:\n%s", text)
	}
}

func TestVersion(t *testing.T) {
	v := ok(t, "", "version")
	if !strings.HasPrefix(v, "bloomcast ") || !strings.Contains(v, "\ngo go1.") {
		t.Errorf("version: %q", v)
	}
	if w := ok(t, "", "--version"); w != v {
		t.Errorf("--version printed %q, version %q", w, v)
	}
}

// TestVersionText checks the report for the builds users make: "go
// install …@vX" (a module version, no version control stamp) and a
// build in a checkout (a pseudo-version and the commit, maybe modified).
func TestVersionText(t *testing.T) {
	goLine := "go " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "bloomcast (devel)\n" + goLine},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Path: "github.com/bloomcast/bloomcast", Version: "v1.2.3"}},
			"bloomcast v1.2.3\n" + goLine},
		{"checkout, modified", &debug.BuildInfo{
			Main: debug.Module{Version: "v0.0.0-20261125113732-37f5e623a6e8+dirty"},
			Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "37f5e623a6e8de4998eb7bb7fc2f0892d06cbbdd"},
				{Key: "vcs.time", Value: "2026-11-25T11:37:32Z"},
				{Key: "vcs.modified", Value: "true"},
			}},
			"bloomcast v0.0.0-20261125113732-37f5e623a6e8+dirty\nrevision 37f5e623a6e8de4998eb7bb7fc2f0892d06cbbdd 2026-11-25T11:37:32Z modified\n" + goLine},
		{"checkout, clean, no VCS time", &debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			"bloomcast (devel)\nrevision abc\n" + goLine},
	} {
		if got := versionText(c.info); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestVersionOfBinary builds bloomcast and checks that "--version" and
// "version" print the module version and revision that "go version -m"
// reads from the same binary.
func TestVersionOfBinary(t *testing.T) {
	bin := bloomcastBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	out2, err := exec.Command(bin, "version").Output()
	if err != nil || string(out2) != string(out) {
		t.Fatalf("version: %q, %v; --version: %q", out2, err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if want := "bloomcast " + info.Main.Version; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && !strings.Contains(string(out), "revision "+s.Value) {
			t.Errorf("%q does not name revision %s", out, s.Value)
		}
	}
}

// foldRounded is s with m rounded up as build rounds it by default: the
// range (bits, bits per slice or blocks) a multiple of 16.
func foldRounded(s params.Shape) params.Shape {
	unit := uint64(16)
	switch s.Layout {
	case params.Partitioned:
		unit *= uint64(s.K)
	case params.Blocked, params.Paged:
		unit *= s.BlockBits
	}
	s.M = (s.M + unit - 1) / unit * unit
	return s
}

// TestBuildHash: --hash xxh3-64 writes a filter of hashing scheme 3,
// which inspect names and query, union and add read by its scheme; files
// of the two hashes do not combine.
func TestBuildHash(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("https://www.example.com/objects/key", 2000)
	fast, def := filepath.Join(dir, "fast.bf"), filepath.Join(dir, "default.bf")
	for _, kind := range [][]string{nil, {"--counting"}, {"--deletion"}} {
		out := filepath.Join(dir, "kind.bf")
		ok(t, lines, append([]string{"build", "-n", "2000", "--hash", "xxh3-64", "-o", out}, kind...)...)
		if r := inspectJSON(t, out); r.HashScheme != "xxh3-64" {
			t.Fatalf("%q: scheme %q", kind, r.HashScheme)
		}
		if answers, code := queryAll(t, out, keys); code != 0 || slices.Contains(answers, "no") {
			t.Fatalf("%q: a key built in is not found (exit %d)", kind, code)
		}
	}
	ok(t, lines, "build", "-n", "2000", "--hash", "xxh3-64", "-o", fast)
	ok(t, lines, "build", "-n", "2000", "-o", def)
	if r := inspectJSON(t, def); r.HashScheme != "xxh3" {
		t.Fatalf("default scheme %q", r.HashScheme)
	}
	if r := inspectJSON(t, fast); r.Count != 2000 {
		t.Fatalf("count %d, want 2000", r.Count)
	}
	// The same keys, the same shape: other bits, so the hash matters.
	if a, b := mustRead(t, fast), mustRead(t, def); bytes.Equal(a, b) {
		t.Fatal("the two hashes built the same file")
	}
	absent, _ := keyLines("https://www.example.com/objects/absent", 20000)
	if answers, _ := queryAll(t, fast, absent); strings.Count(strings.Join(answers, " "), "maybe") > 600 {
		t.Fatal("more than 3% of 20 000 absent keys found at p = 1%")
	}
	failsWith(t, "union: "+fast+" hashes with xxh3-64, "+def+" xxh3: build both with the same -n and -p (or -m and -k), --layout, --seed and --hash",
		"union", "-o", filepath.Join(dir, "u.bf"), fast, def)
	failsWith(t, "build: --hash \"md5\": want xxh3 or xxh3-64", "build", "--hash", "md5", "-o", fast)
	failsWith(t, "build: --hash applies to Bloom", "build", "--budget", "1000", "--hash", "xxh3-64", "-o", fast)
}
