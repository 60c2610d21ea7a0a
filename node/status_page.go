package node

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/internal/squidlog"
	"github.com/bloomcast/bloomcast/internal/textfmt"
)

//go:embed status.html
var statusHTML string

// statusPage renders nodestatus.Status as one self-contained HTML page: inline
// style, an inline SVG chart and one inline script that refreshes it; no
// external script, font or style, so that it works offline and under
// the Content-Security-Policy it is served with.
var statusPage = template.Must(template.New("status").Funcs(template.FuncMap{
	"pct":        textfmt.Share,
	"bytes":      templateBytes,
	"dur":        textfmt.Seconds,
	"stateClass": func(s string) string { return strings.ReplaceAll(s, " ", "") },
}).Parse(statusHTML))

// statusRefresh is how often the page refreshes itself with
// JavaScript on; ?refresh=N (1 to 3600 s) changes it.
const statusRefresh = 5 * time.Second

// statusCSP allows the page nothing from elsewhere, and no page to frame
// it (frame-ancestors, which default-src does not cover), nor a base URL
// or a form target another origin's.
const statusCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// statusView is what the page's template reads.
type statusView struct {
	S              nodestatus.Status
	JSONPath       string
	RefreshSeconds int
	CacheFill      float64
	Failing        int
	FailingNames   []string
	Chart          statusChart
}

// statusChart is the page's chart of the last hour: per minute, a bar
// of the requests' outcomes as shares (stacked), and the share of
// requests that met a false hit as a line.
type statusChart struct {
	Width, Height int
	Bars          []chartBar
	FalseHits     string // polyline points
}

type chartBar struct {
	Class, Fill, Title string
	X, Y, W, H         float64
}

func (n *Node) serveStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		n.refuse(w, r, squidlog.CodeNone, http.StatusMethodNotAllowed, "method not allowed: the status page answers GET")
		return
	}
	refresh := statusRefresh
	if v := r.URL.Query().Get("refresh"); v != "" {
		s, err := strconv.Atoi(v)
		if err != nil || s < 1 || s > 3600 {
			n.refuse(w, r, squidlog.CodeNone, http.StatusBadRequest, "bad refresh: want whole seconds from 1 to 3600")
			return
		}
		refresh = time.Duration(s) * time.Second
	}
	v := newStatusView(n.status(), refresh)
	var b strings.Builder
	if err := statusPage.Execute(&b, v); err != nil { // a template error is a bug; say so
		http.Error(w, "status page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", statusCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY") // frame-ancestors, for browsers without it
	// A failed write means the client went away.
	_, _ = w.Write([]byte(b.String()))
}

func (n *Node) serveStatusJSON(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		n.refuse(w, r, squidlog.CodeNone, http.StatusMethodNotAllowed, "method not allowed: the status answers GET")
		return
	}
	b, err := json.MarshalIndent(n.status(), "", "  ")
	if err != nil {
		http.Error(w, "status: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(append(b, '\n'))
}

func newStatusView(s nodestatus.Status, refresh time.Duration) statusView {
	v := statusView{S: s, JSONPath: nodestatus.JSONPath, RefreshSeconds: int(refresh / time.Second), Chart: newStatusChart(s.Requests.Minutes)}
	if s.Node.BudgetBytes > 0 {
		v.CacheFill = float64(s.Node.Bytes) / float64(s.Node.BudgetBytes)
	}
	for _, p := range s.Peers {
		if p.State == nodestatus.PeerStateFailing {
			v.Failing++
			v.FailingNames = append(v.FailingNames, p.Name)
		}
	}
	return v
}

// Colours of the chart, as the page's key shows them.
const (
	colourLocal = "#2a9d3f"
	colourPeer  = "#2f6fd6"
	colourMiss  = "#999"
	colourOther = "#ddd"
)

func newStatusChart(minutes []nodestatus.Minute) statusChart {
	const barW, gap, height = 9.0, 1.0, 120.0
	c := statusChart{Width: int(float64(len(minutes))*(barW+gap)) + 1, Height: int(height)}
	var line []string
	for i, m := range minutes {
		t := float64(m.Total())
		if t == 0 {
			continue
		}
		x := float64(i) * (barW + gap)
		y := height
		title := fmt.Sprintf("%s: %d requests: %d local hits, %d peer hits, %d misses, %d other, %d false hits",
			m.Start.UTC().Format("15:04"), m.Total(), m.LocalHits, m.PeerHits, m.Misses, m.Other, m.FalseHits)
		for _, part := range []struct {
			class, fill string
			n           uint64
		}{{"local", colourLocal, m.LocalHits}, {"peer", colourPeer, m.PeerHits}, {"miss", colourMiss, m.Misses}, {"other", colourOther, m.Other}} {
			if part.n == 0 {
				continue
			}
			h := height * float64(part.n) / t
			y -= h
			c.Bars = append(c.Bars, chartBar{Class: part.class, Fill: part.fill, Title: title, X: x, Y: y, W: barW, H: h})
		}
		line = append(line, fmt.Sprintf("%g,%g", x+barW/2, height-height*float64(m.FalseHits)/t))
	}
	if len(line) > 1 {
		c.FalseHits = strings.Join(line, " ")
	}
	return c
}

// templateBytes is textfmt.Bytes for the page's template, whose fields
// are of several integer types.
func templateBytes(v any) string {
	switch x := v.(type) {
	case int:
		return textfmt.Bytes(int64(x))
	case int64:
		return textfmt.Bytes(x)
	case uint64:
		return textfmt.Bytes(int64(x))
	}
	return fmt.Sprint(v)
}
