package node

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// metricNameRE matches the node's metric names in the contrib files;
// a name directly followed by "_" or a letter is a longer name.
var metricNameRE = regexp.MustCompile(`bloomcast_[a-z_]*[a-z]`)

// TestContribMetricNames checks that every metric name the alert rules
// and the Grafana dashboard in contrib/ use is one the node exports:
// a metric's name appears in the package's sources as a string literal
// (its Name or its NewDesc).
func TestContribMetricNames(t *testing.T) {
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	literal := regexp.MustCompile(`"(bloomcast_[a-z_]+)"`)
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			exported[m[1]] = true
		}
	}
	if len(exported) < 30 {
		t.Fatalf("found only %d metric names in the sources", len(exported))
	}
	for _, f := range []string{"../contrib/prometheus/alerts.yml", "../contrib/prometheus/alerts_test.yml", "../contrib/grafana/bloomcast.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names := metricNameRE.FindAllString(string(b), -1)
		if len(names) == 0 {
			t.Errorf("%s: no metric names", f)
		}
		for _, name := range names {
			if !exported[name] {
				t.Errorf("%s: %s is not a metric the node exports", f, name)
			}
		}
	}
}
