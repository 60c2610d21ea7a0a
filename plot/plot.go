// Package plot draws line charts as self-contained SVG images, with linear
// or logarithmic axes, lines, markers and a legend, without a plotting
// dependency: every chart of bloomcast (the simulations' figures, calc
// --plot, table --plot) is drawn by it.
package plot

import (
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// Chart is a line chart of one or more series that WriteSVG draws as a
// self-contained SVG image, so that the simulations can show their
// figures without a plotting dependency.
// The zero Chart has no series: WriteSVG returns an error, as it does for
// any chart with no point to draw.
type Chart struct {
	Title, XLabel, YLabel string
	// LogX and LogY put an axis on a logarithmic scale; points with a
	// coordinate ≤ 0 are then left out. A linear y axis always includes 0,
	// so that heights compare honestly.
	LogX, LogY bool
	// MinY, if not 0, is the bottom of the y axis (if positive, on a log
	// axis): points below it are left out, so that a model tending to 0 on
	// a log axis does not squeeze the decades where the data are.
	MinY   float64
	Series []Series
	// Width and Height are the image's size in pixels; 0 means 760 wide,
	// 440 high.
	Width, Height int
}

// Series is one named set of points of a Chart, drawn in order of X as
// given.
// The zero value is an unnamed series with no points, drawn as a line in its
// Palette colour.
type Series struct {
	Name string
	X, Y []float64
	// Color is an SVG colour; "" means Palette(i) for the i-th series.
	Color string
	// Line joins the points; Dashed dashes the line; Markers draws a dot at
	// each point. With neither Line nor Markers the series draws a line.
	Line, Dashed, Markers bool
	// Hollow draws the markers as larger rings, so that a point another
	// series draws at the same place stays visible inside it.
	Hollow bool
}

// Palette returns the i-th of eight colours, cycling: Okabe and Ito's
// palette, which stays distinguishable with the common forms of colour
// blindness, without its yellow (too faint on white) and with grey.
func Palette(i int) string {
	colors := [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000", "#999999"}
	return colors[((i%len(colors))+len(colors))%len(colors)]
}

// Plot margins in pixels: room for tick labels on the left and below, and
// for the legend on the right.
const (
	plotLeft   = 72
	plotTop    = 40
	plotBottom = 56
	legendW    = 210
)

// axis maps data values on one axis to pixels.
type axis struct {
	log            bool
	lo, hi         float64 // the axis range, in data units (log10 units if log)
	pixLo, pixHi   float64
	ticks          []float64 // in data units
	dataLo, dataHi float64
	floor          float64 // if not 0, values below are not drawn
}

func (a *axis) usable(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!a.log || v > 0) && (a.floor == 0 || v >= a.floor)
}

func (a *axis) add(v float64) {
	if !a.usable(v) {
		return
	}
	a.dataLo, a.dataHi = math.Min(a.dataLo, v), math.Max(a.dataHi, v)
}

// scale picks the range and ticks: whole decades for a log axis, steps of
// 1, 2 or 5 times a power of ten for a linear one.
func (a *axis) scale(fromZero bool) {
	lo, hi := a.dataLo, a.dataHi
	if a.floor > 0 || (a.floor < 0 && !a.log) {
		lo = a.floor
	} else if fromZero && !a.log {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if a.log {
		// Round to decades, forgiving log10's last-bit errors.
		a.lo, a.hi = math.Floor(math.Log10(lo)+1e-9), math.Ceil(math.Log10(hi)-1e-9)
		if a.hi == a.lo {
			a.hi++
		}
		every := math.Ceil((a.hi - a.lo) / 8) // at most 9 labelled decades
		for e := a.lo; e <= a.hi; e += every {
			a.ticks = append(a.ticks, math.Pow(10, e))
		}
		return
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	step := niceStep((hi - lo) / 5)
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	a.lo, a.hi = first*step, last*step
	for i := first; i <= last; i++ {
		a.ticks = append(a.ticks, i*step) // whole multiples, so 0 is exact
	}
}

// niceStep returns the smallest of 1, 2 or 5 times a power of ten that is
// at least raw.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= raw*(1-1e-9) {
			return f * p
		}
	}
	return 10 * p
}

// pix returns the pixel coordinate of v.
func (a *axis) pix(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	return a.pixLo + (v-a.lo)/(a.hi-a.lo)*(a.pixHi-a.pixLo)
}

// WriteSVG draws the chart. It fails only if no series has a point it
// can draw, or if w does.
func (c Chart) WriteSVG(w io.Writer) error { return Stack(w, c) }

// Stack draws the charts one above the other in one SVG image, each at its
// own size (the widest sets the image's width): several quantities against
// the same x, each on its own y axis. It fails if a chart has no point it
// can draw, or if w does.
func Stack(w io.Writer, charts ...Chart) error {
	if len(charts) == 0 {
		return errors.New("plot: no chart to draw")
	}
	var body strings.Builder
	width, height := 0, 0
	for _, c := range charts {
		cw, ch := c.size()
		if len(charts) > 1 {
			fmt.Fprintf(&body, `<g transform="translate(0 %d)">`+"\n", height)
		}
		if err := c.draw(&body, cw, ch); err != nil {
			return err
		}
		if len(charts) > 1 {
			body.WriteString("</g>\n")
		}
		width, height = max(width, cw), height+ch
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// size returns the chart's size in pixels.
func (c Chart) size() (int, int) {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = 760
	}
	if h <= 0 {
		h = 440
	}
	return w, h
}

// draw writes the chart's elements for a width × height area.
func (c Chart) draw(b *strings.Builder, width, height int) error {
	x := axis{log: c.LogX, dataLo: math.Inf(1), dataHi: math.Inf(-1)}
	y := axis{log: c.LogY, dataLo: math.Inf(1), dataHi: math.Inf(-1), floor: c.MinY}
	points := 0
	for _, s := range c.Series {
		for i := range min(len(s.X), len(s.Y)) {
			if x.usable(s.X[i]) && y.usable(s.Y[i]) {
				x.add(s.X[i])
				y.add(s.Y[i])
				points++
			}
		}
	}
	if points == 0 {
		return fmt.Errorf("plot: chart %q has no point to draw", c.Title)
	}
	x.scale(false)
	y.scale(true)
	x.pixLo, x.pixHi = plotLeft, float64(width-legendW)
	y.pixLo, y.pixHi = float64(height-plotBottom), plotTop
	c.drawAxes(b, &x, &y)
	for i, s := range c.Series {
		drawSeries(b, s, cmpColor(s.Color, i), &x, &y)
	}
	c.drawLegend(b, width)
	return nil
}

func cmpColor(c string, i int) string {
	if c == "" {
		return Palette(i)
	}
	return c
}

// drawAxes draws the frame, the grid, the tick labels, the axis labels and
// the title.
func (c Chart) drawAxes(b *strings.Builder, x, y *axis) {
	for _, t := range x.ticks {
		px := x.pix(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e4e4"/>`+"\n", num(px), num(y.pixLo), num(px), num(y.pixHi))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(px), num(y.pixLo+16), tickLabel(t))
	}
	for _, t := range y.ticks {
		py := y.pix(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e4e4"/>`+"\n", num(x.pixLo), num(py), num(x.pixHi), num(py))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", num(x.pixLo-6), num(py+4), tickLabel(t))
	}
	fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#444"/>`+"\n",
		num(x.pixLo), num(y.pixHi), num(x.pixHi-x.pixLo), num(y.pixLo-y.pixHi))
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
		num((x.pixLo+x.pixHi)/2), num(y.pixLo+38), html.EscapeString(c.XLabel))
	mid := (y.pixLo + y.pixHi) / 2
	fmt.Fprintf(b, `<text x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>`+"\n",
		num(mid), num(mid), html.EscapeString(c.YLabel))
	fmt.Fprintf(b, `<text x="%s" y="24" text-anchor="middle" font-size="15">%s</text>`+"\n",
		num((x.pixLo+x.pixHi)/2), html.EscapeString(c.Title))
}

// drawSeries draws one series: its line, broken where a point cannot be
// drawn, and its markers.
func drawSeries(b *strings.Builder, s Series, color string, x, y *axis) {
	line := s.Line || s.Dashed || !s.Markers
	dash := ""
	if s.Dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	var seg []string
	flush := func() {
		if line && len(seg) > 1 {
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.8"%s/>`+"\n", strings.Join(seg, " "), color, dash)
		}
		seg = seg[:0]
	}
	for i := range min(len(s.X), len(s.Y)) {
		if !x.usable(s.X[i]) || !y.usable(s.Y[i]) {
			flush()
			continue
		}
		px, py := num(x.pix(s.X[i])), num(y.pix(s.Y[i]))
		seg = append(seg, px+","+py)
		if s.Markers {
			marker(b, px, py, color, s.Hollow)
		}
	}
	flush()
}

// marker draws one point: a dot, or a ring around where a dot would be.
func marker(b *strings.Builder, px, py, color string, hollow bool) {
	if hollow {
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="5.5" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", px, py, color)
		return
	}
	fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3.2" fill="%s"/>`+"\n", px, py, color)
}

// drawLegend lists the series in the right margin.
func (c Chart) drawLegend(b *strings.Builder, width int) {
	x0 := float64(width-legendW) + 14
	for i, s := range c.Series {
		yy := float64(plotTop) + 8 + float64(i)*18
		color := cmpColor(s.Color, i)
		if s.Line || s.Dashed || !s.Markers {
			dash := ""
			if s.Dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.8"%s/>`+"\n",
				num(x0), num(yy), num(x0+24), num(yy), color, dash)
		}
		if s.Markers {
			marker(b, num(x0+12), num(yy), color, s.Hollow)
		}
		fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", num(x0+32), num(yy+4), html.EscapeString(s.Name))
	}
}

// num formats a pixel coordinate to one decimal.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// tickLabel formats a tick value briefly: "0.001", "2.5", "1e-05".
func tickLabel(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
