package load

import (
	"fmt"
	"io"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// WriteMarkdown prints the environment line and the table of a report.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.\n\n", rep.Env.Measured(true))
	fmt.Fprintf(&b, "Origin, node A and node B (peers through digests) in this process on loopback; %d keep-alive clients, "+
		"each sending its next request as soon as the last one is answered; %.3g s measured per scenario after %.3g s of warm-up; "+
		"%d-byte objects; local-hit set of %d objects", rep.Clients, rep.DurationS, rep.WarmupS, rep.ObjectBytes, rep.Objects)
	if rep.PeerPool > 0 {
		fmt.Fprintf(&b, "; peer-hit pool of %d objects put into B, each asked for once", rep.PeerPool)
	}
	b.WriteString(". Latency is a client's wait for a whole response; CPU is the whole process's (clients, nodes and origin) per request.\n\n")
	b.WriteString("| scenario | requests | req/s | p50 ms | p99 ms | max ms | mean ms | CPU µs/req | check |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range rep.Results {
		check := "ok: "
		if err := r.Check(); err != nil {
			check = "**FAILED** (" + err.Error() + "): "
		}
		switch r.Scenario {
		case ScenarioLocal:
			check += fmt.Sprintf("A local hits %d", r.ALocalHits)
		case ScenarioPeer:
			check += fmt.Sprintf("A peer hits %d, access log CD_SIBLING_HIT/b %d, B hits %d", r.APeerHits, r.ALogSiblingHits, r.BLocalHits)
		}
		check += fmt.Sprintf(", origin %d, errors %d", r.OriginRequests, r.Errors)
		if r.Exhausted {
			check += fmt.Sprintf("; pool used up after %.2f s", r.Seconds)
		}
		ms := func(us float64) string { return fmt.Sprintf("%.2f", us/1e3) }
		fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %s | %s | %s | %.0f | %s |\n",
			r.Scenario, r.Requests, r.RPS, ms(r.P50Us), ms(r.P99Us), ms(r.MaxUs), ms(r.MeanUs), r.CPUPerRequestUs, check)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes a report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	return compare.EncodeJSON(w, rep)
}
