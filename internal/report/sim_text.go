package report

import (
	"io"
	"math"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/textfmt"
	"github.com/bloomcast/bloomcast/sim"
)

// WriteGrowthText writes r as "bloomcast sim growth" prints it: for each run a
// line of its configuration and a table of its points (keys added,
// layers, measured and predicted rate, bytes per key, and a Bloom
// filter's sized from the start).
func WriteGrowthText(w io.Writer, r sim.GrowthResult) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("s = %d, r = %g, %s layers, first for %d keys, target %s\n", r.Expansion, r.Tightening, r.Layout, r.Capacity, textfmt.Rate(r.P))
	tw.Printf("%10s %7s %12s %12s %10s %10s\n", "keys", "layers", "measured", "predicted", "bytes/key", "presized")
	for _, pt := range r.Points {
		tw.Printf("%10d %7d %12s %12s %10.3f %10.3f\n", pt.N, pt.Layers, textfmt.Rate(pt.Measured), textfmt.Rate(pt.Predicted), pt.BytesPerKey, pt.PresizedBytesPerKey)
	}
	return tw.Err()
}

// WriteText writes r as the table "bloomcast demo" prints: each
// layout's shape, predicted and measured rate, timings and encoded size.
func (r *LayoutTrialReport) WriteText(w io.Writer) error {
	var t textfmt.Table
	t.Add("layout", "m", "k", "bits/key", "predicted", "measured", "add ns/key", "query ns/key", "encoded")
	for _, x := range r.Results {
		t.Add(x.Layout, strconv.FormatUint(x.M, 10), strconv.Itoa(x.K), textfmt.Float(x.BitsPerKey, 2),
			textfmt.Rate(x.PredictedFalsePositiveRate), textfmt.Rate(x.MeasuredFalsePositiveRate),
			textfmt.Float(x.AddNsPerKey, 1), textfmt.Float(x.QueryNsPerKey, 1), textfmt.Bytes(int64(x.EncodedBytes)))
	}
	_, err := t.WriteTo(w)
	return err
}

// LargestGap returns the largest gap between a layout's measured and
// predicted rate, in standard errors of the measurement (0 without one).
func (r *LayoutTrialReport) LargestGap() float64 {
	worst := 0.0
	for _, x := range r.Results {
		if x.StdError > 0 {
			worst = max(worst, math.Abs(x.MeasuredFalsePositiveRate-x.PredictedFalsePositiveRate)/x.StdError)
		}
	}
	return worst
}

// LargestEncoding returns the largest encoded filter's size in bytes.
func (r *LayoutTrialReport) LargestEncoding() int {
	largest := 0
	for _, x := range r.Results {
		largest = max(largest, x.EncodedBytes)
	}
	return largest
}

// BlockedCost returns how many more bits per key, as a fraction, the
// blocked layout spent than the classic one, and false when the trial
// lacks either.
func (r *LayoutTrialReport) BlockedCost() (float64, bool) {
	bpk := map[string]float64{}
	for _, x := range r.Results {
		bpk[x.Layout] = x.BitsPerKey
	}
	if bpk["classic"] == 0 || bpk["blocked"] == 0 {
		return 0, false
	}
	return bpk["blocked"]/bpk["classic"] - 1, true
}

// WriteCompressText writes rows as "bloomcast sim compress" prints them:
// a table of each shape's digest sizes against m·H(p) plus the frame, and
// its measured false-positive rate against (1 − p0)^k.
func WriteCompressText(w io.Writer, rows []CompressRow) error {
	var t textfmt.Table
	t.Add("m/n", "k", "n", "m", "trials", "p0", "m·H(p)+frame", "mean", "std", "min", "max", "mean/ideal", "fp measured", "fp (1-p0)^k")
	for _, r := range rows {
		t.Add(strconv.FormatFloat(r.BitsPerKey, 'g', -1, 64), strconv.Itoa(r.K), strconv.Itoa(r.N),
			strconv.FormatUint(r.M, 10), strconv.Itoa(r.Trials), textfmt.Float(r.P0, 4), textfmt.Float(r.IdealBytes+float64(r.FrameBytes), 0),
			textfmt.Float(r.MeanBytes, 1), textfmt.Float(r.StdBytes, 1), textfmt.Float(r.MinBytes, 0), textfmt.Float(r.MaxBytes, 0),
			textfmt.Float(r.MeanOverIdeal, 5), textfmt.Rate(r.MeasuredFP), textfmt.Rate(r.PredictedFP))
	}
	tw := textfmt.NewWriter(w)
	tw.Write(&t)
	tw.Println("\nsizes in bytes, whole digests (header, parameters, payload, CRC-32C)")
	return tw.Err()
}
