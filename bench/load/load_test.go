package load

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Clients: 4, Duration: 300 * time.Millisecond, Warmup: 100 * time.Millisecond, Objects: 50, ObjectBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || rep.Results[0].Scenario != ScenarioLocal || rep.Results[1].Scenario != ScenarioPeer {
		t.Fatalf("results %+v", rep.Results)
	}
	for _, r := range rep.Results {
		if err := r.Check(); err != nil {
			t.Errorf("%s: %v (%+v)", r.Scenario, err, r)
		}
		if !(r.RPS > 0 && r.P50Us > 0 && r.P50Us <= r.P99Us && r.P99Us <= r.MaxUs) {
			t.Errorf("%s: figures %+v", r.Scenario, r)
		}
	}
	if rep.PeerPool < int(rep.Results[1].Requests) {
		t.Errorf("peer pool %d smaller than the %d peer hits", rep.PeerPool, rep.Results[1].Requests)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GOMAXPROCS", "load average", "| local-hit |", "| peer-hit |", "CD_SIBLING_HIT/b"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "FAILED") {
		t.Errorf("report:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Results[1].APeerHits != rep.Results[1].APeerHits {
		t.Fatalf("JSON round trip: %v", err)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for q, want := range map[float64]time.Duration{50: 50, 99: 99, 100: 100, 0: 1} {
		if got := percentile(d, q); got != want {
			t.Errorf("p%g = %d, want %d", q, got, want)
		}
	}
	if percentile(nil, 50) != 0 || percentile(d[:1], 99) != 1 {
		t.Error("edge cases")
	}
	r := summarise([]time.Duration{3000, 1000, 2000})
	if r.Requests != 3 || r.P50Us != 2 || r.MaxUs != 3 || r.MeanUs != 2 {
		t.Errorf("summarise: %+v", r)
	}
}

func TestConfigRejects(t *testing.T) {
	for _, c := range []Config{{Clients: -1}, {Scenarios: []string{"miss"}}} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
