package report

import (
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/internal/fuse"
	"github.com/bloomcast/bloomcast/internal/textfmt"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/ribbon"
)

// A StaticReport sets a ribbon filter for N keys at rate P beside the
// binary fuse filters (3-wise and 4-wise) and the Bloom filters of each layout sized for the same N and P and the
// information bound N·log2(1/P), each row with its bits per key and its
// ratio to the bound: what "bloomcast calc --static" prints. The zero
// value is an empty report.
type StaticReport struct {
	N uint64  `json:"n"`
	P float64 `json:"p"`
	// BoundBits is N·log2(1/P), the least any filter of N keys at rate P
	// can take.
	BoundBits float64 `json:"bound_bits"`
	// Ribbon is the ribbon shape and the rows of the table, the ribbon
	// first, then the binary fuse filters, then the Bloom layouts,
	// smallest first.
	Ribbon ribbon.Shape `json:"ribbon"`
	// Fuse3 and Fuse4 are the binary fuse shapes at rate P or below
	// (fuse.Size).
	Fuse3 fuse.Shape  `json:"fuse3"`
	Fuse4 fuse.Shape  `json:"fuse4"`
	Rows  []StaticRow `json:"rows"`
}

// A StaticRow is one filter of a StaticReport.
// The zero value is a row of nothing.
type StaticRow struct {
	Filter     string  `json:"filter"`
	Bits       uint64  `json:"bits"`
	BitsPerKey float64 `json:"bits_per_key"`
	TimesBound float64 `json:"times_bound"`
	// Rate is the filter's predicted rate, at most P.
	Rate float64 `json:"rate"`
	// Updates says what the filter allows after it is built.
	Updates string `json:"updates"`
}

// NewStaticReport sizes the ribbon ([ribbon.Size]), the binary fuse
// filters ([fuse.Size]) and the Bloom filters
// ([Size], each layout at its best k) for n keys at rate p. Errors wrap
// [ErrInvalid]: n must be at least 1 and p in [2^−32, 1).
func NewStaticReport(n uint64, p float64) (*StaticReport, error) {
	// The ribbon first: it accepts the narrowest range of p (from 2^−32),
	// so a p outside it is refused with that bound, not with a Bloom
	// layout's far lower one.
	rs, err := ribbon.Size(n, p)
	if err != nil {
		return nil, err
	}
	// Then the Bloom sizes: params.Size refuses n = 0, for which the
	// static shapes are empty.
	var blooms []StaticRow
	for _, l := range []params.Layout{params.Classic, params.Partitioned, params.Blocked} {
		s, err := params.Size(l, n, p, 0)
		if err != nil {
			return nil, err
		}
		blooms = append(blooms, StaticRow{Filter: fmt.Sprintf("Bloom %s (k = %d)", l, s.K), Bits: s.M, Rate: s.FalsePositive(n), Updates: "adds, unions, deltas"})
	}
	r := &StaticReport{N: n, P: p, BoundBits: params.MinimumBits(n, p), Ribbon: rs}
	r.Rows = append(r.Rows, r.row(fmt.Sprintf("ribbon (%s)", rs), rs.SizeBits(), rs.FalsePositiveRate(), "none: rebuilt from the keys"))
	for _, a := range []int{3, 4} {
		fs, err := fuse.Size(n, a, p)
		if err != nil {
			return nil, err
		}
		if a == 3 {
			r.Fuse3 = fs
		} else {
			r.Fuse4 = fs
		}
		r.Rows = append(r.Rows, r.row(fmt.Sprintf("binary fuse (%s)", fs), fs.SizeBits(), fs.FalsePositiveRate(), "none: rebuilt from the keys"))
	}
	for _, b := range blooms {
		r.Rows = append(r.Rows, r.row(b.Filter, b.Bits, b.Rate, b.Updates))
	}
	return r, nil
}

func (r *StaticReport) row(name string, bits uint64, rate float64, updates string) StaticRow {
	return StaticRow{Filter: name, Bits: bits, BitsPerKey: float64(bits) / float64(r.N),
		TimesBound: float64(bits) / r.BoundBits, Rate: rate, Updates: updates}
}

// WriteText writes r as "bloomcast calc --static" prints it: the bound,
// then one row per filter.
func (r *StaticReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("n = %d keys at p = %s: the bound n·log2(1/p) is %s bits per key, %s in all\n\n",
		r.N, textfmt.Rate(r.P), textfmt.Float(r.BoundBits/float64(r.N), 3), textfmt.Bytes(int64(r.BoundBits/8+0.5)))
	var t textfmt.Table
	t.Add("filter", "bits/key", "× bound", "size", "rate", "updates")
	for _, row := range r.Rows {
		t.Add(row.Filter, textfmt.Float(row.BitsPerKey, 3), textfmt.Float(row.TimesBound, 3),
			textfmt.Bytes(int64((row.Bits+7)/8)), textfmt.Rate(row.Rate), row.Updates)
	}
	tw.Write(&t)
	return tw.Err()
}
