package sim

import (
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/scalable"
)

func TestScalableGrowth(t *testing.T) {
	r, err := ScalableGrowth(GrowthConfig{Filter: scalable.Config{Capacity: 100, P: 0.01, Seed: 3}, Keys: 20000, Probes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 10 || r.Points[0].N != 100 || r.Points[8].N != 10000 {
		t.Fatalf("points %+v", r.Points)
	}
	last := r.Points[len(r.Points)-1]
	if last.Layers < 6 || last.Predicted > 0.01 || last.Measured > 0.015 || last.BytesPerKey <= last.PresizedBytesPerKey {
		t.Errorf("after 100× growth: %+v", last)
	}
	again, _ := ScalableGrowth(GrowthConfig{Filter: scalable.Config{Capacity: 100, P: 0.01, Seed: 3}, Keys: 20000, Probes: 20000})
	if again.Points[9] != last {
		t.Error("the same seed gave another result")
	}
	if charts := GrowthCharts([]GrowthResult{r}); len(charts) != 2 || len(charts[0].Series) != 3 || len(charts[1].Series) != 2 {
		t.Errorf("charts: %+v", charts)
	}
	if _, err := ScalableGrowth(GrowthConfig{Filter: scalable.Config{Capacity: 100, P: 0.01}}); !errors.Is(err, scalable.ErrConfig) {
		t.Errorf("no keys: %v", err)
	}
	if r, err := ScalableGrowth(GrowthConfig{Filter: scalable.Config{Capacity: 100, P: 0.01}, Keys: 99, Probes: 10}); !errors.Is(err, scalable.ErrConfig) {
		t.Errorf("fewer keys than the capacity: %+v, %v", r, err)
	}
}
