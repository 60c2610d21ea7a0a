package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/internal/filereport"
)

// formatGolden copies a golden file of a format package into dir and
// returns its path there (so that writes never touch testdata).
func formatGolden(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "formats", pkg, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// guavaKey spells the keys of formats/guava's golden files
// (crosscheck/GuavaCheck.java): strings, or longs in decimal.
func guavaKey(kind string, present bool, i int) string {
	if kind == "long" {
		v := int64(uint64(i) * 0x9E3779B97F4A7C15)
		if !present {
			v++
		}
		return strconv.FormatInt(v, 10)
	}
	if !present {
		return "absent-" + strconv.Itoa(i)
	}
	if i%7 == 0 {
		return "present-" + strconv.Itoa(i) + "-é✓𝄞"
	}
	return "present-" + strconv.Itoa(i)
}

// TestQueryGuavaGolden: bloomcast query answers every key of the golden
// filters written by Guava 31.1 (10^4 present, 10^4 absent, strings and
// longs, both strategies) as Guava's mightContain did, recorded in the
// .answers files; every present key is "maybe" and the exit status is 1
// because some absent key is "no".
func TestQueryGuavaGolden(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"str-mitz64-n10000-p0.01", "str-mitz32-n10000-p0.03", "long-mitz64-n10000-p0.01", "long-mitz32-n10000-p0.001"} {
		kind := strings.SplitN(name, "-", 2)[0]
		file := formatGolden(t, dir, "guava", name+".bin")
		want, err := os.ReadFile(filepath.Join("..", "..", "formats", "guava", "testdata", name+".answers"))
		if err != nil {
			t.Fatal(err)
		}
		const n = 10000
		var in strings.Builder
		for j := range 2 * n {
			in.WriteString(guavaKey(kind, j < n, j%n) + "\n")
		}
		args := []string{"query", file}
		if kind == "long" {
			args = append(args, "--key-type", "long")
		} else {
			args = append(args, "--key-type", "string")
		}
		r := bc(t, in.String(), args...)
		if r.code != 1 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
		got := strings.Fields(r.stdout)
		if len(got) != 2*n {
			t.Fatalf("%s: %d answers for %d keys", name, len(got), 2*n)
		}
		differ := 0
		for j, a := range got {
			guavaSays := want[j/8]>>(j%8)&1 == 1
			if (a == "maybe") != guavaSays || (j < n && a != "maybe") {
				differ++
			}
		}
		if differ > 0 {
			t.Errorf("%s: %d of %d answers differ from Guava's", name, differ, 2*n)
		}
	}
}

// bitsKey spells the keys of formats/bitsandblooms' golden files.
func bitsKey(prefix string, i int) string {
	k := []byte(fmt.Sprintf("%s%d", prefix, i))
	for j := 0; j < i%17; j++ {
		k = append(k, byte('a'+j))
	}
	return string(k)
}

// TestQueryBitsAndBloomsGolden: the golden filters written by bloom/v3,
// binary and JSON, hold every key added to them and answer every other
// key as formats/bitsandblooms (checked against bloom/v3 itself) does.
func TestQueryBitsAndBloomsGolden(t *testing.T) {
	dir := t.TempDir()
	for _, g := range []struct {
		name string
		n    int
	}{{"m1000-k7-n100", 100}, {"m64-k4-n6", 6}, {"m8191-k5-n800", 800}} {
		for _, ext := range []string{".bin", ".json"} {
			file := formatGolden(t, dir, "bitsandblooms", g.name+ext)
			data, _ := os.ReadFile(file)
			lib, err := bitsandblooms.Decode(data)
			if ext == ".json" {
				lib, err = bitsandblooms.DecodeJSON(data)
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for i := range g.n {
				keys = append(keys, bitsKey("in", i))
			}
			if answers, code := queryAll(t, file, keys); code != 0 || countAnswers(answers, "maybe") != g.n {
				t.Fatalf("%s%s: a key bloom/v3 added is absent (exit %d)", g.name, ext, code)
			}
			keys = keys[:0]
			for i := range 1000 {
				keys = append(keys, bitsKey("out", i))
			}
			answers, _ := queryAll(t, file, keys)
			for i, a := range answers {
				if (a == "maybe") != lib.Test([]byte(keys[i])) {
					t.Fatalf("%s%s: key %q: %s", g.name, ext, keys[i], a)
				}
			}
		}
	}
}

// TestFormatReported: inspect --json reports "format" for every kind of
// file: bloomcast's own kinds, deltas, Squid digests and other programs'
// filters; the text names it too.
func TestFormatReported(t *testing.T) {
	dir := t.TempDir()
	formatOf := func(path string) string {
		var r struct {
			Format string `json:"format"`
		}
		if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", path)), &r); err != nil {
			t.Fatal(err)
		}
		return r.Format
	}
	for _, k := range fileKinds {
		f := filepath.Join(dir, k.name)
		makeKind(t, k, f, urlKeys("a", 50))
		if got := formatOf(f); got != k.format() {
			t.Errorf("%s: format %q, want %q", k.name, got, k.format())
		}
	}
	g := filepath.Join(dir, "g")
	makeKind(t, fileKinds[0], g, urlKeys("b", 60))
	delta := filepath.Join(dir, "delta")
	ok(t, "", "diff", "-o", delta, filepath.Join(dir, "bloom"), g)
	if got := formatOf(delta); got != "bloomcast" {
		t.Errorf("delta: format %q", got)
	}
	for file, want := range map[string]string{
		formatGolden(t, dir, "guava", "str-mitz32-n10000-p0.03.bin"): "MURMUR128_MITZ_32",
		formatGolden(t, dir, "bitsandblooms", "m64-k4-n6.json"):      "bits-and-blooms-json",
	} {
		if text := ok(t, "", "inspect", file); !strings.Contains(text, want) || !strings.Contains(text, "estimated count") {
			t.Errorf("inspect %s lacks %q:\n%s", file, want, text)
		}
	}
}

// TestFormatForced: --format reads a file as the format named; a file
// not in it is refused with one line, as is a format name bloomcast does
// not know.
func TestFormatForced(t *testing.T) {
	dir := t.TempDir()
	gv := formatGolden(t, dir, "guava", "str-mitz64-n10000-p0.01.bin")
	bb := formatGolden(t, dir, "bitsandblooms", "m1000-k7-n100.bin")
	js := formatGolden(t, dir, "bitsandblooms", "m1000-k7-n100.json")
	bf := filepath.Join(dir, "bf")
	makeKind(t, fileKinds[0], bf, urlKeys("a", 50))
	ok(t, "", "query", "--format", "guava", "--key-type", "string", gv, "present-1")
	ok(t, "", "query", "--format=bits-and-blooms", bb, "in1a")
	ok(t, "", "inspect", "--format", "bits-and-blooms-json", js)
	ok(t, "", "query", "--format", "bloomcast", bf, urlKeys("a", 1)[0])
	for _, c := range []struct {
		file, format, prefix string
	}{
		{gv, "bits-and-blooms", gv + ": corrupt encoding"},
		{bb, "guava", bb + ": corrupt encoding"},
		{js, "bits-and-blooms", js + ": corrupt encoding"},
		{bf, "guava", bf + ": corrupt encoding"},
		{gv, "bloomcast", gv + ": not a bloomcast frame"},
		{bb, "squid", bb + ": incompatible cache digest version"},
	} {
		for _, cmd := range [][]string{{"inspect"}, {"query"}, {"fold", "-o", filepath.Join(dir, "out")}} {
			args := append(append([]string{}, cmd...), "--format", c.format, c.file)
			if cmd[0] == "query" {
				args = append(args, "k")
			}
			failsWith(t, c.prefix, args...)
		}
	}
	usageFails(t, "inspect", "inspect", "--format", "orc", gv)
	junk := writeFile(t, filepath.Join(dir, "junk"), "no filter here at all\n")
	failsWith(t, junk+": not a bloomcast filter, a Squid cache digest, or a Guava", "query", junk, "k")
}

// TestKeyTypeLong: with --key-type long, Guava filters take keys as
// longs (Funnels.longFunnel); a key that is not a long is an error that
// leaves the file as it was, and the formats that hash bytes refuse the
// flag.
func TestKeyTypeLong(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, filepath.Join(dir, "keys"), "1\n-2\n9223372036854775807\n")
	f := filepath.Join(dir, "longs.guava")
	ok(t, "", "build", "--format", "guava", "--key-type", "long", "-n", "100", "-o", f, keys)
	ok(t, "", "query", "--key-type", "long", f, "--", "1", "-2", "9223372036854775807")
	ok(t, "", "add", "--key-type", "long", f, "77")
	data, _ := os.ReadFile(f)
	g, err := guava.Decode(data)
	if err != nil || !g.TestLong(77) || !g.TestLong(-2) || g.TestString("77") && g.TestString("-2") {
		t.Fatalf("the keys are not in as longs (%v)", err)
	}
	failsWith(t, f+": key \"x7\" is not a long", "add", "--key-type", "long", f, "x7")
	if after, _ := os.ReadFile(f); !bytes.Equal(after, data) {
		t.Fatal("a refused add changed the file")
	}
	failsWith(t, f+": key \"seven\" is not a long", "query", "--key-type", "long", f, "seven")
	bad := writeFile(t, filepath.Join(dir, "bad"), "1\nnope\n")
	failsWith(t, bad+":2: key \"nope\" is not a long", "build", "--format", "guava", "--key-type", "long", "-o", filepath.Join(dir, "x"), bad)
	failsWith(t, bad+":2: key \"nope\" is not a long", "build", "--format", "guava", "--key-type", "long", "-n", "9", "-o", filepath.Join(dir, "x"), bad)
	bb := formatGolden(t, dir, "bitsandblooms", "m64-k4-n6.bin")
	failsWith(t, bb+": a bits-and-blooms Bloom filter hashes keys as bytes", "query", "--key-type", "long", bb, "1")
	bf := filepath.Join(dir, "bf")
	makeKind(t, fileKinds[0], bf, urlKeys("a", 10))
	failsWith(t, bf+": a Bloom filter hashes keys as bytes", "add", "--key-type", "long", bf, "1")
	y := filepath.Join(dir, "y")
	failsWith(t, y+": a bits-and-blooms Bloom filter hashes keys as bytes", "build", "--format", "bits-and-blooms", "--key-type", "long", "-o", y, keys)
	usageFails(t, "query", "query", "--key-type", "uuid", bb, "1")
}

// TestBuildFormat: build --format writes each program's filter as that
// program builds it from the same keys, sized as its constructor sizes
// it; bloomcast and squid are build's own; bloomcast's flags are refused
// for other programs' filters with one line.
func TestBuildFormat(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("customer", 1000)
	in := writeFile(t, filepath.Join(dir, "keys"), lines+strings.Join(keys[:200], "\n")+"\n") // duplicates counted once
	gv, err := guava.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := bitsandblooms.NewWithEstimates(1000, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	fixed, _ := bitsandblooms.New(5000, 3)
	for _, k := range keys {
		gv.AddString(k)
		bb.Add([]byte(k))
		fixed.Add([]byte(k))
	}
	wantGuava, _ := gv.MarshalBinary()
	wantBits, _ := bb.MarshalBinary()
	wantJSON, _ := bb.MarshalJSON()
	wantFixed, _ := fixed.MarshalBinary()
	for _, c := range []struct {
		args []string
		want []byte
	}{
		{[]string{"--format", "guava", "-n", "1000"}, wantGuava},
		{[]string{"--format", "guava"}, wantGuava}, // sized for the 1000 distinct keys read
		{[]string{"--format", "bits-and-blooms", "-n", "1000", "-p", "0.001"}, wantBits},
		{[]string{"--format=bits-and-blooms-json", "-p", "0.001"}, wantJSON},
		{[]string{"--format", "bits-and-blooms", "-m", "5000", "-k", "3"}, wantFixed},
	} {
		out := filepath.Join(dir, "out")
		ok(t, "", append(append([]string{"build"}, c.args...), "-o", out, in)...)
		if got, _ := os.ReadFile(out); !bytes.Equal(got, c.want) {
			t.Errorf("build %q: %d bytes differ from the library's %d", c.args, len(got), len(c.want))
		}
	}
	same := func(a, b []string) {
		t.Helper()
		x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
		ok(t, "", append(append([]string{"build"}, a...), "-o", x, in)...)
		ok(t, "", append(append([]string{"build"}, b...), "-o", y, in)...)
		if bx, by := mustRead(t, x), mustRead(t, y); !bytes.Equal(bx, by) {
			t.Errorf("build %q and %q differ", a, b)
		}
	}
	same([]string{"--format", "bloomcast", "-n", "1000"}, []string{"-n", "1000"})
	in = writeFile(t, filepath.Join(dir, "urls"), strings.Join(urlKeys("u", 500), "\n")+"\n")
	same([]string{"--format", "squid"}, []string{"--squid"})
	out := filepath.Join(dir, "refused")
	for _, flag := range [][]string{{"--layout", "classic"}, {"--seed", "1"}, {"--counting"}, {"--folds", "2"}, {"--squid"}} {
		r := bc(t, "", append(append([]string{"build", "--format", "guava"}, flag...), "-o", out, in)...)
		if r.code != 2 || !isUsageLine(r.stderr, "build") || !strings.Contains(r.stderr, flag[0]+" does not apply to a guava filter") {
			t.Errorf("build --format guava %q: exit %d, %q", flag, r.code, r.stderr)
		}
	}
	usageFails(t, "build", "build", "--format", "guava", "-m", "1000", "-o", out, in)
	usageFails(t, "build", "build", "--format", "parquet-orc", "-o", out, in)
	failsWith(t, out+": invalid configuration", "build", "--format", "guava", "-n", "1e18", "-p", "1e-9", "-o", out, in)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused build wrote its output")
	}
	r := bc(t, "", "build", "--format", "guava", "-m", "64", "-k", "3", "-o", out, in)
	if r.code != 0 || !strings.Contains(r.stderr, "nearly full") {
		t.Errorf("an overfull Guava filter: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "", "build", "--format", "guava", "-m", "64", "-k", "3", "--strict", "-o", out, in); r.code != 2 {
		t.Errorf("--strict: exit %d", r.code)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConvert: convert writes bits-and-blooms binary as JSON and back,
// changes a bloomcast filter's codec and back, copies a file into its own
// format, and refuses every pair that hashes keys differently with one
// line that says why and how to rebuild.
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	bin := formatGolden(t, dir, "bitsandblooms", "m8191-k5-n800.bin")
	js := formatGolden(t, dir, "bitsandblooms", "m8191-k5-n800.json")
	gv := formatGolden(t, dir, "guava", "long-mitz64-n10000-p0.01.bin")
	out := filepath.Join(dir, "out")
	ok(t, "", "convert", "--to", "bits-and-blooms-json", "-o", out, bin)
	if !bytes.Equal(mustRead(t, out), mustRead(t, js)) {
		t.Error("binary to JSON differs from bloom/v3's JSON")
	}
	ok(t, "", "convert", "--to", "bits-and-blooms", "-o", out, js)
	if !bytes.Equal(mustRead(t, out), mustRead(t, bin)) {
		t.Error("JSON to binary differs from bloom/v3's binary")
	}
	ok(t, "", "convert", "--to", "guava", "-o", out, gv)
	if !bytes.Equal(mustRead(t, out), mustRead(t, gv)) {
		t.Error("Guava to Guava changed the file")
	}

	bf := filepath.Join(dir, "bf")
	makeKind(t, fileKinds[0], bf, urlKeys("a", 300))
	arith := filepath.Join(dir, "arith")
	ok(t, "", "convert", "--to", "bloomcast", "--codec", "arith", "-o", arith, bf)
	if r := inspectJSON(t, arith); r.Codec != "arith" || r.Format != "bloomcast" {
		t.Errorf("--codec arith wrote codec %q format %q", r.Codec, r.Format)
	}
	ok(t, "", "convert", "--to", "bloomcast", "-o", out, arith)
	if inspectJSON(t, out).Codec != "arith" {
		t.Error("convert without --codec changed the codec")
	}
	ok(t, "", "convert", "--to", "bloomcast", "--codec", "raw", "-o", out, arith)
	if !bytes.Equal(mustRead(t, out), mustRead(t, bf)) {
		t.Error("raw to arith and back changed the filter")
	}
	counting := filepath.Join(dir, "counting")
	makeKind(t, fileKinds[3], counting, urlKeys("a", 300))
	ok(t, "", "convert", "--to", "bloomcast", "--codec", "fast", "-o", out, counting)
	if r := inspectJSON(t, out); r.Codec != "fast" || r.Type != "counting" {
		t.Errorf("counting filter converted to %q %q", r.Type, r.Codec)
	}
	sq := filepath.Join(dir, "squid")
	makeKind(t, fileKinds[5], sq, urlKeys("a", 30))

	for _, c := range []struct {
		in, to, why string
	}{
		{gv, "bits-and-blooms", "guava sets a key's bits by MurmurHash3"},
		{bin, "guava", "bits-and-blooms sets a key's bits by"},
		{bf, "guava", "bloomcast sets a key's bits by its frame's hashing scheme"},
		{gv, "bloomcast", "guava sets a key's bits"},
		{sq, "bloomcast", "a Squid digest's header"},
		{bf, "squid", "a Squid digest's mask is set by MD5 store keys"},
	} {
		msg := failsWith(t, c.in+": no lossless conversion", "convert", "--to", c.to, "-o", out, c.in)
		if !strings.Contains(msg, c.why) || !strings.HasSuffix(msg, "; rebuild it from its keys with \"bloomcast build --format "+c.to+"\"\n") {
			t.Errorf("convert %s to %s: %q", c.in, c.to, msg)
		}
	}
	usageFails(t, "convert", "convert", "-o", out, bf)
	usageFails(t, "convert", "convert", "--to", "guava", "--codec", "arith", "-o", out, gv)
	usageFails(t, "convert", "convert", "--to", "orc", "-o", out, gv)
	usageFails(t, "convert", "convert", "--to", "guava", gv)
}

// TestForeignCombineAndFold: union and intersect of other programs'
// filters keep their format and refuse another size; fold halves into
// exactly the filter of half the size, down to --to, and refuses a size
// that does not halve.
func TestForeignCombineAndFold(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	ak, bk := urlKeys("a", 200), urlKeys("b", 200)
	build := func(path string, keys []string, args ...string) {
		in := writeFile(t, path+".keys", strings.Join(keys, "\n")+"\n")
		ok(t, "", append(append([]string{"build"}, args...), "-o", path, in)...)
	}
	build(a, ak, "--format", "guava", "-m", "8192", "-k", "5")
	build(b, bk, "--format", "guava", "-m", "8192", "-k", "5")
	build(c, ak, "--format", "guava", "-m", "4096", "-k", "5")
	u := filepath.Join(dir, "u")
	ok(t, "", "union", "-o", u, a, b)
	if answers, code := queryAll(t, u, append(append([]string{}, ak...), bk...)); code != 0 {
		t.Fatalf("union lost %d keys", countAnswers(answers, "no"))
	}
	failsWith(t, "union: "+a+" has 8192 bits, "+c+" 4096: fold "+a+" --to 4096 first, or build both with the same -m", "union", "-o", u, a, c)
	ok(t, "", "fold", "--to", "4096", "-o", u, a)
	if !bytes.Equal(mustRead(t, u), mustRead(t, c)) {
		t.Error("a Guava filter folded to 4096 bits differs from the one built at 4096 bits")
	}
	failsWith(t, a+": a Guava Bloom filter of 8192 bits halves 7 times, to 64 bits, not to 10 or fewer", "fold", "--to", "10", "-o", u, a)

	odd := filepath.Join(dir, "odd")
	build(odd, ak, "--format", "bits-and-blooms", "-m", "1001", "-k", "3")
	failsWith(t, odd+": the filter cannot be halved", "fold", "-o", u, odd)
	mixed := filepath.Join(dir, "mixed")
	build(mixed, ak, "--format", "bits-and-blooms-json", "-m", "8192", "-k", "5")
	failsWith(t, mixed+": a bits-and-blooms Bloom filter, and "+a+" is a Guava Bloom filter: only filters of one kind combine", "union", "-o", u, a, mixed)
	failsWith(t, a+": holds a Guava Bloom filter: only inspect, query, add, union, intersect, fold and convert read it", "compress", "-o", u, a)
}

// TestParquet: query --column answers, per value, the row groups of the
// Parquet file DuckDB wrote whose filter may hold it, exactly as DuckDB's
// parquet_bloom_probe did (testdata/duckdb.answers), in text and JSON,
// with exit status 1 when no row group may hold any value; inspect lists
// the file's filters; every write is refused and leaves the file as it
// was.
func TestParquet(t *testing.T) {
	dir := t.TempDir()
	pq := formatGolden(t, dir, "parquet", "duckdb.parquet")
	before := mustRead(t, pq)
	out := ok(t, "", "query", "--column", "s", pq, "k7", "k1100", "k5000")
	if out != "k7\trow groups 0,1\nk1100\trow groups 1\nk5000\tnone\n" {
		t.Errorf("query --column s: %q", out)
	}
	if r := bc(t, "", "query", "--column", "s", pq, "k5000", "k6000"); r.code != 1 || r.stderr != "" {
		t.Errorf("no row group for any value: exit %d, %q", r.code, r.stderr)
	}

	answers, err := os.ReadFile(filepath.Join("..", "..", "formats", "parquet", "testdata", "duckdb.answers"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, line := range strings.Split(strings.TrimSpace(string(answers)), "\n") {
		col, masks, _ := strings.Cut(line, " ")
		var value func(v int) string
		switch col {
		case "s":
			value = func(v int) string { return "k" + strconv.Itoa(v) }
		case "i64":
			value = func(v int) string { return strconv.FormatInt(int64(v)*1000000007, 10) }
		default:
			continue
		}
		var in strings.Builder
		for v := range masks {
			in.WriteString(value(v) + "\n")
		}
		r := bc(t, in.String(), "query", "--json", "--column", col, pq)
		var got []parquetAnswer
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != len(masks) || r.code != 0 {
			t.Fatalf("%s: exit %d, %d answers, %v (%q)", col, r.code, len(got), err, r.stderr)
		}
		for v, a := range got {
			m := 0
			for _, g := range a.RowGroups {
				m |= 1 << g
			}
			if want, _ := strconv.ParseUint(masks[v:v+1], 16, 8); a.Value != value(v) || m != int(want) {
				t.Fatalf("%s: value %s: row groups %v, DuckDB mask %d", col, a.Value, a.RowGroups, want)
			}
			compared++
		}
	}
	if compared < 4000 {
		t.Errorf("compared %d answers with DuckDB's", compared)
	}

	var rep filereport.ParquetReport
	if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", pq)), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != "parquet" || rep.RowGroups != 2 || len(rep.Filters) != 12 || rep.Filters[0].Column != "s" ||
		rep.Filters[0].EstimatedDistinct < 500 || rep.Filters[0].SizeBytes != 2048 {
		t.Errorf("inspect --json: %+v", rep)
	}
	if text := ok(t, "", "inspect", pq); !strings.Contains(text, "12 split block Bloom filters") || !strings.Contains(text, "FIXED_LEN_BYTE_ARRAY") {
		t.Errorf("inspect:\n%s", text)
	}

	usageFails(t, "query", "query", pq, "k1")
	usageFails(t, "query", "query", "--column", "s", formatGolden(t, dir, "guava", "str-mitz32-n10000-p0.03.bin"), "k1")
	failsWith(t, pq+": invalid configuration: no column \"nope\"", "query", "--column", "nope", pq, "k1")
	failsWith(t, pq+": column i64: invalid configuration: \"x\" is not an INT64", "query", "--column", "i64", pq, "x")
	o := filepath.Join(dir, "o")
	failsWith(t, pq+": a Parquet file holds one filter per column chunk: it takes no keys", "add", pq, "k1")
	failsWith(t, pq+": a Parquet file holds one filter per column chunk: it does not combine", "union", "-o", o, pq, pq)
	failsWith(t, pq+": a Parquet file holds one filter per column chunk: it is not folded", "fold", "-o", o, pq)
	failsWith(t, pq+": a Parquet file holds one filter per column chunk: choose one with --column NAME (and --row-group N)", "convert", "--to", "parquet-sbbf", "-o", o, pq)
	if !bytes.Equal(before, mustRead(t, pq)) {
		t.Error("a refused command changed the Parquet file")
	}
	if _, err := os.Stat(o); !os.IsNotExist(err) {
		t.Error("a refused command wrote its output")
	}
}

// TestParquetSBBF: a standalone split block filter written by parquet-go
// holds its values; build --format parquet-sbbf of the same values at the
// same size writes it byte for byte; --key-type reads values as Parquet's
// numeric types.
func TestParquetSBBF(t *testing.T) {
	dir := t.TempDir()
	golden := formatGolden(t, dir, "parquet", "parquetgo-n1000.bin")
	var values []string
	for v := range 1000 {
		values = append(values, "k"+strconv.Itoa(v))
	}
	if answers, code := queryAll(t, golden, values); code != 0 || countAnswers(answers, "maybe") != 1000 {
		t.Fatalf("a value parquet-go inserted is absent (exit %d)", code)
	}
	in := writeFile(t, filepath.Join(dir, "values"), strings.Join(values, "\n")+"\n")
	out := filepath.Join(dir, "out")
	ok(t, "", "build", "--format", "parquet-sbbf", "-m", "10240", "-o", out, in)
	if !bytes.Equal(mustRead(t, out), mustRead(t, golden)) {
		t.Error("build --format parquet-sbbf differs from parquet-go's filter of the same values")
	}
	ok(t, "", "build", "--format", "parquet-sbbf", "-o", out, in)
	if r := inspectJSON(t, out); r.Format != "parquet-sbbf" {
		t.Errorf("inspect: format %q", r.Format)
	}
	nums := writeFile(t, filepath.Join(dir, "nums"), "1\n-7\n2147483647\n")
	for _, kt := range []string{"int", "long", "float", "double"} {
		ok(t, "", "build", "--format", "parquet-sbbf", "--key-type", kt, "-o", out, nums)
		ok(t, "", "query", "--key-type", kt, out, "--", "1", "-7", "2147483647")
		ok(t, "", "add", "--key-type", kt, out, "12")
		ok(t, "", "query", "--key-type", kt, out, "12")
	}
	failsWith(t, out+": key \"x\" is not a double", "add", "--key-type", "double", out, "x")
	usageFails(t, "build", "build", "--format", "parquet-sbbf", "-m", "4096", "-k", "3", "-o", out, in)
}

// TestBuildFit: build --format parquet-sbbf --fit writes, byte for byte,
// the filter parquet.Fit folds for the same keys (from -n's size, by
// default 10^7 keys' 16 MiB), which is the filter -m builds at that size
// and smaller than the start; it refuses other formats and -m, and warns
// (under --strict: exit 2, nothing written) when even the unfolded filter
// misses -p.
func TestBuildFit(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("customer", 5000)
	in := writeFile(t, filepath.Join(dir, "keys"), lines+strings.Join(keys[:500], "\n")+"\n") // duplicates
	out, sized := filepath.Join(dir, "out"), filepath.Join(dir, "sized")
	for _, c := range []struct {
		args   []string
		maxNDV uint64
		p      float64
	}{
		{nil, 10_000_000, 0.01},
		{[]string{"-n", "100000", "-p", "0.001"}, 100000, 0.001},
	} {
		fit, err := parquet.NewFit(c.maxNDV, c.p)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			fit.InsertString(k)
		}
		g := fit.Filter()
		want, _ := g.MarshalBinary()
		if g.Blocks() >= fit.Blocks() || parquet.FalsePositive(g.Blocks(), 5000) > c.p || parquet.FalsePositive(g.Blocks()/2, 5000) <= c.p {
			t.Fatalf("%q: the fit of %d blocks from %d is not the smallest meeting p", c.args, g.Blocks(), fit.Blocks())
		}
		ok(t, "", append(append([]string{"build", "--format", "parquet-sbbf", "--fit"}, c.args...), "-o", out, in)...)
		if got := mustRead(t, out); !bytes.Equal(got, want) {
			t.Errorf("build --fit %q: %d bytes differ from parquet.Fit's %d", c.args, len(got), len(want))
		}
		ok(t, "", "build", "--format", "parquet-sbbf", "-m", strconv.Itoa(256*g.Blocks()), "-o", sized, in)
		if !bytes.Equal(mustRead(t, sized), want) {
			t.Errorf("build --fit %q differs from the filter built at its size", c.args)
		}
	}
	nums := writeFile(t, filepath.Join(dir, "nums"), "1\n-7\n9223372036854775807\n")
	ok(t, "", "build", "--format", "parquet-sbbf", "--fit", "--key-type", "long", "-o", out, nums)
	ok(t, "", "query", "--key-type", "long", out, "--", "1", "-7", "9223372036854775807")
	bad := writeFile(t, filepath.Join(dir, "bad"), "1\nx\n")
	failsWith(t, bad+":2: key \"x\" is not a long (INT64)", "build", "--format", "parquet-sbbf", "--fit", "--key-type", "long", "-o", out, bad)
	usageFails(t, "build: --fit builds a parquet-sbbf filter only", "build", "--format", "guava", "--fit", "-o", out, in)
	usageFails(t, "build: --fit chooses the size", "build", "--format", "parquet-sbbf", "--fit", "-m", "4096", "-o", out, in)
	r := bc(t, "", "build", "--format", "parquet-sbbf", "--fit", "-n", "100", "-o", out, in)
	if r.code != 0 || !strings.Contains(r.stderr, "the filter for -n 100 misses -p 0.01000 for the keys read even unfolded") {
		t.Errorf("a fit from too small a start: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bc(t, "", "build", "--format", "parquet-sbbf", "--fit", "-n", "100", "--strict", "-o", sized+"2", in); r.code != 2 {
		t.Errorf("--strict: exit %d", r.code)
	}
	if _, err := os.Stat(sized + "2"); !os.IsNotExist(err) {
		t.Error("a refused build wrote its output")
	}
}

// TestConvertParquetColumn: convert --to parquet-sbbf --column takes one
// column chunk's filter out of a Parquet file, byte for byte as the file
// stores it, which query then reads as a standalone filter answering as
// query --column does for that row group; it refuses, in one line, a
// Parquet file without --column, a column with filters in several row
// groups without --row-group, an unknown column or row group, --column
// with another --to, and a file that is not Parquet.
func TestConvertParquetColumn(t *testing.T) {
	dir := t.TempDir()
	pq := formatGolden(t, dir, "parquet", "duckdb.parquet")
	out := filepath.Join(dir, "rg1.sbbf")
	ok(t, "", "convert", "--to", "parquet-sbbf", "--column", "s", "--row-group", "1", "-o", out, pq)
	data := mustRead(t, pq)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Filters() {
		if c.Column == "s" && c.RowGroup == 1 && !bytes.Equal(mustRead(t, out), data[c.Offset:c.Offset+int64(c.Length)]) {
			t.Error("the filter written differs from the bytes the Parquet file stores")
		}
	}
	if r := inspectJSON(t, out); r.Format != "parquet-sbbf" {
		t.Errorf("inspect: format %q", r.Format)
	}
	var values []string
	for v := 0; v < 2400; v += 8 {
		values = append(values, "k"+strconv.Itoa(v))
	}
	answers, _ := queryAll(t, out, values)
	probe, err := f.Probe("s", values)
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(values) || countAnswers(answers, "maybe") == 0 || countAnswers(answers, "no") == 0 {
		t.Fatalf("query: %d answers for %d values, %d maybe", len(answers), len(values), countAnswers(answers, "maybe"))
	}
	for i, a := range answers {
		want := "no"
		for _, g := range probe[i].RowGroups {
			if g == 1 {
				want = "maybe"
			}
		}
		if a != want {
			t.Errorf("%s: %q from the filter taken out, %q from row group 1", values[i], a, want)
		}
	}
	failsWith(t, pq+": a Parquet file holds one filter per column chunk: choose one with --column NAME (and --row-group N)", "convert", "--to", "parquet-sbbf", "-o", out, pq)
	failsWith(t, pq+": column s has a bloom filter in each of row groups 0, 1: choose one", "convert", "--to", "parquet-sbbf", "--column", "s", "-o", out, pq)
	failsWith(t, pq+": no column \"zz\" in the Parquet file", "convert", "--to", "parquet-sbbf", "--column", "zz", "-o", out, pq)
	failsWith(t, pq+": row group 5 of the file's 2 has no bloom filter for column s", "convert", "--to", "parquet-sbbf", "--column", "s", "--row-group", "5", "-o", out, pq)
	usageFails(t, "convert: --column and --row-group take", "convert", "--to", "bloomcast", "--column", "s", "-o", out, pq)
	usageFails(t, "convert: --row-group needs --column", "convert", "--to", "parquet-sbbf", "--row-group", "0", "-o", out, pq)
	usageFails(t, "convert: --row-group -2", "convert", "--to", "parquet-sbbf", "--column", "s", "--row-group", "-2", "-o", out, pq)
	sbbf := formatGolden(t, dir, "parquet", "parquetgo-n1000.bin")
	failsWith(t, sbbf+": a Parquet split block Bloom filter has no column chunks: only a Parquet file does", "convert", "--to", "parquet-sbbf", "--column", "s", "-o", out, sbbf)
}
