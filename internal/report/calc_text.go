package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// Text forms of the reports, as "bloomcast calc" prints them: a line that
// states the question, then an aligned table.

// WriteText writes r as text: what was given and derived, then one row
// per layout (n, m, k, block, bits per key, predicted rate, size), with a
// "meets p" column when n, m and p were all given and p is a check.
func (r *SolveReport) WriteText(w io.Writer) error {
	q := r.Query
	var quantities []string
	for _, g := range r.Given {
		switch g {
		case "n":
			quantities = append(quantities, "n = "+strconv.FormatUint(q.N, 10))
		case "p":
			quantities = append(quantities, "p = "+strconv.FormatFloat(q.P, 'g', -1, 64))
		case "m":
			quantities = append(quantities, "m = "+strconv.FormatUint(q.M, 10))
		case "k":
			quantities = append(quantities, "k = "+strconv.Itoa(q.K))
		}
	}
	derived := "the rate"
	if len(r.Derived) > 0 {
		derived = strings.Join(r.Derived, ", ")
	}
	tw := textfmt.NewWriter(w)
	tw.Printf("given %s; derived %s\n\n", strings.Join(quantities, ", "), derived)
	check := q.P != 0 && q.N != 0 && q.M != 0 // p was not used to derive anything
	var t textfmt.Table
	header := []string{"layout", "n", "m", "k", "block", "bits/key", "predicted p", "size"}
	if check {
		header = append(header, "meets p")
	}
	t.Add(header...)
	for _, s := range r.Layouts {
		block := "-"
		if s.BlockBits != 0 {
			block = strconv.FormatUint(s.BlockBits, 10)
		}
		row := []string{s.Layout, strconv.FormatUint(s.N, 10), strconv.FormatUint(s.M, 10), strconv.Itoa(s.K), block,
			textfmt.Float(s.BitsPerKey, 3), textfmt.Rate(s.FalsePositiveRate), textfmt.Bytes(int64(s.SizeBytes))}
		if check {
			row = append(row, map[bool]string{true: "yes", false: "no"}[s.MeetsP])
		}
		t.Add(row...)
	}
	tw.Write(&t)
	return tw.Err()
}

// WriteText writes r as text: the question, then the standard filter,
// the best shape and the best shape for each k (m/n, k, m, the fraction
// of zero bits p0, the rate, bits per key sent and whether raw or
// compressed; with a churn, the delta's bits per key).
func (r *TransmitReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	if r.Question == "target" {
		tw.Printf("n = %d, target rate %s: the smallest message\n\n", r.N, textfmt.Rate(r.TargetP))
	} else {
		tw.Printf("n = %d, budget %g bits per key: the lowest rate\n\n", r.N, r.Budget)
	}
	churn := r.Best.DeltaBits != nil
	var t textfmt.Table
	head := []string{"", "m/n", "k", "m", "p0", "rate", "z/n", "sent"}
	if churn {
		head = append(head, "delta/n")
	}
	t.Add(head...)
	row := func(label string, s TransmitShape) {
		sent := "raw"
		if s.Compressed {
			sent = "compressed"
		}
		cells := []string{label, textfmt.Float(s.BitsPerKey, 3), strconv.Itoa(s.K), strconv.FormatUint(s.M, 10),
			textfmt.Float(s.P0, 4), textfmt.Rate(s.FalsePositiveRate), textfmt.Float(s.TransmitBitsPerKey, 3), sent}
		if churn && s.DeltaBits != nil {
			cells = append(cells, textfmt.Float(*s.DeltaBits/float64(r.N), 3))
		}
		t.Add(cells...)
	}
	if r.Uncompressed != nil {
		row("standard", *r.Uncompressed)
	}
	row("best", r.Best)
	for _, s := range r.PerK {
		row("k = "+strconv.Itoa(s.K), s)
	}
	tw.Write(&t)
	return tw.Err()
}

// WriteText writes r as text: the width and rate, a table of bits per
// key and size of each form beside the Bloom filter, the entropy and the
// lower bound log2(1/p), and the crossover widths.
func (r *FingerprintReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("fingerprint set of n = %d keys: %d-bit fingerprints, predicted p = %s\n\n", r.N, r.Bits, textfmt.Rate(r.FalsePositiveRate))
	var t textfmt.Table
	t.Add("form", "bits/key", "size")
	row := func(name string, perKey float64) {
		t.Add(name, textfmt.Float(perKey, 3), textfmt.Bytes(int64(perKey*float64(r.N)/8+0.5)))
	}
	row(fmt.Sprintf("fpset table (load %.1f)", FingerprintTableLoad), r.TableBitsPerKey)
	row("fpset sorted", r.SortedBitsPerKey)
	if r.CountBits > 0 {
		t.Add(fmt.Sprintf("fpset Rice-coded (k = %d)", r.RiceK), "+counts", "")
	} else {
		row(fmt.Sprintf("fpset Rice-coded (k = %d)", r.RiceK), r.CompressedBitsPerKey)
	}
	if r.BloomM != 0 {
		row(fmt.Sprintf("classic Bloom filter (k = %d)", r.BloomK), r.BloomBitsPerKey)
	}
	row("entropy of the fingerprints", r.EntropyBitsPerKey)
	row("any filter, log2(1/p)", r.MinimumBitsPerKey)
	tw.Write(&t)
	tw.Println()
	tw.Println(crossoverLine("in memory, sorted fingerprints", r.MemoryCrossoverBits, r.MemoryCrossoverRate))
	tw.Println(crossoverLine("sent, Rice-coded fingerprints", r.TransmitCrossoverBits, r.TransmitCrossoverRate))
	return tw.Err()
}

// crossoverLine says from which width a form beats the Bloom filter.
func crossoverLine(form string, b int, p float64) string {
	if b == 0 {
		return fmt.Sprintf("%s are never smaller than a Bloom filter for this n (with at most 64 bits)", form)
	}
	return fmt.Sprintf("%s are smaller than a Bloom filter from %d bits on (p ≤ %s for this n)", form, b, textfmt.Rate(p))
}
