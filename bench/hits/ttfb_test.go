package hits

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for q, want := range map[float64]float64{0.5: 3, 0.9: 5, 0.2: 1, 0.99: 5} {
		if got := quantile(xs, q); got != want {
			t.Errorf("q%g = %g, want %g", q, got, want)
		}
	}
	if quantile(nil, 0.5) != 0 || xs[0] != 5 {
		t.Error("empty input, or the input sorted in place")
	}
}

func TestTTFBConfigRejects(t *testing.T) {
	for _, c := range []TTFBConfig{{Requests: -1}, {Pause: -time.Second}, {Piece: -1}, {Squid: "/nonexistent/squid"}} {
		if _, err := RunTTFB(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestRunTTFBShort measures a few misses of each target: every request
// reaches the origin once, and the node, which streams, has the first
// byte well before the origin's pause is over.
func TestRunTTFBShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bloomcast and runs squid")
	}
	if _, err := os.Stat("/usr/sbin/squid"); err != nil {
		if os.Getenv(requireSquidEnv) != "" {
			t.Fatalf("%s is set but %v", requireSquidEnv, err)
		}
		t.Skip(err)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build bloomcast with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const pause = 300 * time.Millisecond
	rep, err := RunTTFB(ctx, TTFBConfig{Requests: 5, Pause: pause})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Summaries) != 3 || rep.Summaries[1].Target != ProxyNode {
		t.Fatalf("summaries %+v", rep.Summaries)
	}
	for _, s := range rep.Summaries {
		if s.WholeP50Us < float64(pause.Microseconds()) {
			t.Errorf("%s: whole body in %g µs, before the origin's pause ended", s.Target, s.WholeP50Us)
		}
	}
	if node := rep.Summaries[1]; node.P50Us > float64(pause.Microseconds())/2 {
		t.Errorf("node: first byte after %g µs: the body was not streamed", node.P50Us)
	}
	var md bytes.Buffer
	if err := WriteTTFBMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| direct |", "| bloomcast |", "| squid |", "Squid Cache: Version"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
}
