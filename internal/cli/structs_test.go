package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/mht"
)

func structureJSON(t *testing.T, path string) filereport.StructureReport {
	t.Helper()
	var r filereport.StructureReport
	if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", path)), &r); err != nil {
		t.Fatalf("inspect --json %s: %v", path, err)
	}
	return r
}

func TestBuildDeletion(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("d", 2000)
	out := filepath.Join(dir, "del.blm")
	ok(t, lines, "build", "--deletion", "-n", "2000", "-p", "0.01", "-o", out)
	r := structureJSON(t, out)
	if r.Type != "deletion" || r.Deletion == nil || r.Deletion.Added != 2000 || r.Deletion.Removed != 0 ||
		r.Deletion.RemovedFill != 0 || r.Deletion.FalseDeletionRate != 0 {
		t.Fatalf("fresh deletion filter: %+v %+v", r, r.Deletion)
	}
	// Remove every other key: removed keys are absent, kept keys present
	// but for the removed filter's false positives.
	var removed []string
	for i := 0; i < len(keys); i += 2 {
		removed = append(removed, keys[i])
	}
	ok(t, strings.Join(removed, "\n"), "remove", out)
	answers, code := queryAll(t, out, keys)
	if code != 1 {
		t.Fatalf("query exit %d, want 1", code)
	}
	lost := 0
	for i, a := range answers {
		switch {
		case i%2 == 0 && a != "no":
			t.Fatalf("removed key %s answered %q", keys[i], a)
		case i%2 == 1 && a == "no":
			lost++
		}
	}
	r = structureJSON(t, out)
	d := r.Deletion
	if d.Removed != 1000 || d.RemovedFill <= 0 || d.RemovedFill >= d.AddedFill {
		t.Fatalf("after removal: %+v", d)
	}
	// The false-deletion rate inspect reports is what the kept keys see.
	if want := d.FalseDeletionRate * 1000; math.Abs(float64(lost)-want) > 4*math.Sqrt(want)+3 {
		t.Errorf("%d of 1000 kept keys lost; inspect predicts %.1f", lost, want)
	}
	text := ok(t, "", "inspect", out)
	for _, s := range []string{"added", "removed", "false deletions", "fill"} {
		if !strings.Contains(text, s) {
			t.Errorf("inspect lacks %q:\n%s", s, text)
		}
	}
	// Removing a key never added is refused, all or nothing.
	before, _ := os.ReadFile(out)
	if r := bc(t, "", "remove", out, keys[1], "never-added"); r.code != 1 || !strings.Contains(r.stderr, "never added") {
		t.Fatalf("remove of an absent key: exit %d, %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Fatal("a refused remove changed the file")
	}
	// Adding puts a key in the first filter; a removed key stays removed,
	// and add says so.
	if r := bc(t, "", "add", out, "new-key", keys[0]); r.code != 0 || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "warning: "+out+": 1 of the keys added stay absent, removed before (the first: \""+keys[0]+"\")") {
		t.Fatalf("add of a removed key: exit %d, stderr %q; want one warning", r.code, r.stderr)
	}
	if got := ok(t, "", "query", out, "new-key"); got != "maybe\n" {
		t.Errorf("added key: %q", got)
	}
	if r := bc(t, "", "query", out, keys[0]); r.code != 1 {
		t.Errorf("a removed key came back after add: %q", r.stdout)
	}
	failsWith(t, out+": holds a deletion filter", "union", "-o", filepath.Join(dir, "u"), out, out)
	failsWith(t, out+": holds a deletion filter", "count", out, "x")
	usageFails(t, "build: --counting and --deletion", "build", "--counting", "--deletion", "-n", "10", "-o", out)
}

func TestBuildFPSet(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("f", 3000)
	sorted, rice := filepath.Join(dir, "s.fp"), filepath.Join(dir, "r.fp")
	ok(t, lines+lines, "build", "--fpset", "-p", "0.001", "-o", sorted)
	ok(t, lines, "build", "--fpset", "--rice", "-p", "0.001", "-o", rice)
	for _, path := range []string{sorted, rice} {
		r := structureJSON(t, path)
		if r.Type != "fpset" || r.FPSet == nil || r.FPSet.Fingerprints < 2990 || r.FPSet.Total != r.FPSet.Fingerprints || r.FPSet.FalsePositiveRate > 0.001 ||
			r.FPSet.Bits != 22 {
			t.Fatalf("%s: %+v %+v", path, r, r.FPSet)
		}
		if answers, code := queryAll(t, path, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
			t.Fatalf("%s: a key is missing (exit %d)", path, code)
		}
		_, absent := keyLines("absent", 20000)
		answers, _ := queryAll(t, path, strings.Fields(absent))
		if fp := countAnswers(answers, "maybe"); fp > 60 {
			t.Errorf("%s: %d false positives of 20000 at p ≤ 0.001", path, fp)
		}
	}
	if r := structureJSON(t, sorted); r.FPSet.Form != "sorted" || r.FPSet.BitsPerKey != 22 {
		t.Errorf("sorted: %+v", r.FPSet)
	}
	if r := structureJSON(t, rice); r.FPSet.Form != "rice" || r.FPSet.BitsPerKey >= 22 || r.FPSet.RiceK == 0 {
		t.Errorf("rice: %+v", r.FPSet)
	}
	ok(t, lines, "build", "--fpset", "--count-bits", "4", "--bits", "30", "-o", sorted)
	if r := structureJSON(t, sorted); r.FPSet.Bits != 30 || r.FPSet.CountBits != 4 {
		t.Errorf("--bits 30 --count-bits 4: %+v", r.FPSet)
	}
	usageFails(t, "build: give one of -p, --bits and -c", "build", "--fpset", "-p", "0.01", "--bits", "9", "-o", sorted)
	failsWith(t, sorted+": holds a fingerprint set, which add", "add", sorted, "k")
}

func TestMHTBuildGet(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "key\twith tab-%d\t%d\n", i, i*7)
	}
	tab := filepath.Join(dir, "t.mht")
	ok(t, b.String(), "mht", "build", "--seed", "9", "-o", tab)
	if got := ok(t, "", "mht", "get", "-v", tab, "key\twith tab-0", "key\twith tab-4999"); got != "key\twith tab-0\t0\nkey\twith tab-4999\t34993\n" {
		t.Errorf("get: %q", got)
	}
	if r := bc(t, "", "mht", "get", tab, "key\twith tab-1", "nope"); r.code != 1 || r.stdout != "7\nabsent\n" {
		t.Errorf("get with an absent key: exit %d, %q", r.code, r.stdout)
	}
	r := structureJSON(t, tab)
	if r.Type != "mht" || r.MHT == nil || r.MHT.Items != 5000 || len(r.MHT.Sizes) != 5 || r.MHT.Sizes[0] != 15000 || r.Seed != 9 {
		t.Fatalf("inspect: %+v %+v", r, r.MHT)
	}
	if got := ok(t, "", "query", tab, "key\twith tab-3"); got != "maybe\n" {
		t.Errorf("query: %q", got)
	}
	// The file is the library's: mht.Decode reads it, with the values.
	data, _ := os.ReadFile(tab)
	tb, err := mht.Decode(data, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if v, found := tb.GetString("key\twith tab-42"); !found || v != 294 {
		t.Errorf("library read: %d, %v", v, found)
	}
	// A crisis names the line; a bad line names its place.
	if r := bc(t, "a\t1\nb\t2\nc\t3\n", "mht", "build", "--sizes", "1,1", "-o", tab); r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: stdin:3: crisis") {
		t.Errorf("crisis: %d %q", r.code, r.stderr)
	}
	if r := bc(t, "novalue\n", "mht", "build", "-o", tab); r.code != 2 || !strings.Contains(r.stderr, "stdin:1: want KEY<TAB>VALUE") {
		t.Errorf("bad line: %d %q", r.code, r.stderr)
	}
	usageFails(t, "mht: missing -o OUT", "mht", "build")
	bl := filepath.Join(dir, "b.blm")
	ok(t, "x\n", "build", "-n", "10", "-o", bl)
	failsWith(t, bl+": holds a Bloom filter, not a multilevel hash table", "mht", "get", bl, "x")
}

// TestEveryKindReadable writes every kind of file the library writes and
// checks that inspect and query read each.
func TestEveryKindReadable(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v interface{ MarshalBinary() ([]byte, error) }) string {
		b, err := v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, filepath.Join(dir, name), string(b))
	}
	files := map[string]string{}
	files["bloom"] = write("bloom", func() *bloom.Filter {
		f := bloom.MustNew(bloom.Config{N: 10, P: 0.01})
		f.AddString("k")
		return f
	}())
	cf, _ := counting.New(counting.Config{N: 10, P: 0.01})
	cf.AddString("k")
	files["counting"] = write("counting", cf)
	d, _ := counting.NewDeletion(bloom.Config{N: 10, P: 0.01})
	d.AddString("k")
	files["deletion"] = write("deletion", d)
	tab := mht.MustNew(mht.Config{First: 30, Levels: 3})
	if err := tab.InsertString("k", 5); err != nil {
		t.Fatal(err)
	}
	files["mht"] = write("mht", tab)
	plan, err := mht.DefaultPlan(10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range mht.Kinds() {
		s, err := plan.NewSummary(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(tab.HashString("k"), 1); err != nil {
			t.Fatal(err)
		}
		files["summary "+k.String()] = write(k.String(), s)
	}
	ok(t, "k\t3\n", "bloomier", "build", "-o", filepath.Join(dir, "bloomier"))
	files["bloomier"] = filepath.Join(dir, "bloomier")
	ok(t, "k\n", "build", "--fpset", "-o", filepath.Join(dir, "fpset"))
	files["fpset"] = filepath.Join(dir, "fpset")
	ok(t, "http://example.com/k\n", "build", "--squid", "-o", filepath.Join(dir, "squid"))
	files["squid"] = filepath.Join(dir, "squid")
	for name, path := range files {
		if out := ok(t, "", "inspect", path); !strings.Contains(out, "structure") && !strings.Contains(out, "squid") {
			t.Errorf("%s: inspect says %q", name, out)
		}
		key := "k"
		if name == "squid" {
			key = "http://example.com/k"
		}
		if got := ok(t, "", "query", path, key); got != "maybe\n" {
			t.Errorf("%s: query of a stored key: %q", name, got)
		}
	}
}
