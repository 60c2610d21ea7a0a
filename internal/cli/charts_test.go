package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata")

// svgTexts parses an SVG file and returns the texts of its <text>
// elements and the number of its charts' polylines; it fails the test if
// the file is not well-formed XML.
func svgTexts(t *testing.T, path string) ([]string, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	lines, inText := 0, false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inText = v.Name.Local == "text"
			if v.Name.Local == "polyline" {
				lines++
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(v))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts, lines
}

// TestTablePlotGolden: table --plot draws Figure 4 of Fan et al. byte for
// byte as testdata/table-figure4.svg holds it (go test -run
// TestTablePlotGolden -update rewrites it after an intended change).
func TestTablePlotGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fig4.svg")
	if text := ok(t, "", "table", "--plot", out); !strings.Contains(text, "m/n") {
		t.Errorf("table --plot no longer prints the table:\n%.200s", text)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "table-figure4.svg")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("table --plot differs from %s", golden)
	}
	texts, lines := svgTexts(t, out)
	joined := strings.Join(texts, "|")
	if lines != 2 || !strings.Contains(joined, "k = 4") || !strings.Contains(joined, "optimal k") || !strings.Contains(joined, "Figure 4") {
		t.Errorf("Figure 4: %d lines, texts %q", lines, texts)
	}
}

func TestCalcPlot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.svg")
	ok(t, "", "calc", "-n", "10000", "-m", "100000", "--plot", out)
	texts, lines := svgTexts(t, out)
	joined := strings.Join(texts, "|")
	for _, l := range []string{"classic", "partitioned", "blocked", "paged"} {
		if !strings.Contains(joined, "|"+l+"|") && !strings.HasSuffix(joined, "|"+l) {
			t.Errorf("calc --plot lacks the %s line: %q", l, texts)
		}
	}
	if lines != 4 {
		t.Errorf("calc --plot: %d lines, want 4", lines)
	}
	out = filepath.Join(dir, "t.svg")
	ok(t, "", "calc", "-n", "10000", "--transmit", "8", "--max-bpk", "100", "--plot", out)
	texts, lines = svgTexts(t, out)
	joined = strings.Join(texts, "|")
	if lines != 5 || !strings.Contains(joined, "rate against k") || !strings.Contains(joined, "sent (z/n)") || !strings.Contains(joined, "standard, k = 6") {
		t.Errorf("calc --transmit --plot: %d lines, texts %q", lines, texts)
	}
	failsWith(t, "calc: --plot draws the rate against k for given -n N and -m M; it needs both", "calc", "-n", "100", "-p", "0.01", "--plot", out)
	failsWith(t, "calc: --plot means nothing with --counting", "calc", "--counting", "-n", "100", "-m", "1000", "--plot", out)
}

// TestPlotUnwritableDir: --plot in a directory of mode 0555 is refused as
// the flags are read, before the run, not after it; inplace refuses such a
// directory to root too, so the test holds for every user. A check that
// passes leaves nothing in the directory but the chart.
func TestPlotUnwritableDir(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(ro, "fig.svg")
	want := `--plot "` + out + `": ` + ro + `: not writable: the directory's mode -r-xr-xr-x lets no one create files in it`
	for _, args := range [][]string{
		{"calc", "-n", "1000", "-m", "10000"},
		{"table"},
		{"simulate", "--requests", "2000", "--objects", "500", "--modes", "none"},
		{"sim", "loops"},
	} {
		msg := failsWith(t, args[0]+": "+want, append(args, "--plot", out)...)
		if !isUsageLine(msg, args[0]) {
			t.Errorf("%q: %q is not a usage line", args, msg)
		}
	}

	rw := filepath.Join(dir, "rw")
	if err := os.Mkdir(rw, 0o755); err != nil {
		t.Fatal(err)
	}
	ok(t, "", "table", "--plot", filepath.Join(rw, "fig.svg"))
	if names, _ := filepath.Glob(filepath.Join(rw, "*")); len(names) != 1 {
		t.Errorf("%s holds %q, want the chart alone", rw, names)
	}
	if names, _ := filepath.Glob(filepath.Join(rw, ".*")); len(names) != 0 {
		t.Errorf("%s holds %q: a temporary file was left", rw, names)
	}
}

// TestPlotOutput: --plot -, a directory, or a file in a directory that
// does not exist is refused before anything runs (- wrote a file named
// "-", the others failed after the whole run); and an existing chart is
// replaced whole, as -o replaces a filter, not rewritten in place under
// a reader that has it open.
func TestPlotOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	failsWith(t, `table: --plot "-": standard output carries the report`, "table", "--plot", "-")
	failsWith(t, `sim: --plot "-": standard output carries the report`, "sim", "loops", "--plot", "-")
	if _, err := os.Stat("-"); err == nil {
		t.Error(`--plot - wrote a file named "-"`)
	}
	dir := t.TempDir()
	failsWith(t, `table: --plot "`+dir+`": a directory: name the SVG file to write`, "table", "--plot", dir)
	// Refused before the replay, not after it.
	missing := filepath.Join(dir, "no", "fig.svg")
	failsWith(t, `simulate: --plot "`+missing+`": no directory `+filepath.Dir(missing), "simulate", "--requests", "2000", "--objects", "500",
		"--modes", "none", "--plot", missing)

	out := filepath.Join(dir, "fig.svg")
	writeFile(t, out, "old chart")
	reader, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ok(t, "", "table", "--plot", out)
	if b, _ := io.ReadAll(reader); string(b) != "old chart" {
		t.Errorf("a reader of the old chart read %.40q: it was rewritten in place", b)
	}
	if !strings.HasPrefix(readString(out), "<svg") {
		t.Errorf("%s: %.40q, want the new chart", out, readString(out))
	}
}
