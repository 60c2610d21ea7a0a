package hits

import (
	"fmt"
	"io"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// WriteMarkdown prints the environment, every round and the medians with
// their ratios to Squid's.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %s; %s.\n\n", rep.Env.Measured(false), rep.SquidVersion, rep.WrkVersion)
	fmt.Fprintf(&b, "One origin with %d objects of %d bytes, all cached hits in each proxy; `wrk -t%d -c%d -d%.0fs --latency` "+
		"sending absolute-URI requests through one proxy at a time, rounds interleaved. CPU is the proxy process's own per request. "+
		"Check: the proxy counted every request as a hit (node /metrics, Squid's cache manager counters) and the origin saw none.\n\n",
		rep.Objects, rep.ObjectBytes, rep.Threads, rep.Connections, rep.DurationS)
	b.WriteString("| round | proxy | hits/s | p50 ms | p90 ms | p99 ms | CPU µs/hit | check |\n")
	b.WriteString("|--:|---|--:|--:|--:|--:|--:|---|\n")
	for _, r := range rep.Rounds {
		check := fmt.Sprintf("ok: %d hits counted", r.ProxyHits)
		if err := r.Check(rep.Connections); err != nil {
			check = "**FAILED**: " + err.Error()
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f | %.2f | %.2f | %.2f | %.1f | %s |\n",
			r.Round, r.Name(), r.RPS, r.P50Us/1e3, r.P90Us/1e3, r.P99Us/1e3, r.CPUUsPerRequest, check)
	}
	b.WriteString("\n| proxy (median of rounds) | hits/s | p99 ms | CPU µs/hit | hits/s vs Squid | p99 vs Squid | CPU/hit vs Squid |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range rep.Summaries {
		fmt.Fprintf(&b, "| %s | %.0f | %.2f | %.1f | %.2f | %.2f | %.2f |\n",
			s.Name, s.RPS, s.P99Us/1e3, s.CPUUs, s.RPSRatio, s.P99Ratio, s.CPUUsRatio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes a report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	return compare.EncodeJSON(w, rep)
}
