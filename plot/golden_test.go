package plot_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/plot"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it)", path, t.Name())
	}
}

// TestStackGolden draws two charts stacked, a log and a linear y axis
// against the same x, byte for byte as testdata/stack.svg holds them.
func TestStackGolden(t *testing.T) {
	k := []float64{1, 2, 3, 4, 5, 6}
	rate := plot.Chart{
		Title: "rate against k", XLabel: "k", YLabel: "false-positive rate", LogY: true,
		Series: []plot.Series{
			{Name: "classic", X: k, Y: []float64{0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216}, Line: true, Markers: true},
			{Name: "blocked", X: k, Y: []float64{0.121, 0.0512, 0.0331, 0.0268, 0.0249, 0.0254}, Dashed: true},
		},
	}
	size := plot.Chart{
		Title: "size against k", XLabel: "k", YLabel: "bits per key", Height: 300,
		Series: []plot.Series{{Name: "m·H(p)/n", X: k, Y: []float64{3.1, 4.6, 5.9, 6.8, 7.5, 8}, Markers: true}},
	}
	var b bytes.Buffer
	if err := plot.Stack(&b, rate, size); err != nil {
		t.Fatal(err)
	}
	golden(t, "stack.svg", b.Bytes())
	names, texts := svgElements(t, b.Bytes())
	if n := strings.Count(strings.Join(names, " "), "g"); n < 2 || !strings.Contains(strings.Join(texts, "|"), "size against k") {
		t.Errorf("stacked SVG: %d groups, texts %q", n, texts)
	}
	if !strings.Contains(b.String(), `height="740"`) {
		t.Error("stacked height is not 440 + 300")
	}
	if err := plot.Stack(&b); err == nil {
		t.Error("Stack of nothing drew")
	}
}
