package coders

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	return compare.EncodeJSON(w, r)
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// WriteMarkdown writes the environment, the coders, the table of sizes
// and speeds (one row per density, a column group per coder) and the
// table of sizes in bytes.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.\n\n", r.Env.Measured(true))
	fmt.Fprintf(&b, "m = %s bits (%s) per array, i.i.d. bits of density p (seed %d); %d interleaved rounds.\n\n",
		group(r.M), size(r.M/8), r.Seed, r.Reps)
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "- **%s**: %s\n", row.Name, row.Note)
	}
	b.WriteString("\nSize: stream bytes over m·H(p̂)/8, p̂ the array's measured density. " +
		"Speed: MB/s (10^6 bytes) of uncompressed array, encode / decode, median over the rounds, " +
		"on the CPU time of the measuring thread, wall clock in brackets.\n\n")
	b.WriteString("| p |")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, " %s size | %s enc / dec MB/s |", row.Name, row.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|--:|", len(r.Rows)) + "\n")
	for _, c := range r.Cases {
		b.WriteString("| " + density(c.P) + " |")
		for _, res := range c.Results {
			fmt.Fprintf(&b, " %s | %s / %s (%s / %s) |", ratio(res),
				speed(res.Encode.MBps), speed(res.Decode.MBps), speed(res.Encode.WallMBps), speed(res.Decode.WallMBps))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nSizes in bytes:\n\n| p | p̂ | m·H(p̂)/8 |")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, " %s |", row.Name)
	}
	b.WriteString("\n|---|--:|--:|" + strings.Repeat("--:|", len(r.Rows)) + "\n")
	for _, c := range r.Cases {
		fmt.Fprintf(&b, "| %s | %.5f | %s |", density(c.P), c.Density, group(uint64(math.Round(c.Ideal))))
		for _, res := range c.Results {
			fmt.Fprintf(&b, " %s |", group(uint64(res.Bytes)))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratio formats a result's size ratio, with the variant the coder
// picked where it says.
func ratio(r Result) string {
	s := "—"
	if r.Ratio > 0 {
		s = strconv.FormatFloat(r.Ratio, 'f', 5, 64)
	}
	if r.Variant != "" {
		s += " (" + r.Variant + ")"
	}
	return s
}

// speed formats MB/s with about three significant digits.
func speed(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// density formats p with two decimals where that loses nothing, else in
// full.
func density(p float64) string {
	if math.Abs(p*100-math.Round(p*100)) < 1e-9 {
		return strconv.FormatFloat(p, 'f', 2, 64)
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// size writes a byte count in KiB or MiB where it is a whole number of
// them.
func size(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatUint(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatUint(n>>10, 10) + " KiB"
	}
	return strconv.FormatUint(n, 10) + " bytes"
}

// group writes n with thousands separators: 8,388,608.
func group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
