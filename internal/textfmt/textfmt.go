// Package textfmt lays out the plain-text forms of the library's reports
// (params, digest, sim, mht, anyfile) and of the bloomcast command's
// output alike: aligned tables, aligned "label  value" lines, and the
// number formats they share.
package textfmt

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Table collects rows and writes them in aligned columns: the first
// left-aligned, the others right-aligned, two spaces apart, trailing
// spaces trimmed. The zero value is an empty table.
type Table struct {
	rows [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// WriteTo writes the table to w.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i == 0 {
				line.WriteString(c + pad)
			} else {
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// KeyValues collects "label  value" lines and writes them with the
// values aligned. The zero value has no lines.
type KeyValues [][2]string

// Add appends a line.
func (kv *KeyValues) Add(label, value string) { *kv = append(*kv, [2]string{label, value}) }

// WriteTo writes the lines to w.
func (kv KeyValues) WriteTo(w io.Writer) (int64, error) {
	width := 0
	for _, r := range kv {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	var b strings.Builder
	for _, r := range kv {
		fmt.Fprintf(&b, "%s%s  %s\n", r[0], strings.Repeat(" ", width-utf8.RuneCountInString(r[0])), r[1])
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Rate formats a probability to four significant digits, keeping
// trailing zeros so that columns line up: "0.01000", "0.009995",
// "1.000e-06".
func Rate(p float64) string { return fmt.Sprintf("%#.4g", p) }

// Bytes formats a byte count with a binary unit: "512 B", "1.5 KiB".
func Bytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// Share formats a fraction as a percentage that keeps small shares
// readable: "0%", "0.0012%", "3.45%", "12.5%".
func Share(f float64) string {
	switch p := 100 * f; {
	case p == 0:
		return "0%"
	case p < 0.01:
		return fmt.Sprintf("%.2g%%", p)
	case p < 10:
		return fmt.Sprintf("%.2f%%", p)
	default:
		return fmt.Sprintf("%.1f%%", p)
	}
}

// Seconds formats a span given in seconds as a duration to the second
// ("1h2m3s"), or in milliseconds below a second ("250ms").
func Seconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// Count formats a count with a decimal suffix: "950", "1.23k", "4.5M".
func Count(v float64) string {
	switch {
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v < 1e6:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	case v < 1e9:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	}
	return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
}

// Float formats v with prec digits after the point ('f' format).
func Float(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// Percent formats a fraction as a percentage with one decimal: "12.5%".
func Percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// Wrap breaks text into lines of at most width columns at spaces (a
// word longer than width gets a line of its own); runs of white space
// become one space.
func Wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case col == 0:
		case col+1+n > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// Writer writes formatted text to an io.Writer and keeps the first
// error, so that a report's text form can be written line by line and
// checked once. The zero value is not usable; make one with NewWriter.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Printf writes a formatted line (or part of one) unless an earlier write
// failed.
func (w *Writer) Printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// Println writes its arguments as fmt.Fprintln does unless an earlier
// write failed.
func (w *Writer) Println(args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintln(w.w, args...)
	}
}

// Write writes t (a Table or KeyValues) unless an earlier write failed.
func (w *Writer) Write(t io.WriterTo) {
	if w.err == nil {
		_, w.err = t.WriteTo(w.w)
	}
}

// Err returns the first error of any write.
func (w *Writer) Err() error { return w.err }
