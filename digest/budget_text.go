package digest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// WriteText writes r as "bloomcast calc --budget" prints it: the budget,
// a table of the best shape, the best of each layout, the best raw filter
// of the same bytes and the best without the memory cap (layout, m/n, k,
// m, codec, rate, mean, σ and 99.9% bound of the message's bytes), then
// the best rate against the raw filter's and whether the cap binds.
func (r *BudgetReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	head := fmt.Sprintf("n = %d keys, budget %d bytes", r.N, r.Budget)
	if r.Packet > 0 {
		head += fmt.Sprintf(" in packets of %d: %d packets, %d bytes", r.Packet, r.Packets, r.Effective)
	}
	tw.Printf("%s (frame %d bytes); fits with probability ≥ 99.9%%\n\n", head, r.FrameBytes)
	var t textfmt.Table
	t.Add("", "layout", "m/n", "k", "m", "sent", "rate", "mean bytes", "σ bytes", "99.9% bytes")
	row := func(label string, s BudgetShape) {
		t.Add(label, s.Layout, textfmt.Float(s.BitsPerKey, 2), strconv.Itoa(s.K), strconv.FormatUint(s.M, 10), s.Codec,
			textfmt.Rate(s.FalsePositiveRate), textfmt.Float(s.MeanBytes, 0), textfmt.Float(s.SDBytes, 1), textfmt.Float(s.BoundBytes, 0))
	}
	row("best", r.Best)
	for _, s := range r.PerLayout {
		row("", s)
	}
	if r.Raw != nil {
		row("raw, same bytes", *r.Raw)
	}
	if r.Uncapped != nil {
		row("without the cap", *r.Uncapped)
	}
	tw.Write(&t)
	tw.Println()
	if r.Raw != nil {
		tw.Printf("the best rate is %.3g× the raw filter's of the same bytes\n", r.RateGainRaw)
	}
	if r.CapBinds && r.Uncapped != nil {
		tw.Printf("the memory cap binds: m ≤ %d bits (%.1f bits per key); without it the rate would be %s at m/n = %.1f (raise it with --max-m or --max-bpk)\n",
			r.CapBits, float64(r.CapBits)/float64(r.N), textfmt.Rate(r.Uncapped.FalsePositiveRate), r.Uncapped.BitsPerKey)
	}
	return tw.Err()
}
