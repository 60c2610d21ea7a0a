package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func zstded(t *testing.T, s string) string {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return string(enc.EncodeAll([]byte(s), nil))
}

// TestCompressedKeys builds filters from gzip- and zstd-compressed key
// files and standard input: each holds every key, and records as many
// keys as the text has lines (not the compressed bytes' "lines").
func TestCompressedKeys(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("http://x/k", 500)
	for _, c := range []struct{ name, data string }{
		{"keys.txt.gz", gzipped(t, lines)},
		{"keys.txt.zst", zstded(t, lines)},
	} {
		in := writeFile(t, filepath.Join(dir, c.name), c.data)
		f := filepath.Join(dir, c.name+".bf")
		ok(t, "", "build", "-n", "1000", "-o", f, in)
		if answers, code := queryAll(t, f, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
			t.Errorf("%s: %d of %d keys present", c.name, countAnswers(answers, "maybe"), len(keys))
		}
		if n := inspectJSON(t, f).Count; n != uint64(len(keys)) {
			t.Errorf("%s: %d keys recorded, want %d", c.name, n, len(keys))
		}
		f2 := filepath.Join(dir, c.name+".stdin.bf")
		ok(t, c.data, "build", "-n", "1000", "-o", f2)
		if n := inspectJSON(t, f2).Count; n != uint64(len(keys)) {
			t.Errorf("%s on stdin: %d keys recorded, want %d", c.name, n, len(keys))
		}
	}
	// add and query read compressed standard input too.
	f := filepath.Join(dir, "a.bf")
	ok(t, "", "build", "-q", "-n", "1000", "-o", f)
	ok(t, gzipped(t, lines), "add", f)
	if out := ok(t, zstded(t, lines), "query", f); strings.Count(out, "maybe\n") != len(keys) {
		t.Errorf("query of zstd stdin: %q...", out[:min(len(out), 40)])
	}
	bad := writeFile(t, filepath.Join(dir, "bad.gz"), gzipped(t, lines)[:40])
	failsWith(t, bad+": ", "build", "-o", filepath.Join(dir, "x.bf"), bad)
}

// TestMaxKeyBytes checks the key-line limit: the default (1 MiB, shown
// in -h), a smaller and a larger one set with --max-key-bytes.
func TestMaxKeyBytes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.bf")
	if !strings.Contains(buildCommand.usage, "--max-key-bytes N") || !strings.Contains(buildCommand.usage, "(default 1048576") {
		t.Error("build -h does not show --max-key-bytes and its default")
	}
	long := strings.Repeat("k", 1<<20)
	ok(t, "a\n"+long+"\n", "build", "-o", out)
	in := writeFile(t, filepath.Join(dir, "long.txt"), "a\r\n"+long+"k\r\n")
	failsWith(t, in+":2: line longer than 1048576 bytes (--max-key-bytes)", "build", "-o", out, in)
	ok(t, "", "build", "--max-key-bytes", "2000000", "-o", out, in)
	short := writeFile(t, filepath.Join(dir, "short.txt"), "abc\nabcdef\n")
	failsWith(t, short+":2: line longer than 5 bytes", "build", "--max-key-bytes", "5", "-o", out, short)
	ok(t, "", "build", "--max-key-bytes", "6", "-o", out, short)
	if r := bc(t, "abc\n", "query", "--max-key-bytes", "2", out); r.code != 2 || r.stderr != "bloomcast: stdin:1: line longer than 2 bytes (--max-key-bytes)\n" {
		t.Errorf("query --max-key-bytes 2: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestNULWarning checks the warning for input with NUL bytes in its first
// 4 KiB, and that -q silences it. Where NUL bytes count (the first 4 KiB
// of the decompressed text) is keyfile's TestBinary.
func TestNULWarning(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.bf")
	r := bc(t, "a\x00b\nc\n", "build", "-o", out)
	if r.code != 0 || r.stderr != "bloomcast: warning: stdin: NUL bytes in the first 4 KiB: binary data read as keys (one per line)?\n" {
		t.Errorf("NUL input: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "a\x00b\nc\n", "build", "-q", "-o", out); r.code != 0 || r.stderr != "" {
		t.Errorf("NUL input with -q: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "a\x00b\n", "add", "--quiet", out); r.code != 0 || r.stderr != "" {
		t.Errorf("add --quiet: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCompressedEntries checks that bloomier build and mht build read
// their KEY<TAB>VALUE input as build reads keys: gzip and zstd
// decompressed, lines up to --max-key-bytes.
func TestCompressedEntries(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for i := range 300 {
		fmt.Fprintf(&text, "http://x/%d\t%d\n", i, i%5)
	}
	for _, c := range []struct{ name, data string }{
		{"e.txt.gz", gzipped(t, text.String())},
		{"e.txt.zst", zstded(t, text.String())},
	} {
		in := writeFile(t, filepath.Join(dir, c.name), c.data)
		for _, tool := range []string{"bloomier", "mht"} {
			f := filepath.Join(dir, c.name+"."+tool)
			ok(t, "", tool, "build", "-o", f, in)
			if got := ok(t, "", tool, "get", f, "http://x/7", "http://x/299"); got != "2\n4\n" {
				t.Errorf("%s build from %s: get printed %q, want \"2\\n4\\n\"", tool, c.name, got)
			}
		}
	}
	in := writeFile(t, filepath.Join(dir, "long.txt"), "ab\t1\nabcdef\t2\n")
	for _, tool := range []string{"bloomier", "mht"} {
		out := filepath.Join(dir, "long."+tool)
		failsWith(t, in+":2: line longer than 5 bytes (--max-key-bytes)", tool, "build", "--max-key-bytes", "5", "-o", out, in)
		ok(t, "", tool, "build", "--max-key-bytes", "8", "-o", out, in)
	}
}
