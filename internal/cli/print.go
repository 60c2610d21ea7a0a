package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// textTable collects rows and writes them in aligned columns: the first
// left-aligned, the others right-aligned, two spaces apart.
type textTable struct {
	rows [][]string
}

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *textTable) write(w io.Writer) error {
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
	_, err := io.WriteString(w, b.String())
	return err
}

// keyValues collects "label  value" lines and writes them with the values
// aligned.
type keyValues [][2]string

func (kv *keyValues) add(label, value string) { *kv = append(*kv, [2]string{label, value}) }

func (kv keyValues) write(w io.Writer) error {
	width := 0
	for _, r := range kv {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	var b strings.Builder
	for _, r := range kv {
		fmt.Fprintf(&b, "%s%s  %s\n", r[0], strings.Repeat(" ", width-utf8.RuneCountInString(r[0])), r[1])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rate formats a probability to four significant digits, keeping
// trailing zeros so that columns line up: "0.01000", "0.009995",
// "1.000e-06".
func rate(p float64) string { return fmt.Sprintf("%#.4g", p) }

// humanBytes formats a byte count with a binary unit: "512 B", "1.5 KiB".
func humanBytes(n int64) string {
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

// humanCount formats a count with a decimal suffix: "950", "1.23k",
// "4.5M".
func humanCount(v float64) string {
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
