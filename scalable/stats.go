package scalable

// LayerStats describes one layer, for inspection. The zero LayerStats
// describes an empty layer of no bits.
type LayerStats struct {
	Capacity uint64  `json:"capacity"`            // keys it takes before the next layer is added
	Count    uint64  `json:"count"`               // keys it took (estimated after a union)
	M        uint64  `json:"m"`                   // bits
	K        int     `json:"k"`                   // probes per key
	Fill     float64 `json:"fill_ratio"`          // fraction of bits set
	Target   float64 `json:"target_rate"`         // P·(1−r)·r^i, its share of P
	Rate     float64 `json:"false_positive_rate"` // from the bits as they are
	Predict  float64 `json:"predicted_rate"`      // the shape's rate at Count
	Estimate bool    `json:"count_estimated"`     // Count is an estimate from the bits
	Bytes    int     `json:"size_bytes"`          // the bit array's size
}

// Stats returns each layer's figures, oldest first; none for a zero
// Filter.
func (f *Filter) Stats() []LayerStats {
	out := make([]LayerStats, len(f.layers))
	for i, l := range f.layers {
		s := l.Shape()
		out[i] = LayerStats{
			Capacity: f.caps[i], Count: l.Count(), M: l.M(), K: l.K(), Fill: l.FillRatio(),
			Target: f.cfg.LayerRate(i), Rate: l.FalsePositiveRate(), Predict: s.FalsePositive(l.Count()),
			Estimate: l.CountEstimated(), Bytes: l.SizeBytes(),
		}
	}
	return out
}
