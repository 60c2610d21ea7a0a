package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteJSON writes the report and its checks as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*Report
		Checks []Check `json:"checks"`
	}{r, Checks(r)})
}

// ReadJSON reads a report written by WriteJSON. Rows missing from an
// older file are filled in from Contenders.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, err
	}
	if r.Clock == "" {
		r.Clock = ClockWall // files from before the CPU clock
	}
	if len(r.Rows) == 0 {
		for _, ct := range Contenders() {
			r.Rows = append(r.Rows, Row{ct.Name, ct.Note})
		}
	}
	return &r, nil
}

// WriteMarkdown writes one table per case, then the ratio checks.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	e := r.Env
	fmt.Fprintf(&b, "Measured %s with %s on %s/%s, %s (%d CPUs). Times are medians of per-pass ns/key, %s.\n\n",
		e.Date, e.GoVersion, e.OS, e.Arch, e.CPU, e.NumCPU, clockNote(r.Clock))
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "- **%s**: %s\n", row.Name, row.Note)
	}
	b.WriteString("\n")
	for _, c := range r.Cases {
		writeCase(&b, c, r.Batch)
	}
	writeChecks(&b, Checks(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCase(b *strings.Builder, c Case, batch int) {
	fmt.Fprintf(b, "### n = %s, p = %g\n\n", group(c.N), c.P)
	fmt.Fprintf(b, "%s members, %s non-members, median of %d passes. %s"+
		"Batch columns: bloomcast only, "+
		"HashString then ContainsBatch over groups of %d keys (hashing included), "+
		"members only (batch hit) and non-members only (batch miss).\n\n",
		group(c.N), group(c.Q), c.Reps, memberPasses(c), batch)
	b.WriteString("| structure | add ns/key | hit ns/key | miss ns/key | batch hit ns/key | batch miss ns/key | FP rate | target | bits/key | k |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, res := range c.Results {
		writeRow(b, res)
	}
	b.WriteString("\n")
}

func writeRow(b *strings.Builder, r Result) {
	cells := []string{r.Name, ns(&r.Add), ns(&r.Hit), ns(&r.Miss), ns(r.BatchHit), ns(r.BatchMiss)}
	if r.Floor {
		cells = append(cells, "—", "—", "—", "—")
	} else {
		k := "—"
		if r.K > 0 {
			k = strconv.Itoa(r.K)
		}
		cells = append(cells, percent(r.Rate), percent(r.Target), fmt.Sprintf("%.2f", r.BitsPerKey), k)
	}
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func writeChecks(b *strings.Builder, checks []Check) {
	b.WriteString("### Ratios\n\n")
	b.WriteString("Speedups are the other library's median ns/key over bloomcast's; " +
		"the rate ratio is the measured false-positive rate over the target p. " +
		"The verdict is on that value. Where both timings come from the same phase, " +
		"\"paired\" is the median over rounds of the per-round speedup, " +
		"which a slow stretch of a shared machine moves less.\n\n")
	b.WriteString("| check | n | p | value | paired | target | result |\n|---|--:|--:|--:|--:|--:|---|\n")
	pass, fail := 0, 0
	for _, c := range checks {
		paired := "—"
		if c.Paired > 0 {
			paired = fmt.Sprintf("%.2f%s", c.Paired, c.Unit)
		}
		fmt.Fprintf(b, "| %s | %s | %g | %.2f%s | %s | %s | %s |\n",
			c.What, group(c.N), c.P, c.Value, c.Unit, paired, c.TargetString(), c.Verdict())
		switch c.Verdict() {
		case "PASS":
			pass++
		case "FAIL":
			fail++
		}
	}
	fmt.Fprintf(b, "\nChecks: %d PASS, %d FAIL.\n", pass, fail)
}

func clockNote(clock string) string {
	if clock == ClockWall {
		return "wall-clock time"
	}
	return "CPU time of the measuring thread (the JSON has wall-clock time too)"
}

// ns formats a timing, or a dash for a pass the contender does not have.
func ns(t *Timing) string {
	if t == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", t.Median)
}

// percent formats a rate as a percentage with three significant digits.
func percent(x float64) string { return strconv.FormatFloat(100*x, 'g', 3, 64) + "%" }

// group writes n with thousands separators: 20,000,000.
func group(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// memberPasses says how often a hit pass goes over the members, when it
// does more than once (see queryPass).
func memberPasses(c Case) string {
	if c.MemberPasses <= 1 {
		return ""
	}
	return fmt.Sprintf("A hit pass queries the members %d times over, as many queries as a miss pass. ", c.MemberPasses)
}
