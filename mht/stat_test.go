package mht

import (
	"math"
	"testing"
)

// The simulation agrees with the calculator (Kirsch and Mitzenmacher,
// section VI): occupancy within a few standard errors of its exact
// expectation, measured rates of false positives and type failures within
// the calculated bounds.
func TestSimulationMatchesCalculator(t *testing.T) {
	p := testPlan(t, 10000)
	c, err := p.Calculate()
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Simulate(30, 20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range c.Occupancy.Levels {
		// The exact standard error of a mean over 30 trials, and a floor
		// for levels that are nearly empty.
		se := l.StdDev / math.Sqrt(30)
		if d := math.Abs(m.Levels[i].Mean - l.Placed); d > 5*se+0.1 {
			t.Errorf("level %d: measured %.1f ± %.1f, expected %.1f ± %.2f", i+1, m.Levels[i].Mean, m.Levels[i].StdErr, l.Placed, se)
		}
	}
	if got, want := m.Probe.TouchedPresent, c.Probe.TouchedPresent; math.Abs(got-want) > 0.01 {
		t.Errorf("probe touched %v, expected %v", got, want)
	}
	samplesFP := float64(m.Trials * m.Queries)
	samplesTF := float64(m.Trials) * float64(p.N)
	for i, calc := range c.Summaries {
		meas := m.Summaries[i]
		// A measured rate may exceed an exact figure by chance: allow
		// four binomial standard deviations.
		slack := func(p, n float64) float64 { return p + 4*math.Sqrt(p/n) + 1/n }
		if meas.FalsePositive > slack(calc.FalsePositive, samplesFP) {
			t.Errorf("%v: false-positive rate %.4g above %.4g", calc.Kind, meas.FalsePositive, calc.FalsePositive)
		}
		if calc.FalsePositive > 1e-3 && meas.FalsePositive < calc.FalsePositive/2 {
			t.Errorf("%v: false-positive rate %.4g far below %.4g", calc.Kind, meas.FalsePositive, calc.FalsePositive)
		}
		if meas.TypeFailure > slack(calc.TypeFailure, samplesTF) {
			t.Errorf("%v: type-failure rate %.4g above %.4g", calc.Kind, meas.TypeFailure, calc.TypeFailure)
		}
		if meas.TouchedPresent > slack(calc.TouchedPresent, samplesTF) {
			t.Errorf("%v: %.4g buckets per stored key, bound %.4g", calc.Kind, meas.TouchedPresent, calc.TouchedPresent)
		}
		if calc.Bits != meas.Bits {
			t.Errorf("%v: %d bits, calculated %d", calc.Kind, meas.Bits, calc.Bits)
		}
	}
}

// Events the calculator bounds below 10^−6 never happen in 10^4 trials:
// crises and summary failures on small tables.
func TestRareEventsDoNotHappen(t *testing.T) {
	trials := 10000
	if testing.Short() {
		trials = 1000
	}
	p := Plan{N: 100, Sizes: []uint64{400, 200, 100, 50, 25}, SFCells: 1200, SFK: 12, CounterBits: 4,
		Kinds: []Kind{KindInterp, KindSF, KindMBF}}
	if err := p.SizeMBF(16, 1e-8); err != nil {
		t.Fatal(err)
	}
	c, err := p.Calculate()
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Simulate(trials, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	rare := 0
	if c.Occupancy.Crisis < 1e-6 {
		rare++
		if m.Crises != 0 {
			t.Errorf("crisis bound %.3g, %d crises in %d trials", c.Occupancy.Crisis, m.Crises, trials)
		}
	}
	for i, calc := range c.Summaries {
		if calc.AnyFailure < 1e-6 {
			rare++
			if got := m.Summaries[i].AnyFailure; got != 0 {
				t.Errorf("%v: failure bound %.3g, failed in %.3g of %d trials", calc.Kind, calc.AnyFailure, got, trials)
			}
		}
	}
	if rare < 3 {
		t.Errorf("only %d figures below 1e-6: the test checks too little (%+v)", rare, c.Summaries)
	}
}

// Song et al.'s table (simulated as an [FHT]) agrees with its calculation
// (Occupancy.SongBounds): no stored key is missed and each reads
// one bucket; the false-positive rate, exact, is within four binomial
// standard deviations; the estimated items per bucket read and crowded
// buckets are within four standard errors of the mean over 30 tables
// (independent seeds) plus 0.3% of the figure, the margin stated for the
// estimate (runs of 3·10^6 items at n = 10^2, 10^3 and 10^4 found its
// error below that).
func TestSongTableMatchesCalculation(t *testing.T) {
	p := testPlan(t, 10000)
	p.Kinds = []Kind{KindSong}
	c, err := p.Calculate()
	if err != nil {
		t.Fatal(err)
	}
	calc := c.Summaries[0]
	if calc.TypeFailure != 0 || calc.TouchedPresent != 1 || calc.TouchedAbsent != calc.FalsePositive || !calc.Estimate {
		t.Errorf("calculated %+v", calc)
	}
	const trials, queries = 30, 20000
	var items, absent, crowded []float64
	fp := 0.0
	for s := range trials {
		m, err := p.Simulate(1, queries, 1000+uint64(s))
		if err != nil {
			t.Fatal(err)
		}
		f := m.Summaries[0]
		if f.TypeFailure != 0 || f.TouchedPresent != 1 || f.TouchedAbsent != f.FalsePositive || f.AnyFailure != 1 {
			t.Fatalf("seed %d: measured %+v", 1000+s, f)
		}
		items = append(items, f.ItemsPresent)
		absent = append(absent, f.ItemsAbsent)
		crowded = append(crowded, f.CrowdedBuckets)
		fp += f.FalsePositive / trials
	}
	if sd := math.Sqrt(calc.FalsePositive * (1 - calc.FalsePositive) / (trials * queries)); math.Abs(fp-calc.FalsePositive) > 4*sd {
		t.Errorf("false positives %.5f, calculated %.5f (sd %.5f)", fp, calc.FalsePositive, sd)
	}
	for _, x := range []struct {
		name string
		got  []float64
		want float64
	}{{"items per stored key", items, calc.ItemsPresent}, {"items per absent key", absent, calc.ItemsAbsent},
		{"crowded buckets", crowded, calc.CrowdedBuckets}} {
		mean, v := 0.0, 0.0
		for _, g := range x.got {
			mean += g / trials
		}
		for _, g := range x.got {
			v += (g - mean) * (g - mean) / (trials - 1)
		}
		se := math.Sqrt(v / trials)
		if math.Abs(mean-x.want) > 4*se+0.003*x.want || se == 0 {
			t.Errorf("%s: measured %.5f ± %.5f, calculated %.5f", x.name, mean, se, x.want)
		}
	}
	if calc.ItemsPresent < 1.01 || calc.CrowdedBuckets < 10 {
		t.Errorf("calculated %+v: the test checks too little", calc)
	}
}
