package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/formats/squid"
)

// fileKind is one kind of filter file the CLI reads, and how to make one
// holding some keys.
type fileKind struct {
	name  string
	build []string // build's flags, or the command that builds the kind from key<TAB>value entries
	codec []string // compress's flags, if the kind is compressed
	// typ and codecName are what inspect reports for the kind.
	typ, codecName string
}

var fileKinds = []fileKind{
	{"bloom", nil, nil, "bloom", "raw"},
	{"bloom-arith", nil, []string{"--codec", "arith"}, "bloom", "arith"},
	{"bloom-fast", []string{"--layout", "classic"}, []string{"--codec", "fast"}, "bloom", "fast"},
	{"counting", []string{"--counting"}, nil, "counting", "raw"},
	{"counting-fast", []string{"--counting", "--width", "8"}, []string{"--codec", "fast"}, "counting", "fast"},
	{"squid", []string{"--squid"}, nil, "squid cache digest", "raw"},
	{"bloom-pieces", nil, []string{"--piece-size", "256"}, "bloom", "pieces"},
	{"deletion", []string{"--deletion"}, nil, "deletion", "raw"},
	{"fpset", []string{"--fpset"}, nil, "fpset", "raw"},
	{"bloomier", []string{"bloomier", "build"}, nil, "bloomier", "raw"},
	{"mht", []string{"mht", "build"}, nil, "mht", "raw"},
	// Other programs' filters: inspect reports their format, no type or
	// codec.
	{"guava", []string{"--format", "guava", "-m", "4096", "-k", "7"}, nil, "", ""},
	{"bits-and-blooms", []string{"--format", "bits-and-blooms", "-m", "4096", "-k", "7"}, nil, "", ""},
	{"bits-and-blooms-json", []string{"--format", "bits-and-blooms-json", "-m", "4096", "-k", "7"}, nil, "", ""},
	{"parquet-sbbf", []string{"--format", "parquet-sbbf", "-m", "4096"}, nil, "", ""},
}

// foreignKinds are the kinds of other programs' filters: add, union,
// intersect and fold keep their format; remove, patch, compress and
// decompress refuse them.
var foreignKinds = []string{"guava", "bits-and-blooms", "bits-and-blooms-json", "parquet-sbbf"}

// format is what inspect --json reports as the kind's "format".
func (k fileKind) format() string {
	switch {
	case slices.Contains(foreignKinds, k.name):
		return k.name
	case k.name == "squid":
		return "squid"
	}
	return "bloomcast"
}

// readOnlyKinds are the kinds that no writing command changes: every one
// refuses them.
var readOnlyKinds = []string{"fpset", "bloomier", "mht"}

// builtFromEntries tells the kinds built by their own command from
// key<TAB>value lines.
func (k fileKind) builtFromEntries() bool { return k.name == "bloomier" || k.name == "mht" }

// makeKind writes a file of kind k at path holding keys.
func makeKind(t *testing.T, k fileKind, path string, keys []string) {
	t.Helper()
	if k.builtFromEntries() {
		lines := make([]string, len(keys))
		for i, key := range keys {
			lines[i] = fmt.Sprintf("%s\t%d", key, i%2)
		}
		in := writeFile(t, path+".entries", strings.Join(lines, "\n")+"\n")
		ok(t, "", append(append([]string{}, k.build...), "-o", path, in)...)
		return
	}
	in := writeFile(t, path+".keys", strings.Join(keys, "\n")+"\n")
	args := append([]string{"build", "-q", "-n", "400"}, k.build...)
	if k.name != "squid" {
		args = append(args, "-p", "0.01")
	}
	ok(t, "", append(args, "-o", path, in)...)
	if k.codec != nil {
		ok(t, "", append(append([]string{"compress"}, k.codec...), "-o", path+".coded", path)...)
		if err := os.Rename(path+".coded", path); err != nil {
			t.Fatal(err)
		}
	}
}

func urlKeys(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("http://example.com/%s/%d", prefix, i)
	}
	return keys
}

// TestWritesKeepKind runs every command that writes a filter against
// every kind of filter file: the output (which then replaces the input)
// decodes as the kind and codec of the input, every key present before is
// present after, and a refused write exits 2 and leaves the file byte for
// byte as it was.
func TestWritesKeepKind(t *testing.T) {
	base, extra := urlKeys("base", 200), urlKeys("extra", 50)
	type step struct {
		cmd string
		// args builds the command line from the file and a second file
		// of the same kind holding base and extra keys.
		args func(f, g, o string) []string
		// refused lists the kinds for which the command must refuse.
		refused []string
		// keep are the keys that must be present after, besides base.
		keep []string
	}
	steps := []step{
		{cmd: "add", args: func(f, g, o string) []string { return append([]string{"add", f}, extra...) }, keep: extra},
		{cmd: "remove", args: func(f, g, o string) []string { return []string{"remove", f, base[0]} },
			refused: []string{"bloom", "bloom-arith", "bloom-fast", "bloom-pieces", "squid"}},
		{cmd: "union", args: func(f, g, o string) []string { return []string{"union", "-o", o, f, g} },
			refused: []string{"deletion"}, keep: extra},
		{cmd: "intersect", args: func(f, g, o string) []string { return []string{"intersect", "-o", o, f, g} },
			refused: []string{"counting", "counting-fast", "deletion"}},
		{cmd: "fold", args: func(f, g, o string) []string { return []string{"fold", "-o", o, f} },
			refused: []string{"counting", "counting-fast", "squid", "deletion"}},
		{cmd: "patch", args: func(f, g, o string) []string {
			return []string{"patch", "-o", o, f, f + ".delta"}
		}, refused: []string{"squid", "deletion"}, keep: extra},
		{cmd: "compress", args: func(f, g, o string) []string { return []string{"compress", "-o", o, f} },
			refused: []string{"squid", "deletion"}},
		{cmd: "decompress", args: func(f, g, o string) []string { return []string{"decompress", "-o", o, f} },
			refused: []string{"squid", "deletion"}},
	}
	refuses := func(s step, kind string) bool {
		foreignRefused := slices.Contains([]string{"remove", "patch", "compress", "decompress"}, s.cmd) && slices.Contains(foreignKinds, kind)
		return foreignRefused || slices.Contains(s.refused, kind) || slices.Contains(readOnlyKinds, kind)
	}
	for _, k := range fileKinds {
		for _, s := range steps {
			t.Run(k.name+"/"+s.cmd, func(t *testing.T) {
				dir := t.TempDir()
				f, g := filepath.Join(dir, "f"), filepath.Join(dir, "g")
				makeKind(t, k, f, base)
				makeKind(t, k, g, append(append([]string{}, base...), extra...))
				if s.cmd == "patch" && !refuses(s, k.name) {
					ok(t, "", "diff", "-o", f+".delta", f, g)
				} else {
					writeFile(t, f+".delta", "")
				}
				before, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				o := f + ".out"
				r := bc(t, "", s.args(f, g, o)...)
				if _, err := os.Stat(o); err == nil && r.code == 0 {
					if err := os.Rename(o, f); err != nil {
						t.Fatal(err)
					}
				} else if err == nil {
					t.Fatalf("%s of %s: exit %d, and %s written", s.cmd, k.name, r.code, o)
				}
				after, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if refuses(s, k.name) {
					if r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
						t.Fatalf("%s of %s: exit %d, stderr %q; want a one-line refusal, exit 2", s.cmd, k.name, r.code, r.stderr)
					}
					if !bytes.Equal(before, after) {
						t.Fatalf("%s of %s was refused but changed the file", s.cmd, k.name)
					}
					return
				}
				if r.code != 0 {
					t.Fatalf("%s of %s: exit %d, stderr %q", s.cmd, k.name, r.code, r.stderr)
				}
				rep := inspectJSON(t, f)
				wantCodec := k.codecName
				switch s.cmd {
				case "compress":
					wantCodec = rep.Codec // auto picks; checked below to be coded
					if wantCodec == "raw" {
						t.Fatalf("compress wrote a raw %s", k.name)
					}
				case "decompress":
					wantCodec = "raw"
				}
				if rep.Type != k.typ || rep.Codec != wantCodec || rep.Format != k.format() {
					t.Fatalf("%s of %s wrote format %q type %q codec %q, want %q %q %q", s.cmd, k.name, rep.Format, rep.Type, rep.Codec, k.format(), k.typ, wantCodec)
				}
				keys := base
				if s.cmd == "remove" {
					keys = base[1:] // base[0] was removed once
				}
				answers, code := queryAll(t, f, append(append([]string{}, keys...), s.keep...))
				if code != 0 {
					t.Fatalf("%s of %s lost keys: %d of %d absent", s.cmd, k.name, countAnswers(answers, "no"), len(answers))
				}
				if k.name == "squid" {
					if _, err := squid.Decode(after, squid.Limits{}); err != nil {
						t.Fatalf("%s of a Squid digest wrote what Squid's checks refuse: %v", s.cmd, err)
					}
				}
			})
		}
	}
}

// add on a Squid digest adds the URL's store key, as Squid would.
func TestAddSquidStoreKey(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sd")
	makeKind(t, fileKinds[5], f, urlKeys("a", 100))
	ok(t, "", "add", f, "HTTP://Example.com:80/new")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := squid.Decode(b, squid.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := squid.StoreKey(squid.GET, "http://example.com/new")
	if err != nil {
		t.Fatal(err)
	}
	if !d.ContainsKey(key) || d.Header.Count != 101 {
		t.Fatalf("store key present %t, count %d (want true, 101)", d.ContainsKey(key), d.Header.Count)
	}
	before := b
	failsWith(t, f+": key", "add", f, "not a url")
	if after, _ := os.ReadFile(f); !bytes.Equal(before, after) {
		t.Fatal("a refused add changed the digest")
	}
}

// Filters of different kinds do not combine.
func TestCombineKindsDiffer(t *testing.T) {
	dir := t.TempDir()
	f, g := filepath.Join(dir, "f"), filepath.Join(dir, "g")
	makeKind(t, fileKinds[0], f, urlKeys("a", 10))
	makeKind(t, fileKinds[3], g, urlKeys("a", 10))
	before, _ := os.ReadFile(f)
	failsWith(t, g+": a counting filter, and "+f+" is a Bloom filter", "union", "-o", f+".out", f, g)
	if after, _ := os.ReadFile(f); !bytes.Equal(before, after) {
		t.Fatal("a refused union changed the file")
	}
}
