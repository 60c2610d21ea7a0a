package sim_test

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

func TestKeysDeterministic(t *testing.T) {
	a, b := sim.Keys(7, 1000), sim.Keys(7, 1000)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different keys")
	}
	if !slices.Equal(sim.Keys(7, 100), a[:100]) {
		t.Error("Keys(seed, 100) is not a prefix of Keys(seed, 1000)")
	}
	if c := sim.Keys(8, 1000); slices.Equal(a, c) {
		t.Error("seeds 7 and 8 give the same keys")
	}
	if k := sim.Keys(1, 0); k != nil {
		t.Errorf("Keys(1, 0) = %q", k)
	}
	if k := sim.Keys(1, -5); k != nil {
		t.Errorf("Keys(1, -5) = %q", k)
	}
}

// TestKeysGolden pins the generator: the demo's figures must be
// reproducible on every platform and Go release.
func TestKeysGolden(t *testing.T) {
	want := []string{
		"https://www.prairie.dev/cedar-carbon/granite-shadow/desert/legend-basket/0.js",
		"https://www.lantern.org/falcon/harbor/raven-glacier/1.svg",
		"https://www.quartz.edu/timber/feather/meadow-beacon/2.css",
	}
	if got := sim.Keys(1, 3); !slices.Equal(got, want) {
		t.Errorf("Keys(1, 3) =\n%q\nwant\n%q", got, want)
	}
}

func TestKeysDistinctURLs(t *testing.T) {
	keys := sim.Keys(42, 100_000)
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		if seen[k] {
			t.Fatalf("key %d %q repeats", i, k)
		}
		seen[k] = true
		u, err := url.Parse(k)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			t.Fatalf("key %d %q is not an https URL: %v", i, k, err)
		}
		base := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
		if id := base[:strings.IndexByte(base, '.')]; id != strconv.FormatInt(int64(i), 36) {
			t.Fatalf("key %d %q does not end in its index", i, k)
		}
	}
}

func TestLayoutTrialMatchesModel(t *testing.T) {
	const n = 30_000
	seeds, rates := []uint64{1, 2}, []float64{0.01, 0.001}
	if raceEnabled {
		seeds, rates = seeds[:1], rates[:1]
	}
	for _, seed := range seeds {
		for _, p := range rates {
			rs, err := sim.LayoutTrial(sim.LayoutTrialConfig{Keys: n, P: p, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			want := []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged}
			if len(rs) != len(want) {
				t.Fatalf("%d results, want %d", len(rs), len(want))
			}
			for i, r := range rs {
				if r.Shape.Layout != want[i] || r.Keys != n {
					t.Errorf("result %d: %v with %d keys", i, r.Shape, r.Keys)
				}
				if r.Predicted > p {
					t.Errorf("%v: predicted %g above the target %g", r.Shape, r.Predicted, p)
				}
				// The false positives are binomial if the model holds: allow
				// five standard errors, plus 3% for the model's own error.
				if d := math.Abs(r.Measured - r.Predicted); d > 5*r.StdError()+0.03*r.Predicted {
					t.Errorf("seed %d, p = %g, %v: measured %g, predicted %g (%.1f standard errors)",
						seed, p, r.Shape, r.Measured, r.Predicted, d/r.StdError())
				}
				if r.Measured != float64(r.FalsePositives)/n || r.BitsPerKey != float64(r.Shape.M)/n {
					t.Errorf("%+v: inconsistent fields", r)
				}
				if fill := r.Shape.ExpectedFill(n); math.Abs(r.FillRatio-fill) > 0.01 {
					t.Errorf("%v: fill %g, expected %g", r.Shape, r.FillRatio, fill)
				}
				if r.EncodedBytes < int(r.Shape.M/8) || r.AddNanos <= 0 || r.QueryNanos <= 0 {
					t.Errorf("%+v: implausible size or timings", r)
				}
			}
		}
	}
}

func TestLayoutTrialDeterministic(t *testing.T) {
	cfg := sim.LayoutTrialConfig{Keys: 5000, Seed: 9, Layouts: []params.Layout{params.Blocked, params.Paged}, PageBits: 4096}
	a, err := sim.LayoutTrial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.LayoutTrial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || a[0].Shape.Layout != params.Blocked || a[1].Shape.BlockBits != 4096 {
		t.Fatalf("got %+v, want blocked then paged with 4096-bit pages", a)
	}
	for i := range a {
		if a[i].Shape != b[i].Shape || a[i].FalsePositives != b[i].FalsePositives || a[i].FillRatio != b[i].FillRatio {
			t.Errorf("first replay %+v, second %+v", a[i], b[i])
		}
	}
}

func TestLayoutTrialErrors(t *testing.T) {
	for _, cfg := range []sim.LayoutTrialConfig{
		{Keys: -1},
		{Keys: 10, P: 1.5},
		{Keys: 10, Layouts: []params.Layout{9}},
		{Keys: 10, PageBits: 100, Layouts: []params.Layout{params.Paged}},
	} {
		if _, err := sim.LayoutTrial(cfg); err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("LayoutTrial(%+v) = %v, want an error starting with \"sim: \"", cfg, err)
		}
	}
}
