package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

// TestLoopModelExhaustive checks the model against every sequence of
// masks of a tiny filter: m = 8 bits, k = 2, four routers, C(8, 2)^4
// sequences, each equally likely.
func TestLoopModelExhaustive(t *testing.T) {
	const m, k, routers = 8, 2, 4
	var masks []uint8
	for a := range m {
		for b := range a {
			masks = append(masks, 1<<a|1<<b)
		}
	}
	// reached[h] and alarms[h] weigh the sequences that reach the check
	// with h masks in the filter, and those it stops, in whole units of
	// 1/C(8, 2)^4, so that the sums are exact.
	var reached, alarms [routers]int64
	var walk func(h int, filter uint8, weight int64)
	walk = func(h int, filter uint8, weight int64) {
		if h == routers {
			return
		}
		w := weight / int64(len(masks))
		for _, mask := range masks {
			reached[h] += w
			if h > 0 && filter&mask == mask {
				alarms[h] += w
				continue
			}
			walk(h+1, filter|mask, w)
		}
	}
	total := int64(1)
	for range routers {
		total *= int64(len(masks))
	}
	walk(0, 0, total)
	lm, err := sim.NewLoopModel(m, k, routers)
	if err != nil {
		t.Fatal(err)
	}
	survival := 1.0
	for h := 1; h < routers; h++ {
		survival -= float64(alarms[h]) / float64(total)
		if got, want := lm.PerCheck[h], float64(alarms[h])/float64(reached[h]); math.Abs(got-want) > 1e-14 {
			t.Errorf("PerCheck[%d] = %.15g, enumeration %.15g", h, got, want)
		}
		if math.Abs(lm.Survival[h]-survival) > 1e-12 {
			t.Errorf("Survival[%d] = %.15g, enumeration %.15g", h, lm.Survival[h], survival)
		}
	}
	if lm.PerCheck[0] != 0 || lm.Survival[0] != 1 || lm.PathFalseAlarm(routers) != 1-lm.Survival[routers-1] {
		t.Errorf("%+v", lm)
	}
}

// The classic rate departs from the model in two directions: it draws a
// new mask's bits with replacement, (X/m)^k against the model's
// C(X, k)/C(m, k), which overstates alarms while few bits X are set; and
// it lets a mask's own bits collide, which understates how fast the
// filter fills. In a large filter the two stay within a few per cent of
// each other, the first winning early, the second late.
func TestLoopModelAgainstClassic(t *testing.T) {
	const m, k = 1024, 3
	lm, err := sim.NewLoopModel(m, k, 200)
	if err != nil {
		t.Fatal(err)
	}
	last := 0.0
	for h := 2; h < 200; h++ {
		ratio := lm.PerCheck[h] / params.ApproxFalsePositive(m, uint64(h), k)
		if ratio <= last || (h >= 20 && math.Abs(ratio-1) > 0.06) {
			t.Errorf("h = %d: model/classic %.4f after %.4f", h, ratio, last)
		}
		if (h == 2 && ratio > 0.9) || (h == 199 && ratio < 1.03) {
			t.Errorf("h = %d: model/classic %.4f", h, ratio)
		}
		last = ratio
	}
}

func TestBestLoopK(t *testing.T) {
	for _, m := range []int{64, 128, 256, 512} {
		for _, routers := range []int{8, 16, 24, 32} {
			k, err := sim.BestLoopK(m, routers)
			if err != nil {
				t.Fatal(err)
			}
			best := pathFalseAlarm(t, m, k, routers)
			others := []int{k - 1, k + 1}
			if m <= 128 && !raceEnabled { // every k: checks the walk's assumption of one minimum
				others = nil
				for o := 1; o <= m/2; o++ {
					others = append(others, o)
				}
			}
			for _, other := range others {
				if other >= 1 && other <= min(m/2, params.MaxK) && pathFalseAlarm(t, m, other, routers) < best {
					t.Errorf("m=%d, %d routers: k=%d beats BestLoopK's %d", m, routers, other, k)
				}
			}
			// The documented relation to the Bloom-filter optimum.
			if ok := params.OptimalK(uint64(m), uint64(routers)); k != ok && k != ok+1 {
				t.Errorf("m=%d, %d routers: BestLoopK %d, params.OptimalK %d", m, routers, k, ok)
			}
		}
	}
}

func pathFalseAlarm(t *testing.T, m, k, routers int) float64 {
	t.Helper()
	lm, err := sim.NewLoopModel(m, k, routers)
	if err != nil {
		t.Fatal(err)
	}
	return lm.PathFalseAlarm(routers)
}

func loopPackets() int {
	if raceEnabled {
		return 20_000
	}
	return 150_000
}

func TestLoopDetectionMatchesModel(t *testing.T) {
	for _, m := range []int{64, 128, 256} {
		r, err := sim.LoopDetection(sim.LoopConfig{Bits: m, Packets: loopPackets(), Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if r.Bits != m || r.HeaderBytes != m/8 || r.Hops != sim.DefaultLoopHops || r.RouteRecordBytes != 4*r.Hops || len(r.Checks) != r.Hops-1 {
			t.Fatalf("%+v", r)
		}
		sd := r.StdError() * float64(r.LoopFree)
		if d := math.Abs(float64(r.FalseAlarms) - r.ExpectedFalseAlarms); d > 4*sd+1 {
			t.Errorf("m=%d: %d false alarms, expected %.1f ± %.1f", m, r.FalseAlarms, r.ExpectedFalseAlarms, sd)
		}
		if d := math.Abs(float64(r.EarlyAlarms) - r.ExpectedEarlyAlarms); d > 4*math.Sqrt(r.ExpectedEarlyAlarms)+2 {
			t.Errorf("m=%d: %d early alarms, expected %.1f", m, r.EarlyAlarms, r.ExpectedEarlyAlarms)
		}
		for _, c := range r.Checks {
			mean, sd := float64(c.Checks)*c.Model, math.Sqrt(float64(c.Checks)*c.Model*(1-c.Model))
			if math.Abs(float64(c.Alarms)-mean) > 4*sd+2 {
				t.Errorf("m=%d, %d masks: %d alarms in %d checks, expected %.1f ± %.1f", m, c.Masks, c.Alarms, c.Checks, mean, sd)
			}
		}
		// No false negatives: every loop is caught, and no packet loops
		// for long.
		if r.Missed != 0 || r.Detected+r.EarlyAlarms != r.Looped || r.DetectionRate() != 1 || r.LoopedRouters > float64(r.Hops+1) {
			t.Errorf("m=%d: %d looped, %d caught, %d early, %d missed, %.1f routers per looped packet",
				m, r.Looped, r.Detected, r.EarlyAlarms, r.Missed, r.LoopedRouters)
		}
		if frac := float64(r.Looped) / float64(r.Packets); math.Abs(frac-sim.DefaultLoopFraction) > 0.01 || r.Looped+r.LoopFree != r.Packets {
			t.Errorf("m=%d: %d of %d packets looped", m, r.Looped, r.Packets)
		}
	}
}

// With 64 bits and 16 routers the filter is half full at the end of the
// path; the classic estimate then misses the measured false alarms by many
// standard errors, and the exact model does not.
func TestLoopDetectionClassicIsOff(t *testing.T) {
	r, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Packets: loopPackets(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	measured := r.FalseAlarmRate()
	if math.Abs(measured-r.ClassicPathFalseAlarm) < 2*math.Abs(measured-r.PathFalseAlarm) ||
		math.Abs(measured-r.ClassicPathFalseAlarm) < 4*r.StdError() {
		t.Errorf("measured %.4f, model %.4f, classic %.4f (± %.4f)", measured, r.PathFalseAlarm, r.ClassicPathFalseAlarm, r.StdError())
	}
}

func TestLoopDetectionOptions(t *testing.T) {
	r, err := sim.LoopDetection(sim.LoopConfig{Bits: 32, K: 3, Hops: 5, LoopFraction: sim.NoLoops, Packets: 1000, TTL: 6, Routers: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.K != 3 || r.Looped != 0 || r.LoopFree != 1000 || r.TTL != 6 || r.DetectionRate() != 0 {
		t.Errorf("%+v", r)
	}
	all, err := sim.LoopDetection(sim.LoopConfig{LoopFraction: 1, Packets: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if all.Looped != 1000 || all.FalseAlarmRate() != 0 || all.DetectionRate() != 1 {
		t.Errorf("%+v", all)
	}
	a, _ := sim.LoopDetection(sim.LoopConfig{Packets: 5000, Seed: 3})
	b, _ := sim.LoopDetection(sim.LoopConfig{Packets: 5000, Seed: 3})
	if a.FalseAlarms != b.FalseAlarms || a.EarlyAlarms != b.EarlyAlarms || a.Looped != b.Looped || a.LoopedRouters != b.LoopedRouters {
		t.Errorf("same seed, different runs: %+v, %+v", a, b)
	}
}

func TestLoopDetectionErrors(t *testing.T) {
	for _, cfg := range []sim.LoopConfig{
		{Bits: 100},
		{Bits: 4},
		{Bits: 2048},
		{K: 65},
		{K: -1},
		{Hops: 1},
		{Hops: 300},
		{LoopFraction: 1.5},
		{LoopFraction: math.NaN()},
		{Packets: -1},
		{Routers: 3},
		{TTL: 10},
	} {
		if _, err := sim.LoopDetection(cfg); err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("LoopDetection(%+v) = %v, want an error starting with \"sim: \"", cfg, err)
		}
	}
	if _, err := sim.NewLoopModel(64, 40, 10); err == nil {
		t.Error("NewLoopModel accepted k > m/2")
	}
}

func TestLoopChart(t *testing.T) {
	r, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Packets: 2000, Hops: 6})
	if err != nil {
		t.Fatal(err)
	}
	c := sim.LoopChart([]sim.LoopResult{r})
	if !c.LogY || len(c.Series) != 2 || len(c.Series[0].X) != 5 || c.Series[0].Y[4] != r.Checks[4].Model || c.Series[1].Y[4] != r.Checks[4].Rate() {
		t.Errorf("%+v", c)
	}
}
