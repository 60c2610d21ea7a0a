package report

import (
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bloomcast/bloomcast/params"
)

// TableRow is one row of the false-positive tables of Fan, Cao, Almeida and
// Broder ("Summary cache", 2000, Tables 3–5).
// The zero value is a row with no rates.
type TableRow struct {
	// BitsPerKey is m/n.
	BitsPerKey int
	// OptimalK is ln2·m/n, the real k that minimises the approximate rate.
	OptimalK float64
	// Rates[k-1] is (1 − e^(−k/(m/n)))^k for the k's the paper printed,
	// k = 1 .. len(Rates).
	Rates []float64
}

// SeedTable returns the rows of Tables 3–5 of Fan et al. (2000) for
// m/n = from..to (from is raised to 1; an empty range gives nil). The paper
// prints k from 1 up to min(m/n, ⌈ln2·m/n⌉ + 1): just past the optimum, and
// never more probes than bits per key. That rule reproduces every printed
// row for m/n = 2..32; the package tests check it cell by cell against the
// paper.
func SeedTable(from, to int) []TableRow {
	var rows []TableRow
	for bpk := max(from, 1); bpk <= to; bpk++ {
		opt := math.Ln2 * float64(bpk)
		kMax := min(bpk, int(math.Ceil(opt))+1)
		rates := make([]float64, kMax)
		for k := 1; k <= kMax; k++ {
			rates[k-1] = params.ApproxFalsePositive(uint64(bpk), 1, k)
		}
		rows = append(rows, TableRow{BitsPerKey: bpk, OptimalK: opt, Rates: rates})
	}
	return rows
}

// WriteTable writes rows as a plain-text table with right-aligned columns
// m/n, ln2·m/n and k=1 .. the largest k of any row, every real number at
// three significant digits (strconv 'g' format, as the paper printed them).
func WriteTable(w io.Writer, rows []TableRow) error {
	cells := tableCells(rows)
	width := make([]int, len(cells[0]))
	for _, line := range cells {
		for c, s := range line {
			width[c] = max(width[c], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		var l strings.Builder
		for c, s := range line {
			if c > 0 {
				l.WriteString("  ")
			}
			l.WriteString(strings.Repeat(" ", width[c]-utf8.RuneCountInString(s)))
			l.WriteString(s)
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTableMarkdown writes the same table as [WriteTable] in GitHub
// Markdown, numbers right-aligned, cells beyond a row's last k left empty.
func WriteTableMarkdown(w io.Writer, rows []TableRow) error {
	cells := tableCells(rows)
	var b strings.Builder
	for i, line := range cells {
		for _, s := range line {
			b.WriteString("| ")
			if s != "" {
				b.WriteString(s + " ")
			}
		}
		b.WriteString("|\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" ---: |", len(line)) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableCells lays rows out as strings, header first; every line has the same
// number of cells, empty where a row has no such k.
func tableCells(rows []TableRow) [][]string {
	kMax := 0
	for _, r := range rows {
		kMax = max(kMax, len(r.Rates))
	}
	header := []string{"m/n", "ln2·m/n"}
	for k := 1; k <= kMax; k++ {
		header = append(header, "k="+strconv.Itoa(k))
	}
	cells := [][]string{header}
	for _, r := range rows {
		line := make([]string, 2+kMax)
		line[0] = strconv.Itoa(r.BitsPerKey)
		line[1] = format3(r.OptimalK)
		for k, f := range r.Rates {
			line[2+k] = format3(f)
		}
		cells = append(cells, line)
	}
	return cells
}

// format3 formats x to three significant digits the way the paper prints
// them: "0.0216", "0.024", "7.46e-05".
func format3(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
