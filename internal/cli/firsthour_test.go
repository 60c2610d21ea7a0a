package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// warnsOnce runs bloomcast and fails the test unless it exits 0 with one
// warning line on standard error that contains each of want.
func warnsOnce(t *testing.T, stdin string, want []string, args ...string) {
	t.Helper()
	r := bc(t, stdin, args...)
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "bloomcast: warning: ") {
		t.Fatalf("bloomcast %q: exit %d, stderr %q; want one warning line", args, r.code, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Fatalf("bloomcast %q: stderr %q lacks %q", args, r.stderr, w)
		}
	}
}

// TestWritesCheckWhatTheyWrote: every command that writes a filter warns
// in one line, saying what to do, when what it wrote is nearly full or
// above its target rate for the keys it holds; --strict makes that exit
// status 2 with nothing written.
func TestWritesCheckWhatTheyWrote(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("k", 1000)
	_, more := keyLines("z", 1000)
	ok(t, keys, "build", "-n", "1000", "-o", path("a.bf"))
	ok(t, more, "build", "-n", "1000", "-o", path("b.bf"))

	// fold past what the keys allow: the --to that keeps the target.
	warnsOnce(t, "", []string{path("f.bf") + ": 100.0% of the bits set", "for the 1000 keys it holds", "above the target", "--to 16384"},
		"fold", "--to", "1000", "-o", path("f.bf"), path("a.bf"))
	if rep := inspectJSON(t, path("f.bf")); rep.FillRatio != 1 {
		t.Fatalf("fold wrote fill %g", rep.FillRatio)
	}
	ok(t, "", "fold", "--to", "16384", "-o", path("f16.bf"), path("a.bf"))
	ok(t, "", "fold", "-p", "0.5", "--to", "4096", "-o", path("f2.bf"), path("a.bf"))

	// union, intersect: the filters' size.
	ok(t, "", "fold", "--to", "16384", "-o", path("b16.bf"), path("b.bf"))
	warnsOnce(t, "", []string{"above the target", "a larger -n or -m"}, "union", "-o", path("u.bf"), path("f16.bf"), path("b16.bf"))

	// add past the size: -n to rebuild with.
	ok(t, keys, "build", "-n", "1000", "-o", path("c.bf"))
	warnsOnce(t, "", []string{path("c.bf") + ": ", "for the 2000 keys it holds", "build -n 2000 or more"}, append([]string{"add", path("c.bf")}, strings.Fields(more)...)...)

	// --strict: exit 2, nothing written; add leaves the file as it was.
	for _, c := range []struct {
		out  string
		args []string
	}{
		{path("s-fold.bf"), []string{"fold", "--strict", "--to", "1000", "-o", path("s-fold.bf"), path("a.bf")}},
		{path("s-union.bf"), []string{"union", "--strict", "-o", path("s-union.bf"), path("f16.bf"), path("b16.bf")}},
		{path("s-intersect.bf"), []string{"intersect", "--strict", "-o", path("s-intersect.bf"), path("u.bf"), path("u.bf")}},
		{path("s-convert.bf"), []string{"convert", "--strict", "--to", "bloomcast", "-o", path("s-convert.bf"), path("u.bf")}},
		{path("s-build.bf"), []string{"build", "--strict", "-n", "10", "-o", path("s-build.bf"), path("keys")}},
	} {
		writeFile(t, path("keys"), keys)
		r := bc(t, "", c.args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "(--strict: "+c.out+" not written)") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line", c.args, r.code, r.stderr)
		}
		if _, err := os.Stat(c.out); err == nil {
			t.Errorf("%q: output written", c.args)
		}
	}
	ok(t, keys, "build", "-n", "1000", "-o", path("d.bf"))
	before, _ := os.ReadFile(path("d.bf"))
	if r := bc(t, more, "add", "--strict", path("d.bf")); r.code != 2 || !strings.Contains(r.stderr, "not written") {
		t.Errorf("add --strict: exit %d, stderr %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(path("d.bf")); !bytes.Equal(before, after) {
		t.Error("add --strict changed the file")
	}

	// patch: a delta that fills the base past its target.
	ok(t, keys, "build", "-n", "100", "-q", "-o", path("p0.bf"))
	ok(t, "", "add", "-q", path("p0.bf"))
	ok(t, "", "fold", "-q", "--to", "2048", "-o", path("small.bf"), path("p0.bf"))
	ok(t, "", "compress", "--seq", "1", "-o", path("base.bf"), path("small.bf"))
	ok(t, "", "compress", "--seq", "2", "-o", path("next-empty.bf"), path("small.bf"))
	r := bc(t, "", "diff", "-o", path("d.delta"), path("base.bf"), path("next-empty.bf"))
	if r.code != 0 {
		t.Fatalf("diff: %q", r.stderr)
	}
	warnsOnce(t, "", []string{path("patched.bf") + ": ", "above the target"}, "patch", "-o", path("patched.bf"), path("base.bf"), path("d.delta"))
}

// TestOutputIsNeverAnInput: -o naming an input, by any path to the same
// file, is refused in one line before anything is read, and the file is
// left as it was.
func TestOutputIsNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("k", 100)
	writeFile(t, path("same.txt"), keys)
	writeFile(t, path("b.txt"), keys)
	if err := os.Symlink(path("same.txt"), path("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path("same.txt"), path("hard.txt")); err != nil {
		t.Fatal(err)
	}
	ok(t, keys, "build", "-o", path("f.bf"))
	ok(t, keys, "build", "-o", path("g.bf"))
	ok(t, "", "diff", "-o", path("d.delta"), path("f.bf"), path("g.bf"))
	for _, args := range [][]string{
		{"build", "-o", path("same.txt"), path("same.txt")},
		{"build", "-o", path("same.txt"), path("b.txt"), path("same.txt")},
		{"build", "-o", path("link.txt"), path("same.txt")},
		{"build", "-o", path("hard.txt"), path("same.txt")},
		{"build", "-o", path("same.txt"), filepath.Join(dir, ".", "same.txt")},
		{"build", "--format", "guava", "-n", "10", "-o", path("same.txt"), path("same.txt")},
		{"build", "--squid", "-o", path("same.txt"), path("same.txt")},
		{"build", "--fpset", "-o", path("same.txt"), path("same.txt")},
		{"union", "-o", path("f.bf"), path("f.bf"), path("g.bf")},
		{"intersect", "-o", path("g.bf"), path("f.bf"), path("g.bf")},
		{"fold", "-o", path("f.bf"), path("f.bf")},
		{"convert", "--to", "bloomcast", "-o", path("f.bf"), path("f.bf")},
		{"compress", "-o", path("f.bf"), path("f.bf")},
		{"diff", "-o", path("g.bf"), path("f.bf"), path("g.bf")},
		{"patch", "-o", path("f.bf"), path("f.bf"), path("d.delta")},
		{"bloomier", "build", "-o", path("same.txt"), path("same.txt")},
		{"mht", "build", "-o", path("same.txt"), path("same.txt")},
	} {
		befores := map[string][]byte{}
		for _, n := range []string{"same.txt", "b.txt", "f.bf", "g.bf"} {
			befores[n], _ = os.ReadFile(path(n))
		}
		r := bc(t, "", args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "-o ") || !strings.Contains(r.stderr, "give another -o") {
			t.Errorf("%q: exit %d, stderr %q; want a one-line refusal", args, r.code, r.stderr)
		}
		for n, b := range befores {
			if after, _ := os.ReadFile(path(n)); !bytes.Equal(b, after) {
				t.Errorf("%q changed %s", args, n)
			}
		}
	}
}

// TestCalcSaysWhatBuildWrites: calc shows the size build writes with its
// default folds, and it is the size build writes.
func TestCalcSaysWhatBuildWrites(t *testing.T) {
	dir := t.TempDir()
	_, keys := keyLines("k", 10)
	ok(t, keys, "build", "-n", "10", "-p", "0.01", "-o", filepath.Join(dir, "f.bf"))
	m := inspectJSON(t, filepath.Join(dir, "f.bf")).M
	out := ok(t, "", "calc", "-n", "10", "-p", "0.01")
	want := fmt.Sprintf("bloomcast build writes more bits: blocked %d bits (1.0 KiB", m)
	if m != 8192 || !strings.Contains(out, want) || !strings.Contains(out, "default --folds 4 rounds m up") {
		t.Fatalf("build wrote m = %d; calc says:\n%s\nwant %q", m, out, want)
	}
	// --folds 0: as calc's table.
	ok(t, keys, "build", "-n", "10", "-p", "0.01", "--folds", "0", "-o", filepath.Join(dir, "g.bf"))
	if m := inspectJSON(t, filepath.Join(dir, "g.bf")).M; !strings.Contains(out, fmt.Sprintf("blocked      10    %d", m)) {
		t.Fatalf("build --folds 0 wrote m = %d; calc says:\n%s", m, out)
	}
}

// libraryPrefix matches a message part that a library package's name
// begins.
var libraryPrefix = regexp.MustCompile(`(^bloomcast: |: )(` + strings.Join(libraryPackages, "|") + `): `)

// TestMessagesInUsersWords: the messages that the first hour meets say
// what is wrong and what to do, and no Go package name begins one.
func TestMessagesInUsersWords(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("k", 100)
	keyFile := writeFile(t, path("keys.txt"), keys)
	ok(t, keys, "build", "-n", "10", "-q", "--folds", "8", "-o", path("a.bf"))
	ok(t, "", "fold", "-q", "--to", "2048", "-o", path("b.bf"), path("a.bf"))
	ok(t, keys, "build", "-n", "1000000", "-p", "0.001", "-o", path("big.bf"))
	for _, c := range []struct {
		want string
		args []string
	}{
		{dir + ": is a directory: -o names the file to write", []string{"build", "-o", dir, keyFile}},
		{"union: " + path("a.bf") + " has 131072 bits, " + path("b.bf") + " 2048: fold " + path("a.bf") + " --to 2048 first, or build both with the same -m",
			[]string{"union", "-o", path("u.bf"), path("a.bf"), path("b.bf")}},
		{"intersect: " + path("b.bf") + " has 2048 bits, " + path("a.bf") + " 131072: fold " + path("a.bf") + " --to 2048 first",
			[]string{"intersect", "-o", path("u.bf"), path("b.bf"), path("a.bf")}},
		{"union: " + path("a.bf") + " has 131072 bits, " + path("big.bf") + " 15663104; " + path("a.bf") + " has k 2, " + path("big.bf") + " 8: build both with the same -n and -p",
			[]string{"union", "-o", path("u.bf"), path("a.bf"), path("big.bf")}},
		{path("b.bf") + ": cannot fold: 16 bits is out of reach", []string{"fold", "--to", "16", "-o", path("f.bf"), path("b.bf")}},
		{"build: unknown flag --countng: did you mean --counting? (bloomcast build -h for usage)", []string{"build", "--countng", "-o", path("c.bf"), keyFile}},
		{"query: unknown flag -jsn: did you mean --json?", []string{"query", "-jsn", path("a.bf"), "x"}},
		{"build: --format \"nope\": want one of bloomcast, squid", []string{"build", "--format", "nope", "-o", path("c.bf"), keyFile}},
		{"query: --format \"nope\": want one of bloomcast, squid", []string{"query", "--format", "nope", path("a.bf"), "x"}},
		{"inspect: --format \"nope\": want one of bloomcast, squid", []string{"inspect", "--format=nope", path("a.bf")}},
		{"build: -o needs a value", []string{"build", "-o"}},
		{"query: --json \"maybe\": want true or false", []string{"query", "--json=maybe", path("a.bf"), "x"}},
		{"build: --seed \"x\": not a number", []string{"build", "--seed", "x", "-o", path("c.bf"), keyFile}},
	} {
		line := failsWith(t, c.want, c.args...)
		if libraryPrefix.MatchString(line) {
			t.Errorf("%q: %q begins with a package's name", c.args, line)
		}
	}
	if got := withoutPackages("f.bf: bloom: cannot fold: inplace: x", 1); got != "f.bf: cannot fold: x" {
		t.Errorf("withoutPackages: %q", got)
	}
	if got := withoutPackages("cache: no such file", 1); got != "cache: no such file" {
		t.Errorf("withoutPackages kept no file name: %q", got)
	}

	// A failed listen is one line that says what to do.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	failsWith(t, "serve: cannot listen on "+ln.Addr().String()+": another program holds the port; stop it, or give another --listen",
		"serve", "--listen", ln.Addr().String())

	// inspect says where a count came from: build, union, a foreign
	// program (serve: TestServeRunsANode).
	for _, c := range []struct{ file, want string }{
		{path("a.bf"), "100 keys, as recorded (bloomcast build: distinct keys read; add: keys added since)"},
	} {
		if text := ok(t, "", "inspect", c.file); !strings.Contains(text, c.want) {
			t.Errorf("inspect %s:\n%s\nwant %q", c.file, text, c.want)
		}
	}
	ok(t, "", "union", "-q", "-o", path("u.bf"), path("a.bf"), path("a.bf"))
	if text := ok(t, "", "inspect", path("u.bf")); !strings.Contains(text, "keys, estimated from the bits (after a union or intersection)") {
		t.Errorf("inspect of a union:\n%s", text)
	}
	if r := inspectJSON(t, path("u.bf")); r.CountSource != "estimated" {
		t.Errorf("count_source %q", r.CountSource)
	}
	ok(t, keys, "build", "-q", "--format", "guava", "-n", "100", "-o", path("g.bin"))
	if text := ok(t, "", "inspect", path("g.bin")); !strings.Contains(text, "none recorded: Guava Bloom filter files hold no count of keys") {
		t.Errorf("inspect of a Guava file:\n%s", text)
	}
}

// TestQueryGuavaSaysKeyType: a query of a Guava file without --key-type
// says which it assumed; with it, nothing.
func TestQueryGuavaSaysKeyType(t *testing.T) {
	dir := t.TempDir()
	long := formatGolden(t, dir, "guava", "long-mitz64-n10000-p0.01.bin")
	r := bc(t, "", "query", long, "0")
	if r.code != 1 || r.stdout != "no\n" || !strings.Contains(r.stderr, "warning: "+long+": a Guava filter does not record how its keys were put: taken as strings") ||
		!strings.Contains(r.stderr, "--key-type long") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := ok(t, "", "query", "--key-type", "long", long, "0"); got != "maybe\n" {
		t.Fatalf("--key-type long: %q", got)
	}
}

// TestInvalidKeyHasNoAnswer: a key that is not of the filter's key type
// gets no answer line: among KEY arguments none is printed, from standard
// input the keys before it are answered and the error names its line;
// exit status 2 with one line.
func TestInvalidKeyHasNoAnswer(t *testing.T) {
	long := formatGolden(t, t.TempDir(), "guava", "long-mitz64-n10000-p0.01.bin")
	r := bc(t, "", "query", "-v", "--key-type", "long", long, "12", "abc", "13")
	if r.code != 2 || r.stdout != "" || r.stderr != "bloomcast: "+long+": key \"abc\" is not a long (a decimal 64-bit integer)\n" {
		t.Errorf("KEY arguments: exit %d, stdout %q, stderr %q; want exit 2, no answer, one line", r.code, r.stdout, r.stderr)
	}
	r = bc(t, "0\nabc\n13\n", "query", "-v", "--key-type", "long", long)
	if r.code != 2 || r.stdout != "0\tmaybe\n" || r.stderr != "bloomcast: stdin:2: "+long+": key \"abc\" is not a long (a decimal 64-bit integer)\n" {
		t.Errorf("standard input: exit %d, stdout %q, stderr %q; want exit 2, the first key's answer, one line", r.code, r.stdout, r.stderr)
	}
}

// TestValueRulesStated: bloomier and mht state in -h that values are
// unsigned integers, and a string value is refused saying so.
func TestValueRulesStated(t *testing.T) {
	for _, cmd := range []string{"bloomier", "mht"} {
		if out := ok(t, "", cmd, "-h"); !strings.Contains(out, "VALUE an unsigned decimal integer, 0 to\n18446744073709551615") {
			t.Errorf("%s -h does not state the values:\n%s", cmd, out)
		}
		out := filepath.Join(t.TempDir(), "x")
		r := bc(t, "key0\tvalue0\n", cmd, "build", "-o", out)
		want := "bloomcast: stdin:1: value \"value0\" is not an unsigned decimal integer (0 to 18446744073709551615): the values stored are numbers; map other values to numbers first\n"
		if r.code != 2 || r.stderr != want {
			t.Errorf("%s build of a string value: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
}

// withoutFilters returns the Parquet file data with the bloom filters
// of the chunks drop says dropped from its footer (the filters' bytes
// stay, unreferenced), as a writer that wrote no filter for them leaves it.
func withoutFilters(t *testing.T, data []byte, drop func(group int, column string) bool) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	var meta format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[start:start+n], &meta); err != nil {
		t.Fatal(err)
	}
	for g := range meta.RowGroups {
		for c := range meta.RowGroups[g].Columns {
			md := &meta.RowGroups[g].Columns[c].MetaData
			if drop(g, strings.Join(md.PathInSchema, ".")) {
				md.BloomFilterOffset, md.BloomFilterLength = 0, 0
			}
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte{}, data[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestParquetWithoutFilterSaysSo: a column with no bloom filter in some
// or all row groups is a warning on query and inspect, with why.
func TestParquetWithoutFilterSaysSo(t *testing.T) {
	dir := t.TempDir()
	golden := formatGolden(t, dir, "parquet", "duckdb.parquet")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, filepath.Join(dir, "t.parquet"), string(withoutFilters(t, data, func(g int, c string) bool {
		return c == "i64" || c == "i32" && g == 1
	})))
	why := "DuckDB writes filters only for dictionary-encoded columns"

	r := bc(t, "", "query", "--column", "i64", file, "7")
	if r.code != 0 || r.stdout != "7\trow groups 0,1 (2 without a filter)\n" || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "warning: "+file+": no bloom filter for column i64 (in any of the 2 row groups), so a query on it reads those row groups") ||
		!strings.Contains(r.stderr, why) {
		t.Fatalf("query of an unfiltered column: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = bc(t, "", "query", "--column", "i32", file, "7")
	if !strings.Contains(r.stderr, "no bloom filter for column i32 (in row groups 1 of 2)") {
		t.Fatalf("query of a column filtered in some row groups: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "", "query", "--column", "s", file, "k7"); r.code != 0 || r.stderr != "" {
		t.Fatalf("query of a filtered column: exit %d, stderr %q", r.code, r.stderr)
	}
	r = bc(t, "", "inspect", file)
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "no bloom filter for columns i32 (in row groups 1 of 2), i64 (in any of the 2 row groups)") || !strings.Contains(r.stderr, why) {
		t.Fatalf("inspect: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "", "inspect", "-q", file); r.stderr != "" {
		t.Fatalf("inspect -q: %q", r.stderr)
	}
	ok(t, "", "inspect", golden)
	failsWith(t, golden+": column s has a bloom filter in each of row groups 0, 1: choose one with --row-group N",
		"convert", "--to", "parquet-sbbf", "--column", "s", "-o", filepath.Join(dir, "s.sbbf"), golden)
}

// TestParquetExamplesPrune: the README links docs/PARQUET.md, and every
// "query --column NAME FILE" example of the README and docs/ on a file in
// the repository names a column with a filter in every row group.
func TestParquetExamplesPrune(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("docs/PARQUET.md")) {
		t.Error("README.md does not link docs/PARQUET.md")
	}
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	example := regexp.MustCompile(`query --column (\S+) (\S+\.parquet)`)
	seen := 0
	for _, p := range append(docs, filepath.Join("..", "..", "README.md")) {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range example.FindAllStringSubmatch(string(text), -1) {
			file := filepath.Join("..", "..", m[2])
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: the example's %s is not in the repository", p, m[2])
				continue
			}
			seen++
			if r := bc(t, "", "query", "--column", m[1], file, "x"); r.stderr != "" {
				t.Errorf("%s: query --column %s %s: %q", p, m[1], m[2], r.stderr)
			}
		}
	}
	if seen == 0 {
		t.Error("no Parquet query example found")
	}
}

// TestPatchedFileSaysWhatItIs: the documented patch writes with -o, which
// is atomic (a shell's "> new.bf" empties new.bf before a refused patch);
// inspect of a patched file, which no node wrote, does not say a node's
// objects are its count.
func TestPatchedFileSaysWhatItIs(t *testing.T) {
	redirected := regexp.MustCompile(`\b(patch|diff|build|union|intersect|fold|compress|decompress|convert)\b[^\n#|;]*\s>\s*[\w./-]+`)
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, p := range append(docs, filepath.Join("..", "..", "README.md")) {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range redirected.FindAllString(string(text), -1) {
			t.Errorf("%s: %q writes a filter through the shell's >, which empties the file if the command fails: use -o", p, m)
		}
	}

	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("k", 1000)
	_, more := keyLines("z", 10)
	ok(t, keys, "build", "-n", "2000", "-o", path("old.bf"))
	ok(t, keys+more, "build", "-n", "2000", "-o", path("new.bf"))
	ok(t, "", "diff", "-o", path("d.delta"), path("old.bf"), path("new.bf"))
	ok(t, "", "patch", "-o", path("patched.bf"), path("old.bf"), path("d.delta"))
	if rep := inspectJSON(t, path("patched.bf")); rep.CountSource != "digest" || rep.Count != 1010 || rep.Sequence != 1 {
		t.Errorf("patched: count_source %q, count %d, sequence %d; want digest, 1010, 1", rep.CountSource, rep.Count, rep.Sequence)
	}
	if text := ok(t, "", "inspect", path("patched.bf")); !strings.Contains(text, "1010 keys, as recorded with digest 1 (") ||
		!strings.Contains(text, "by compress --seq or patch: the count of the filter it was made from") {
		t.Errorf("inspect of a patched file:\n%s", text)
	}
}

// TestConvertAdviceRuns: the build command that convert advises for a
// conversion that would lose something runs; build --format parquet,
// which writes no Parquet files, says in one line what does.
func TestConvertAdviceRuns(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("http://example.com/", 100) // URLs, for a Squid digest
	keyFile := writeFile(t, path("keys.txt"), keys)
	ok(t, "", "build", "-n", "100", "-o", path("a.bf"), keyFile)
	advice := regexp.MustCompile(`"bloomcast (build --format \S+)"`)
	for _, f := range anyfile.Formats() {
		r := bc(t, "", "convert", "--to", f.String(), "-o", path("c"), path("a.bf"))
		m := advice.FindStringSubmatch(r.stderr)
		if r.code == 0 || m == nil {
			continue
		}
		args := append(strings.Fields(m[1]), "-q", "-n", "100", "-o", path("rebuilt"), keyFile)
		if got := bc(t, "", args...); got.code != 0 {
			t.Errorf("convert --to %v advises %q, which fails: %q", f, m[1], got.stderr)
		}
	}
	usageFails(t, "build: --format parquet: build writes no Parquet files, which Parquet writers make; --format parquet-sbbf writes",
		"build", "--format", "parquet", "-o", path("p"), keyFile)
	if r := bc(t, "", "build", "--format", "nope", "-o", path("p"), keyFile); strings.Contains(r.stderr, "parquet,") || strings.HasSuffix(r.stderr, "parquet (bloomcast build -h for usage)\n") {
		t.Errorf("build --format nope lists parquet: %q", r.stderr)
	}
}

// TestBuildModesAnswerOtherFlags: a flag of build that the mode chosen
// (--static, --fpset, --scalable, --format) does not take is answered in
// one usage line saying so and why, not as an unknown flag.
func TestBuildModesAnswerOtherFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "z")
	for _, c := range []struct {
		want string
		args []string
	}{
		{"-n does not apply to --static: a static filter is sized for the keys it reads", []string{"--static", "-n", "100"}},
		{"--layout does not apply to --static: a static filter (a ribbon filter) takes", []string{"--static", "--layout", "classic"}},
		{"--counting does not apply to --fpset: the two build different kinds of filter; give one", []string{"--fpset", "--counting"}},
		{"-k does not apply to --fpset: a fingerprint set is sized by -n and -p, --bits or -c", []string{"--fpset", "-k", "3"}},
		{"--counting does not apply to --scalable: the two build different kinds of filter", []string{"--scalable", "--counting"}},
		{"-m does not apply to --scalable: a scalable filter sizes its layers from -n and -p", []string{"--scalable", "-m", "1000"}},
		{"--expansion does not apply to a guava filter: size it with -n and -p, or -m and -k", []string{"--format", "guava", "--expansion", "2"}},
		{"--layout does not apply to a guava filter", []string{"--format", "guava", "--layout", "classic"}},
	} {
		usageFails(t, "build: "+c.want, append(append([]string{"build"}, c.args...), "-o", out)...)
	}
}

// TestBudgetMistakesPointToUsage: a mistake in --budget's flags is one
// line naming the command and ending with the pointer to its usage.
func TestBudgetMistakesPointToUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f.bf")
	for want, args := range map[string][]string{
		"calc: --budget needs -n N":                                              {"calc", "--budget", "1000"},
		"calc: --budget 70 leaves no room for a filter":                          {"calc", "-n", "5", "--budget", "70"},
		"calc: --packet needs a number of bytes above 0":                         {"calc", "-n", "5", "--budget", "700", "--packet", "0"},
		"build: --counting means nothing with --budget: build chooses the shape": {"build", "--budget", "1000", "--counting", "-o", out},
		"build: -p means nothing with --budget":                                  {"build", "--budget", "1000", "-p", "0.1", "-o", out},
		"build: --max-bpk needs --budget BYTES":                                  {"build", "--max-bpk", "9", "-o", out},
		"build: --budget 70 leaves no room for a filter":                         {"build", "--budget", "70", "-o", out},
		"build: --budget needs a number of bytes above 0":                        {"build", "--budget", "0", "-o", out},
	} {
		usageFails(t, want, args...)
	}
}

// TestExitStatusOneDocumented: every command that answers "no" with exit
// status 1 does, and is named where README.md, docs/COMMANDS.md and
// "bloomcast -h" say what the exit statuses mean.
func TestExitStatusOneDocumented(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	ok(t, "a\nb\n", "build", "-o", path("f.bf"))
	ok(t, "a\nb\n", "build", "--counting", "-n", "10", "-o", path("c.bf"))
	ok(t, "a\t1\nb\t2\n", "bloomier", "build", "--updatable", "-o", path("m.blm"))
	ok(t, "a\t1\nb\t2\n", "mht", "build", "-o", path("t.mht"))
	for name, args := range map[string][]string{
		"query":           {"query", path("f.bf"), "absent"},
		"remove":          {"remove", path("c.bf"), "absent"},
		"bloomier get":    {"bloomier", "get", path("m.blm"), "absent"},
		"bloomier update": {"bloomier", "update", path("m.blm"), "absent", "3"},
		"mht get":         {"mht", "get", path("t.mht"), "absent"},
	} {
		if r := bc(t, "", args...); r.code != 1 {
			t.Errorf("%s of an absent key: exit %d (stderr %q), want 1", name, r.code, r.stderr)
		}
	}
	sentence := regexp.MustCompile(`(?s)[Ee]xit\s+status(?::| is) 0 on success.*?2 on error`)
	texts := map[string]string{"bloomcast -h": ok(t, "", "-h")}
	for _, p := range []string{"README.md", filepath.Join("docs", "COMMANDS.md")} {
		b, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(b)
	}
	for where, text := range texts {
		said := strings.Join(strings.Fields(strings.ReplaceAll(sentence.FindString(text), "`", "")), " ")
		for _, name := range []string{"query", "remove", "bloomier get", "bloomier update", "mht get", "130 or 143"} {
			if !strings.Contains(said, name) {
				t.Errorf("%s: the exit statuses (%q) do not name %s", where, said, name)
			}
		}
	}
}

// TestLimitsSaidAsSuch: -n 0 to calc says -n must be at least 1, not
// that it is missing; a count too large for any flag says so and names
// the largest; a filter too large for the format names the flags and the
// command.
func TestLimitsSaidAsSuch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f.bf")
	for _, c := range []struct {
		want string
		args []string
	}{
		{"calc: -n must be at least 1", []string{"calc", "-n", "0", "-p", "0.01"}},
		{"calc: -n must be at least 1", []string{"calc", "--static", "-n", "0", "-p", "0.01"}},
		{"calc: -n must be at least 1", []string{"calc", "--fpset", "-n", "0"}},
		{`build: -n "1e99": too large: the largest is 18446744073709551615`, []string{"build", "-n", "1e99", "-o", out}},
		{"build: -n 1000000000000 at -p 0.01000 needs ", []string{"build", "-n", "1e12", "-o", out}},
		{"build: -m 10000000000000: above the maximum of 1099511627776 bits", []string{"build", "-m", "1e13", "-k", "3", "-o", out}},
		{"build: -n 10000000000000: above the maximum of 1099511627776 keys", []string{"build", "--fpset", "-n", "1e13", "-o", out}},
		{"build: -n 10000000000000: a scalable filter's first layer holds", []string{"build", "--scalable", "-n", "1e13", "-o", out}},
	} {
		usageFails(t, c.want, c.args...)
	}
	if r := bc(t, "", "build", "-n", "1e12", "-o", out); !strings.Contains(r.stderr, "above the maximum of 1099511627776 (2^40): give a smaller -n or a larger -p") {
		t.Errorf("build -n 1e12: %q", r.stderr)
	}
}

// TestLibraryPackagesListed keeps libraryPackages whole: every library
// package of the module (outside internal/, cmd/, examples/ and the
// nested modules) begins its errors with its name, which the commands
// strip, so a package missing from the list would leak its name into
// messages.
func TestLibraryPackagesListed(t *testing.T) {
	root := filepath.Join("..", "..")
	clause := regexp.MustCompile(`(?m)^package (\w+)$`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (base == "internal" || base == "cmd" || base == "examples" || base == "testdata" || strings.HasPrefix(base, ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(rel) == "." {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := clause.FindSubmatch(b); m != nil && !slices.Contains(libraryPackages, string(m[1])) {
			t.Errorf("package %s (%s) is not in libraryPackages", m[1], filepath.Dir(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBuildWarnsBlockedAtTinyRates: at a rate where the default blocked
// layout takes at least twice the classic one's bits (here 164 times at
// p = 1e-30), build says so in one warning naming --layout classic, and
// writes what was asked; at 1% it says nothing, nor when --layout is
// given.
func TestBuildWarnsBlockedAtTinyRates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f.bf")
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"-n", "1000", "-p", "1e-30"}, true},
		{[]string{"-n", "1000", "-p", "0.01"}, false},
		{[]string{"-n", "1000", "-p", "1e-30", "--layout", "blocked"}, false},
		{[]string{"-n", "1000", "-p", "1e-30", "--layout", "classic"}, false},
	} {
		var stderr bytes.Buffer
		args := append(append([]string{"build"}, c.args...), "-o", out)
		if code := run(args, strings.NewReader("a\nb\n"), io.Discard, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		got := strings.Contains(stderr.String(), "give --layout classic for a filter")
		if got != c.warn || c.warn && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: warned %v, want %v:\n%s", args, got, c.warn, stderr.String())
		}
	}
}
