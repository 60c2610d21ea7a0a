package sim

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/scalable"
)

// GrowthConfig is one run of the scalable filter's growth curve
// (ScalableGrowth). The zero GrowthConfig is not valid: it has no
// capacity, rate or keys (ScalableGrowth returns scalable.ErrConfig or
// an error naming Keys).
type GrowthConfig struct {
	Filter scalable.Config // the filter grown; its Seed seeds the keys too
	Keys   uint64          // keys added in all
	Probes uint64          // absent keys queried at every point
	Points int             // points per factor of ten of keys (default 4)
}

// GrowthPoint is the filter after its first N keys.
// The zero GrowthPoint is a filter of no keys.
type GrowthPoint struct {
	N         uint64  `json:"n"`
	Layers    int     `json:"layers"`
	Measured  float64 `json:"measured_rate"`  // on Probes absent keys
	Predicted float64 `json:"predicted_rate"` // scalable.Filter.PredictedRate
	// BytesPerKey is the layers' bit arrays over N; PresizedBytesPerKey
	// the array of a Bloom filter of the same layout sized from the start
	// for N keys at the compound target P.
	BytesPerKey         float64 `json:"bytes_per_key"`
	PresizedBytesPerKey float64 `json:"presized_bytes_per_key"`
}

// GrowthResult is one run: its configuration and its points.
// The zero GrowthResult has no points.
type GrowthResult struct {
	Capacity   uint64        `json:"capacity"`
	P          float64       `json:"p"`
	Expansion  uint32        `json:"expansion"`
	Tightening float64       `json:"tightening"`
	Layout     string        `json:"layout"`
	Points     []GrowthPoint `json:"points"`
}

// ScalableGrowth adds Keys keys to a scalable filter and, at points spaced
// evenly on a log scale from its first layer's capacity, measures the
// false-positive rate on Probes keys never added, and the memory per key
// against a Bloom filter sized for that many keys from the start. Keys
// and probes are derived from the seed: the result depends on nothing
// else.
func ScalableGrowth(c GrowthConfig) (GrowthResult, error) {
	f, err := scalable.New(c.Filter)
	if err != nil {
		return GrowthResult{}, err
	}
	if c.Keys == 0 || c.Probes == 0 {
		return GrowthResult{}, fmt.Errorf("%w: GrowthConfig needs Keys and Probes", scalable.ErrConfig)
	}
	per := c.Points
	if per <= 0 {
		per = 4
	}
	fc := f.Config()
	if c.Keys < fc.Capacity {
		// The first point is at the capacity: there would be none.
		return GrowthResult{}, fmt.Errorf("%w: GrowthConfig.Keys %d is below the filter's capacity %d", scalable.ErrConfig, c.Keys, fc.Capacity)
	}
	r := GrowthResult{Capacity: fc.Capacity, P: fc.P, Expansion: fc.Expansion, Tightening: fc.Tightening, Layout: fc.Layout.String()}
	var buf [9]byte
	key := func(tag byte, i uint64) []byte {
		buf[0] = tag
		binary.LittleEndian.PutUint64(buf[1:], i^fc.Seed)
		return buf[:]
	}
	hs := make([]hashing.Hash128, 0, 4096)
	out := make([]bool, 4096)
	added := uint64(0)
	for j := 0; ; j++ {
		n := uint64(math.Round(float64(fc.Capacity) * math.Pow(10, float64(j)/float64(per))))
		if n > c.Keys {
			break
		}
		for added < n {
			hs = hs[:0]
			for ; added < n && len(hs) < cap(hs); added++ {
				hs = append(hs, f.Hash(key(0, added)))
			}
			if err := f.AddBatch(hs); err != nil {
				return r, err
			}
		}
		fp := uint64(0)
		for from := uint64(0); from < c.Probes; from += uint64(cap(hs)) {
			hs = hs[:0]
			for i := from; i < min(c.Probes, from+uint64(cap(hs))); i++ {
				hs = append(hs, f.Hash(key(1, i)))
			}
			f.ContainsBatch(hs, out)
			for _, o := range out[:len(hs)] {
				if o {
					fp++
				}
			}
		}
		pre, err := bloom.Config{Layout: fc.Layout, N: n, P: fc.P, BlockBits: fc.BlockBits}.Shape()
		if err != nil {
			return r, err
		}
		r.Points = append(r.Points, GrowthPoint{
			N: n, Layers: f.Layers(), Measured: float64(fp) / float64(c.Probes), Predicted: f.PredictedRate(),
			BytesPerKey: float64(f.SizeBytes()) / float64(n), PresizedBytesPerKey: float64((pre.M+63)/64*8) / float64(n),
		})
	}
	return r, nil
}

// GrowthCharts plots the runs' rates (measured as dots, predicted as
// lines, the target dashed) and bytes per key (each run, and a Bloom
// filter sized from the start for n keys, dashed) against the keys added.
func GrowthCharts(rs []GrowthResult) []Chart {
	rate := Chart{Title: "Scalable Bloom filter: false-positive rate as it grows", XLabel: "keys added", YLabel: "false-positive rate", LogX: true}
	mem := Chart{Title: "Scalable Bloom filter: memory as it grows", XLabel: "keys added", YLabel: "bytes per key", LogX: true}
	for i, r := range rs {
		label := fmt.Sprintf("s=%d, r=%g", r.Expansion, r.Tightening)
		measured := Series{Name: label + " measured", Color: palette(i), Markers: true}
		predicted := Series{Name: label + " predicted", Color: palette(i), Line: true}
		bytes := Series{Name: label, Color: palette(i), Line: true, Markers: true}
		for _, pt := range r.Points {
			x := float64(pt.N)
			measured.X, measured.Y = append(measured.X, x), append(measured.Y, pt.Measured)
			predicted.X, predicted.Y = append(predicted.X, x), append(predicted.Y, pt.Predicted)
			bytes.X, bytes.Y = append(bytes.X, x), append(bytes.Y, pt.BytesPerKey)
		}
		rate.Series = append(rate.Series, measured, predicted)
		mem.Series = append(mem.Series, bytes)
	}
	if len(rs) > 0 {
		r := rs[0]
		target := Series{Name: "target P", Color: "#555555", Line: true, Dashed: true}
		pre := Series{Name: "Bloom filter sized for n from the start", Color: "#555555", Line: true, Dashed: true}
		for _, pt := range r.Points {
			target.X, target.Y = append(target.X, float64(pt.N)), append(target.Y, r.P)
			pre.X, pre.Y = append(pre.X, float64(pt.N)), append(pre.Y, pt.PresizedBytesPerKey)
		}
		rate.Series = append(rate.Series, target)
		mem.Series = append(mem.Series, pre)
	}
	return []Chart{rate, mem}
}
