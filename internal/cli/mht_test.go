package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/mht"
)

func TestMHTCalc(t *testing.T) {
	text := ok(t, "", "mht", "calc", "--n", "1000")
	for _, s := range []string{"crisis probability", "sub-table", "heuristic", "probe all", "song (est.)", "interp", "counting-mbf", "bits/item"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	var r mht.Report
	if err := json.Unmarshal([]byte(ok(t, "", "mht", "calc", "--sizes", "3000,1500,750", "--n", "1000", "--summaries", "sf,mbf", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.N != 1000 || len(r.Levels) != 3 || len(r.Calculated) != 2 || r.Calculated[0].Kind.String() != "sf" || r.Crisis <= 0 || r.Crisis > 0.1 {
		t.Errorf("%+v", r)
	}
	usageFails(t, "mht: --sizes replaces", "mht", "calc", "--sizes", "10,5", "--levels", "2")
	usageFails(t, "mht: --summaries", "mht", "calc", "--summaries", "nope")
	usageFails(t, "mht: unknown subcommand", "mht", "frob")
	usageFails(t, "mht: --n 0", "mht", "calc", "--n", "0")
	if out := ok(t, "", "mht", "--help"); !strings.Contains(out, "usage: bloomcast mht calc") {
		t.Error(out)
	}
}

func TestMHTSim(t *testing.T) {
	var r mht.Report
	out := ok(t, "", "mht", "sim", "--n", "2000", "--trials", "5", "--queries", "5000", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Trials != 5 || r.Crises == nil || *r.Crises != 0 || len(r.Measured) != 6 || r.MeasProbe == nil {
		t.Fatalf("%+v", r)
	}
	for i, l := range r.Levels {
		if se := l.StdDev / math.Sqrt(5); math.Abs(l.Measured-l.Expected) > 5*se+0.5 {
			t.Errorf("level %d: %+v", i+1, l)
		}
	}
	text := ok(t, "", "mht", "sim", "--n", "500", "--trials", "2", "--queries", "100", "--summaries", "mbf")
	for _, s := range []string{"measured", "std err", "crisis probability", "mbf", "probe all"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	// Song's summary is simulated with its own table: one bucket per
	// stored key, none missed, the items in it beside the calculation.
	song := r.Measured[0]
	if song.Kind.String() != "song" || song.TypeFailure != 0 || song.TouchedPresent != 1 || song.ItemsPresent <= 1 ||
		math.Abs(song.ItemsPresent-r.Calculated[0].ItemsPresent) > 0.01 {
		t.Errorf("song measured %+v, calculated %+v", song, r.Calculated[0])
	}
	text = ok(t, "", "mht", "sim", "--n", "500", "--trials", "2", "--queries", "100", "--summaries", "song")
	for _, s := range []string{"song's table", "items read (in)", "buckets with 2+ items", "calculated", "measured"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	usageFails(t, "mht: --trials 0", "mht", "sim", "--trials", "0")
}
