package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/scalable"
)

func scalableJSON(t *testing.T, path string) filereport.ScalableReport {
	t.Helper()
	var r filereport.ScalableReport
	if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", path)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestScalable: build --scalable, add growing it in place, inspect,
// query, compress, diff and patch of one layer, union.
func TestScalable(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("key", 3000)
	more, moreLines := keyLines("more", 500)
	f := filepath.Join(dir, "s.bf")
	ok(t, lines, "build", "--scalable", "-n", "1000", "-p", "0.01", "--expansion", "4", "--tightening", "0.8", "-o", f)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scalable.Decode(data, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.Capacity != 1000 || c.Expansion != 4 || c.Tightening != 0.8 || s.Layers() != 2 {
		t.Fatalf("built %v", s)
	}
	old := filepath.Join(dir, "old.bf")
	if err := os.WriteFile(old, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, moreLines, "add", f)
	r := scalableJSON(t, f)
	if len(r.Layers) != 2 || r.Count < 3400 || r.PredictedRate > 0.01 || r.Type != "scalable" || r.Format != "bloomcast" {
		t.Errorf("after add: %+v", r)
	}
	if text := ok(t, "", "inspect", f); !strings.Contains(text, "layer 1") || !strings.Contains(text, "compound rate") {
		t.Errorf("inspect:\n%s", text)
	}
	if answers, code := queryAll(t, f, append(keys, more...)); code != 0 || countAnswers(answers, "maybe") != len(keys)+len(more) {
		t.Fatalf("query: exit %d", code)
	}
	z := filepath.Join(dir, "s.z")
	ok(t, "", "compress", "--codec", "fast", "-o", z, f)
	if zr := scalableJSON(t, z); zr.Codec != "fast" || zr.EncodedBytes >= r.EncodedBytes || zr.Count != r.Count {
		t.Errorf("compressed: %+v", zr)
	}
	delta := filepath.Join(dir, "d")
	ok(t, "", "diff", "--codec", "fast", "-o", delta, old, f)
	if text := ok(t, "", "inspect", delta); !strings.Contains(text, "scalable") {
		t.Errorf("inspect of the delta:\n%s", text)
	}
	if fi, _ := os.Stat(delta); fi.Size() >= int64(len(data))/2 {
		t.Errorf("delta of one layer is %d bytes, the filter %d", fi.Size(), len(data))
	}
	patched := filepath.Join(dir, "p.bf")
	ok(t, "", "patch", "-o", patched, old, delta)
	if p := scalableJSON(t, patched); p.Count != r.Count || p.Sequence != 1 || p.Rate != r.Rate {
		t.Errorf("patched: %+v", p)
	}
	u := filepath.Join(dir, "u.bf")
	ok(t, "", "union", "-o", u, old, f)
	if ur := scalableJSON(t, u); len(ur.Layers) != 2 {
		t.Errorf("union: %+v", ur)
	}
	failsWith(t, f+": a scalable Bloom filter is not folded", "fold", "-o", filepath.Join(dir, "x"), f)
	failsWith(t, z+": a scalable Bloom filter: only Bloom filters are coded in pieces", "compress", "--piece-size", "64", "-o", filepath.Join(dir, "x"), z)
	ns := filepath.Join(dir, "ns.bf")
	failsWith(t, ns+": filter is full", "build", "--scalable", "--non-scaling", "-n", "10", "-o", ns, writeFile(t, filepath.Join(dir, "k"), lines))
	failsWith(t, "build: --expansion 0", "build", "--scalable", "--expansion", "0", "-o", ns)
}

func TestSimGrowth(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "g.svg")
	out := ok(t, "", "sim", "growth", "-n", "100", "--keys", "10000", "--probes", "10000", "--plot", svg)
	if !strings.Contains(out, "s = 4, r = 0.9") || !strings.Contains(out, "     10000 ") {
		t.Errorf("sim growth:\n%s", out)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("plot: %v", err)
	}
	failsWith(t, "sim: 1 expansions and 2 tightenings", "sim", "growth", "--expansion", "2")
	// Fewer keys than the capacity leave no point to measure: an error,
	// not a report of nothing and "points": null.
	failsWith(t, "sim: --keys 100 is below -n 1000", "sim", "growth", "-n", "1000", "--keys", "100", "--json")
}
