package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadValuesAreOneLine runs every command with a flag value it must
// refuse: exit status 2 and one line on standard error, the problem then
// "(bloomcast CMD -h for usage)", with nothing on standard output.
func TestBadValuesAreOneLine(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bf")
	ok(t, "a\nb\n", "build", "-o", f)
	out := filepath.Join(dir, "out.bf")
	for _, args := range [][]string{
		{"build", "-p", "2", "-o", out},
		{"build", "-n", "ten", "-o", out},
		{"build", "-k", "0", "-o", out},
		{"build", "--layout", "round", "-o", out},
		{"build", "--counting", "--width", "5", "-o", out},
		{"query", "--frobnicate", f, "a"},
		{"add", "--frobnicate", f, "a"},
		{"remove", "--frobnicate", f, "a"},
		{"count", "--frobnicate", f, "a"},
		{"inspect", "--layout", "x", f},
		{"calc", "-p", "2", "-n", "10"},
		{"calc", "-n", "-1", "-p", "0.01"},
		{"table", "--max-k", "x"},
		{"union", "-o", out, f},
		{"intersect", "--frobnicate", "-o", out, f, f},
		{"fold", "--to", "0", "-o", out, f},
		{"compress", "--codec", "zstd", "-o", out, f},
		{"decompress", "--seq", "3", "-o", out, f},
		{"diff", "--codec", "lz4", f, f},
		{"patch", "--codec", "lz4", f, f},
		{"serve", "--memory", "lots"},
		{"bloomier", "build", "--value-bits", "65", "-o", out},
		{"mht", "calc", "--n", "0"},
		{"demo", "--keys", "0"},
		{"simulate", "--requests", "x"},
		{"sim", "loops", "--bits", "x"},
		{"version", "extra"},
		{"help", "frobnicate"},
	} {
		r := bc(t, "", args...)
		if r.code != 2 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
			!strings.HasPrefix(r.stderr, "bloomcast: "+args[0]+": ") || !isUsageLine(r.stderr, args[0]) {
			t.Errorf("bloomcast %q: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestErrorsNameTheLine checks that a key, entry or config file's problem
// names the file and the line.
func TestErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	sd := filepath.Join(dir, "sd")
	ok(t, "http://a/\n", "build", "--squid", "-o", sd)
	r := bc(t, "http://b/\n\nnot a url\n", "add", sd)
	if r.code != 2 || r.stderr != "bloomcast: stdin:3: key \"not a url\": \"not a url\" is not an absolute URL (a Squid digest holds URLs)\n" {
		t.Errorf("add from stdin: %+v", r)
	}
	urls := writeFile(t, filepath.Join(dir, "urls.txt"), "http://a/\nhttp://b/\nbad\n")
	failsWith(t, urls+":3: key \"bad\"", "build", "--squid", "-o", filepath.Join(dir, "x"), urls)
	kv := writeFile(t, filepath.Join(dir, "kv.tsv"), "a\t1\nb\tx\n")
	failsWith(t, kv+":2: value \"x\"", "bloomier", "build", "-o", filepath.Join(dir, "x"), kv)
	conf := writeFile(t, filepath.Join(dir, "node.conf"), "# a node\nlisten 127.0.0.1:0\n\nmemory lots\n")
	failsWith(t, conf+":4: memory lots: ", "serve", "--config", conf)
	conf = writeFile(t, filepath.Join(dir, "node2.conf"), "colour red\n")
	failsWith(t, conf+":1: unknown key \"colour\"", "serve", "--config", conf)
}

// TestStdinNamedTwice: standard input named twice among the filters of
// union, intersect, diff or patch is a mistake of the command line, said
// so, where the second read found it empty ("stdin: empty input").
func TestStdinNamedTwice(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bf")
	ok(t, "a\nb\n", "build", "-o", f)
	filter := readString(f)
	for _, args := range [][]string{
		{"union", "-o", filepath.Join(dir, "u.bf"), "-", "-"},
		{"intersect", "-o", filepath.Join(dir, "i.bf"), f, "-", "-"},
		{"diff", "-", "-"},
		{"patch", "-", "-"},
	} {
		r := bc(t, filter, args...)
		want := "bloomcast: " + args[0] + `: standard input ("-") named twice: it can be read once (bloomcast ` + args[0] + " -h for usage)\n"
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %d bytes; want 2 and %q", args, r.code, r.stderr, len(r.stdout), want)
		}
	}
}
