package node

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
)

// requirePrometheus returns the path of Prometheus's server, skipping
// the test when it is not installed, or failing it when
// BLOOMCAST_REQUIRE_PROMETHEUS is set (.ci/run installs Debian's
// prometheus package and sets it).
func requirePrometheus(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("BLOOMCAST_REQUIRE_PROMETHEUS") != "" {
			t.Fatal("prometheus not found, and BLOOMCAST_REQUIRE_PROMETHEUS is set")
		}
		t.Skip("prometheus not installed (Debian: apt-get install prometheus)")
	}
	return path
}

// promQuery runs an instant query through Prometheus's HTTP API and
// returns the number of series in its result.
func promQuery(base, expr string) (int, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	return len(r.Data.Result), nil
}

// alertExprs returns the rules' expressions in alerts.yml: what
// follows "expr:" on its line, or the lines indented under "expr: >-".
func alertExprs(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		rest, ok := strings.CutPrefix(strings.TrimLeft(lines[i], " "), "expr: ")
		if !ok {
			continue
		}
		if rest != ">-" {
			out = append(out, rest)
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		var b strings.Builder
		for i+1 < len(lines) && len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent {
			i++
			b.WriteString(lines[i] + "\n")
		}
		out = append(out, b.String())
	}
	return out
}

// selectorRE finds vector selectors: a metric name and its matchers.
var selectorRE = regexp.MustCompile(`bloomcast_[a-z_]*[a-z](\{[^}]*\})?`)

// TestPrometheusScrapesNodes runs a real Prometheus that scrapes two
// real nodes (with a peer hit, a false hit, a miss, a refused CONNECT, a
// failing peer and a digest transport behind them) and loads
// contrib/prometheus/alerts.yml; then every expression of the Grafana
// dashboard returns data through Prometheus's HTTP API, as does every
// selector of the alert rules, and the rules load healthy.
func TestPrometheusScrapesNodes(t *testing.T) {
	prom := requirePrometheus(t)
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	gone := listen(t, "127.0.0.1:0")
	goneURL := "http://" + gone.Addr().String()
	gone.Close() // nothing listens there: a failing peer
	a := startNode(t, lnA, nil, NodeConfig{Name: "a", Transport: &memTransport{}, Peers: []PeerConfig{
		{Name: "b", Proxy: "http://" + lnB.Addr().String()}, {Name: "gone", Proxy: goneURL}}})
	b := startNode(t, lnB, nil, NodeConfig{Name: "b", Peers: []PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}}})
	ctx := context.Background()
	b.get(t, origin.URL+"/obj/1")
	b.get(t, origin.URL+"/obj/2")
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)
	a.get(t, origin.URL+"/obj/1") // peer hit
	a.get(t, origin.URL+"/obj/1") // local hit
	key, _ := cache.Key(origin.URL + "/obj/2")
	b.Store().Delete(key)
	a.get(t, origin.URL+"/obj/2") // false hit, then a miss
	if err := a.PushDigest(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", lnA.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT 127.0.0.1:25 HTTP/1.1\r\nHost: 127.0.0.1:25\r\n\r\n")
	if line, _ := bufio.NewReader(c).ReadString('\n'); !strings.Contains(line, " 403 ") {
		t.Fatalf("CONNECT to port 25: %q", line)
	}
	c.Close()

	dir := t.TempDir()
	rules, err := filepath.Abs("../contrib/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: bloomcast
    static_configs: [{targets: [%q, %q]}]
`, rules, lnA.Addr().String(), lnB.Addr().String())
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	web := listen(t, "127.0.0.1:0")
	webAddr := web.Addr().String()
	web.Close()
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+webAddr, "--log.level=warn")
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus:\n%s", log)
		}
	})
	base := "http://" + webAddr
	// Three scrapes of each node, so that rate() over them has samples.
	waitFor(t, 60*time.Second, "Prometheus to scrape both nodes three times", func() bool {
		n, err := promQuery(base, `count_over_time(up{job="bloomcast"}[1m]) >= 3`)
		return err == nil && n == 2
	})

	dash, err := os.ReadFile("../contrib/grafana/bloomcast.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(dash, &d); err != nil {
		t.Fatal(err)
	}
	exprs := 0
	vars := strings.NewReplacer("$__rate_interval", "1m", "$instance", ".*", "$peer", ".*")
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			exprs++
			e := vars.Replace(tg.Expr)
			if n, err := promQuery(base, e); err != nil || n == 0 {
				t.Errorf("dashboard panel %q: %s: %d series, %v", p.Title, e, n, err)
			}
		}
	}
	if exprs < 30 {
		t.Fatalf("only %d dashboard expressions", exprs)
	}

	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	found := alertExprs(string(text))
	if len(found) != 8 {
		t.Fatalf("%d alert expressions in alerts.yml, want 8", len(found))
	}
	for _, expr := range found {
		if n, err := promQuery(base, expr); err != nil { // firing or not, it evaluates
			t.Errorf("alert %s: %v", expr, err)
		} else {
			t.Logf("%d series: %s", n, strings.Join(strings.Fields(expr), " "))
		}
		for _, sel := range selectorRE.FindAllString(expr, -1) {
			if n, err := promQuery(base, sel); err != nil || n == 0 {
				t.Errorf("alert selector %s: %d series, %v", sel, n, err)
			}
		}
	}
	resp, err := http.Get(base + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, LastError string
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, g := range r.Data.Groups {
		for _, rule := range g.Rules {
			loaded++
			if rule.Health == "err" {
				t.Errorf("rule %s: %s", rule.Name, rule.LastError)
			}
		}
	}
	if loaded != 8 {
		t.Errorf("Prometheus loaded %d rules, want 8", loaded)
	}
}
