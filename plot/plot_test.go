package plot_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/plot"
)

// svgElements parses an SVG document and returns its elements' names and
// the texts of its <text> elements; it fails the test if the document is
// not well-formed XML.
func svgElements(t *testing.T, doc []byte) (names, texts []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return names, texts
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v\n%s", err, doc)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			names = append(names, e.Name.Local)
			inText = e.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

func count(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}

func TestChartLinear(t *testing.T) {
	c := plot.Chart{
		Title: "A & B", XLabel: "x <units>", YLabel: "y",
		Series: []plot.Series{
			{Name: "model", X: []float64{1, 2, 3}, Y: []float64{2, 4, 6}, Line: true},
			{Name: "data", X: []float64{1, 2, 3}, Y: []float64{2.2, math.NaN(), 5.5}, Markers: true},
		},
	}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names, texts := svgElements(t, b.Bytes())
	if names[0] != "svg" || count(names, "polyline") != 1 || count(names, "circle") != 2+1 { // two points, one legend dot
		t.Errorf("elements %v", names)
	}
	for _, want := range []string{"A & B", "x <units>", "y", "model", "data", "0", "2", "6"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	// A linear y axis starts at zero, so heights compare honestly.
	if slices.Contains(texts, "1") && !slices.Contains(texts, "0") {
		t.Errorf("y ticks %q", texts)
	}
}

func TestChartLog(t *testing.T) {
	c := plot.Chart{
		LogX: true, LogY: true, MinY: 1e-6,
		Series: []plot.Series{
			{Name: "s", X: []float64{0.001, 0.01, 0.1, 0}, Y: []float64{1e-9, 0.02, 0.3, 5}, Markers: true, Dashed: true},
		},
	}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names, texts := svgElements(t, b.Bytes())
	// 1e-9 is below MinY and x = 0 cannot be on a log axis: two points
	// remain, joined by one dashed line.
	if count(names, "circle") != 2+1 || count(names, "polyline") != 1 || !strings.Contains(b.String(), "stroke-dasharray") {
		t.Errorf("elements %v", names)
	}
	for _, want := range []string{"0.01", "0.1", "1e-06", "1e-05", "1"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no tick %q in %q", want, texts)
		}
	}
}

func TestChartNoPoints(t *testing.T) {
	for _, c := range []plot.Chart{
		{},
		{LogY: true, Series: []plot.Series{{X: []float64{1, 2}, Y: []float64{0, -1}}}},
		{Series: []plot.Series{{X: []float64{1}, Y: []float64{math.Inf(1)}}}},
	} {
		if err := c.WriteSVG(io.Discard); err == nil || !strings.HasPrefix(err.Error(), "plot: ") {
			t.Errorf("%+v: err %v", c, err)
		}
	}
}

func TestChartOnePoint(t *testing.T) {
	var b bytes.Buffer
	c := plot.Chart{Width: 300, Height: 200, Series: []plot.Series{{Name: "p", X: []float64{5}, Y: []float64{5}, Markers: true}}}
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svgElements(t, b.Bytes())
	if !strings.Contains(b.String(), `width="300" height="200"`) || strings.Contains(b.String(), "NaN") {
		t.Errorf("%s", b.String())
	}
}

func TestPalette(t *testing.T) {
	if plot.Palette(0) != plot.Palette(8) || plot.Palette(0) == plot.Palette(1) || plot.Palette(-1) == "" {
		t.Error("palette does not cycle")
	}
}
