package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/report"
)

func TestSimulate(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "cluster.svg")
	args := []string{"simulate", "--nodes", "3", "--requests", "1500", "--objects", "400", "--seed", "2",
		"--modes", "none,icp,sc-10%-16b-comp-delta,sc-10%-16b-raw-full"}
	r := bc(t, "", append(args, "--json", "--plot", plot)...)
	if r.code != 0 || !strings.Contains(r.stderr, "1500/1500 requests") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	// Every mode but the last says about how long the rest will take.
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 4 || strings.Count(r.stderr, " left)") != 3 || strings.Contains(lines[3], "left") {
		t.Errorf("progress:\n%s", r.stderr)
	}
	var rep report.ClusterReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Nodes != 3 || rep.Trace.Requests != 1500 || rep.Trace.Source != "synthetic" || rep.Trace.Seed != 2 || len(rep.Results) != 4 {
		t.Fatalf("%+v", rep)
	}
	none, icp, comp, raw := rep.Results[0], rep.Results[1], rep.Results[2], rep.Results[3]
	if none.Mode != "none" || none.QueryMessages != 0 || icp.ICPMessages == 0 || icp.QueryMsgsVsICP != 1 ||
		comp.QueryMsgsVsICP >= 0.5 || comp.DeltaFetches == 0 || raw.DeltaFetches != 0 || raw.FullFetches == 0 ||
		comp.DigestK >= raw.DigestK || comp.HitRatio <= none.HitRatio {
		t.Errorf("results: %+v", rep.Results)
	}
	for _, x := range rep.Results {
		if !(x.CPUSeconds > 0) || (x.Mode != "icp" && !(x.CPUVsICP > 0)) {
			t.Errorf("%s: cpu_seconds %v, vs ICP %v", x.Mode, x.CPUSeconds, x.CPUVsICP)
		}
	}
	if svg, err := os.ReadFile(plot); err != nil || !strings.Contains(string(svg), "summary comp. deltas") {
		t.Errorf("plot: %v", err)
	}

	// A Squid access.log, and the table.
	log := filepath.Join(dir, "access.log")
	var b strings.Builder
	for i := range 300 {
		b.WriteString("1700000000.000 5 10.0.0." + string(rune('1'+i%4)) + " TCP_MISS/200 2000 GET http://example.com/" +
			string(rune('a'+i%37%26)) + " - HIER_DIRECT/1.2.3.4 text/html\n")
	}
	b.WriteString("1700000000.000 5 10.0.0.1 TCP_MISS/200 2000 POST http://example.com/form - HIER_DIRECT/1.2.3.4 text/html\n")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r = bc(t, "", "simulate", "--trace", log, "--nodes", "2", "--modes", "none,icp,sc-1%-8b-raw-delta,sc-1%-8b-static")
	if r.code != 0 {
		t.Fatalf("--trace: exit %d, %s", r.code, r.stderr)
	}
	for _, s := range []string{log, "300 requests", "1 not GET", "hit loss", "query msgs", "icp", "sc-1%-8b-raw-delta", "sc-1%-8b-static", "bytes/update", "false hit", "a ribbon filter"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("table lacks %q:\n%s", s, r.stdout)
		}
	}

	// The same log gzip-compressed, as a rotated log is: the same
	// requests. Cut short, it is an error, not a shorter trace.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	logGz, cutGz := filepath.Join(dir, "access.log.gz"), filepath.Join(dir, "cut.log.gz")
	if err := os.WriteFile(logGz, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cutGz, gz.Bytes()[:gz.Len()-10], 0o644); err != nil {
		t.Fatal(err)
	}
	r = bc(t, "", "simulate", "--trace", logGz, "--nodes", "2", "--modes", "none")
	if r.code != 0 || !strings.Contains(r.stdout, "300 requests") || !strings.Contains(r.stdout, "1 not GET") {
		t.Errorf("gzip --trace: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
	if r = bc(t, "", "simulate", "--trace", cutGz, "--nodes", "2", "--modes", "none"); r.code != 2 || !strings.Contains(r.stderr, "unexpected EOF") {
		t.Errorf("cut gzip --trace: exit %d, %s", r.code, r.stderr)
	}

	for _, bad := range [][]string{
		{"simulate", "--modes", "carrier-pigeon"},
		{"simulate", "--modes", "sc-1%-16b-static-delta"},
		{"simulate", "--modes", "sc-1%-16b-static", "--transport", "http"},
		{"simulate", "--nodes", "0"},
		{"simulate", "--cache", "2"},
		{"simulate", "--compressed-memory", "0.5"},
		{"simulate", "--zipf", "-1", "--requests", "10"},
		{"simulate", "--trace", filepath.Join(dir, "missing.log")},
		{"simulate", "extra"},
	} {
		if r := bc(t, "", bad...); r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: ") {
			t.Errorf("%q: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

// TestTimeLeft: simulate's progress estimates the time left from the
// rate so far, over every mode.
func TestTimeLeft(t *testing.T) {
	for _, c := range []struct {
		elapsed   time.Duration
		done, all int
		want      string
	}{
		{20 * time.Second, 1, 4, ", about 1m0s left"},
		{10 * time.Second, 5000, 10000, ", about 10s left"},
		{10 * time.Second, 0, 10, ""},
		{10 * time.Second, 10, 10, ""},
	} {
		if got := timeLeft(c.elapsed, c.done, c.all); got != c.want {
			t.Errorf("timeLeft(%v, %d, %d) = %q, want %q", c.elapsed, c.done, c.all, got, c.want)
		}
	}
}
