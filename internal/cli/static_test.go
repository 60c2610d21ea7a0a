package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// staticKeys writes n URL keys to a file in dir and returns its path.
func staticKeys(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "http://www.example.com/%d\n", i)
	}
	path := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// build --static writes a ribbon filter that query, inspect and convert
// read, and that add, remove, union, intersect and fold refuse in one line.
func TestBuildStatic(t *testing.T) {
	dir := t.TempDir()
	keys := staticKeys(t, dir, 5000)
	out := filepath.Join(dir, "s.blmc")
	if r := bc(t, "", "build", "--static", "-p", "0.01", "-o", out, keys); r.code != 0 || r.stderr != "" {
		t.Fatalf("build: %d %q", r.code, r.stderr)
	}
	r := bc(t, "", "query", out, "http://www.example.com/17", "http://www.example.com/4999")
	if r.code != 0 || r.stdout != "maybe\nmaybe\n" {
		t.Errorf("query of members: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// Of 2000 absent keys about 1% match.
	var absent []string
	for i := range 2000 {
		absent = append(absent, fmt.Sprintf("http://absent.example/%d", i))
	}
	r = bc(t, strings.Join(absent, "\n")+"\n", "query", out)
	if hits := strings.Count(r.stdout, "maybe"); hits > 60 || r.code != 1 {
		t.Errorf("query of absent keys: %d maybe, exit %d", hits, r.code)
	}
	r = bc(t, "", "inspect", out)
	for _, want := range []string{"structure            ribbon", "keys                 5000", "× the bound log2(1/ε)", "2^-r·(1 − φ/2)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect lacks %q:\n%s", want, r.stdout)
		}
	}
	conv := filepath.Join(dir, "c.blmc")
	if r := bc(t, "", "convert", "--to", "bloomcast", out, "-o", conv); r.code != 0 {
		t.Errorf("convert: %d %q", r.code, r.stderr)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(conv)
	if string(a) != string(b) {
		t.Error("convert --to bloomcast changed the filter")
	}
	if r := bc(t, "", "convert", "--to", "guava", out, "-o", conv); r.code != 2 || !strings.Contains(r.stderr, "no lossless conversion") {
		t.Errorf("convert --to guava: %d %q", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"add", out, "k"}, {"remove", out, "k"}, {"union", out, out, "-o", conv},
		{"intersect", out, out, "-o", conv}, {"fold", out, "-o", conv},
	} {
		r := bc(t, "", args...)
		if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "a static filter") {
			t.Errorf("%s: %d %q", args[0], r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != string(a) {
		t.Error("a refused command changed the filter")
	}
}

func TestBuildStaticFlags(t *testing.T) {
	dir := t.TempDir()
	keys := staticKeys(t, dir, 100)
	out := filepath.Join(dir, "s.blmc")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bits", "33"}, "--bits 33: a ribbon fingerprint has 1 to 32 bits"},
		{[]string{"--bits", "8", "-p", "0.01"}, "give -p P or --bits B, not both"},
		{[]string{"-p", "1e-12"}, "below 2^-32"},
	} {
		args := append(append([]string{"build", "--static"}, c.args...), "-o", out, keys)
		if r := bc(t, "", args...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if r := bc(t, "", "build", "--static", "--bits", "12", "-o", out, keys); r.code != 0 {
		t.Fatalf("--bits 12: %q", r.stderr)
	}
	if r := bc(t, "", "inspect", out); !strings.Contains(r.stdout, "r = 12 bits") || !strings.Contains(r.stdout, "2^-r = 2^-12") {
		t.Errorf("inspect of --bits 12:\n%s", r.stdout)
	}
	if r := bc(t, "", "build", "--static", "-o", out, os.DevNull); r.code != 0 || !strings.Contains(r.stderr, "no keys read") {
		t.Errorf("no keys: %d %q", r.code, r.stderr)
	}
}

func TestCalcStatic(t *testing.T) {
	r := bc(t, "", "calc", "--static", "-n", "100000", "-p", "0.01")
	if r.code != 0 {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
	for _, want := range []string{"the bound n·log2(1/p) is 6.644 bits per key", "ribbon (m = 104192 slots (1628 blocks), r = 6 (+1 in 1171 blocks))     7.002    1.054",
		"binary fuse (3-wise, 58 segments of 2048 slots, r = 7)", "binary fuse (4-wise, 110 segments of 1024 slots, r = 7)",
		"Bloom classic (k = 7)", "Bloom blocked (k = 6)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("calc --static lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := bc(t, "", "calc", "--static", "-n", "10", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"hi_blocks"`) || !strings.Contains(r.stdout, `"segment_length"`) {
		t.Errorf("--json: %d %q", r.code, r.stdout)
	}
	for _, c := range []struct{ args, want string }{
		{"--static", "--static needs -n N"},
		{"--static -n 10 -m 5", "-m means nothing with --static"},
		{"--static -n 10 --fpset", "are two modes"},
	} {
		if r := bc(t, "", append([]string{"calc"}, strings.Fields(c.args)...)...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("calc %s: %d %q", c.args, r.code, r.stderr)
		}
	}
}
