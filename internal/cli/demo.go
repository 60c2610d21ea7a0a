package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
	"github.com/bloomcast/bloomcast/sim/replay"
)

var demoCommand = &command{
	name:    "demo",
	summary: "compare the layouts, then the summary cache against ICP",
	usage:   usageText("demo"),
	run:     runDemo,
}

// demoReport is the demo's JSON output: one member per part of the demo,
// so later parts (the cache cluster simulation) add a member here and a
// printer below without changing what scripts already read.
type demoReport struct {
	LayoutTrial *report.LayoutTrialReport `json:"layout_trial"`
	Cluster     *report.ClusterReport     `json:"cluster,omitempty"`
}

// The demo's replay: nodes, requests and modes.
const (
	demoNodes    = 4
	demoRequests = 30000
	demoSummary  = "sc-10%-16b-comp-delta"
)

// maxDemoKeys bounds --keys: the demo holds twice as many keys in memory,
// some 70 bytes each.
const maxDemoKeys = 1 << 22

func runDemo(e *env, args []string) error {
	fs := newFlagSet("demo")
	keys := countValue(sim.DefaultTrialKeys)
	p := rateValue(sim.DefaultTrialP)
	requests := countValue(demoRequests)
	var seed uint64
	var asJSON bool
	fs.Var(&keys, "keys", "")
	fs.Var(&p, "p", "")
	fs.Var(&requests, "requests", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if keys < 1 || keys > maxDemoKeys {
		return usagef("--keys must be between 1 and %d", maxDemoKeys)
	}
	if requests > replay.MaxSyntheticRequests {
		return usagef("--requests must be at most %d", replay.MaxSyntheticRequests)
	}

	var report demoReport
	var err error
	report.LayoutTrial, err = layoutTrial(int(keys), float64(p), seed)
	if err != nil {
		return err
	}
	if !asJSON {
		if err := printLayoutTrial(e.stdout, report.LayoutTrial); err != nil {
			return err
		}
	}
	if requests > 0 {
		if report.Cluster, err = demoCluster(e, int(requests), seed); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, report)
	}
	if report.Cluster == nil {
		return nil
	}
	return printDemoCluster(e.stdout, report.Cluster)
}

// demoCluster replays the demo's synthetic trace in three modes.
func demoCluster(e *env, requests int, seed uint64) (*report.ClusterReport, error) {
	trace, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: demoNodes, Requests: requests, Seed: seed})
	if err != nil {
		return nil, err
	}
	modes, err := parseModes("none,icp," + demoSummary)
	if err != nil {
		return nil, err
	}
	r, _, err := replayCluster(e, trace, modes, clusterOptions{cacheFraction: 0.1, source: "synthetic", seed: seed})
	return r, err
}

// printDemoCluster prints the replay's comparison and what it shows.
func printDemoCluster(w io.Writer, r *report.ClusterReport) error {
	head := fmt.Sprintf("bloomcast demo, the summary cache: %d requests of a synthetic web trace (seed %d, %d objects, %s) through %d cache nodes on loopback, each caching %s",
		r.Trace.Requests, r.Trace.Seed, r.Trace.Objects, humanBytes(r.Trace.UniqueBytes), r.Nodes, humanBytes(r.CacheBytes))
	fprintf(w, "\n%s\n\n", wrap(head, 76))
	var t textTable
	t.add("mode", "hit ratio", "from peers", "false hits", "query msgs", "control bytes", "object bytes")
	rows := map[string]report.ClusterRow{}
	for _, x := range r.Results {
		rows[x.Mode] = x
		t.add(x.Mode, percent(x.HitRatio), percent(x.RemoteHitRatio), strconv.FormatUint(x.FalseHits, 10),
			strconv.FormatUint(x.QueryMessages, 10), humanBytes(int64(x.ControlBytes)), humanBytes(int64(x.ObjectBytes)))
	}
	if err := t.write(w); err != nil {
		return err
	}
	none, icp, sc := rows["none"], rows["icp"], rows[demoSummary]
	mode, err := replay.ParseMode(demoSummary)
	if err != nil {
		return err
	}
	fewer := "as many query messages"
	switch q := sc.QueryMsgsVsICP; {
	case q > 0 && q < 1:
		fewer = strconv.FormatFloat(1/q, 'f', 1, 64) + " times fewer query messages"
	case q > 1:
		// Caches of a few dozen objects publish at almost every change.
		fewer = strconv.FormatFloat(q, 'f', 1, 64) + " times more query messages (caches this small publish at almost every change)"
	}
	text := fmt.Sprintf(`Each node is a real caching proxy (bloomcast serve) with a cache a tenth the size of the trace's objects, so it evicts. Alone ("none") the nodes serve %s of requests from cache. With ICP a node that misses asks all %d peers over UDP and waits for their replies: %s of requests come from a peer, for %d query messages. As a summary cache (%s) each node keeps a counting Bloom filter of its cache, publishes a compressed digest when %s of it has changed, and its peers fetch the delta; a miss goes only to a peer whose digest says maybe. It serves %s of requests from cache (ICP %s), %s from peers, with %s and %s of ICP's control bytes; its %d false hits are peers that were asked but no longer held the object, or digest false positives. "bloomcast simulate" runs every threshold, digest size, codec and update kind, or your own Squid access.log.`,
		percent(none.HitRatio), r.Nodes-1, percent(icp.RemoteHitRatio), icp.QueryMessages, demoSummary, strconv.FormatFloat(100*mode.Threshold, 'g', -1, 64)+"%",
		percent(sc.HitRatio), percent(icp.HitRatio), percent(sc.RemoteHitRatio), fewer, percent(sc.ControlBytesVsICP), sc.FalseHits)
	_, err = fmt.Fprintf(w, "\n%s\n", wrap(text, 76))
	return err
}

// layoutTrial runs sim.LayoutTrial and keeps what the demo shows.
func layoutTrial(keys int, p float64, seed uint64) (*report.LayoutTrialReport, error) {
	cfg := sim.LayoutTrialConfig{Keys: keys, P: p, Seed: seed}
	results, err := sim.LayoutTrial(cfg)
	if err != nil {
		return nil, err
	}
	return report.NewLayoutTrialReport(cfg, results), nil
}

func printLayoutTrial(w io.Writer, r *report.LayoutTrialReport) error {
	fprintf(w, "bloomcast demo: %d URL-like keys (seed %d), each layout sized for p = %s\n\n",
		r.Keys, r.Seed, strconv.FormatFloat(r.P, 'g', -1, 64))
	if err := r.WriteText(w); err != nil {
		return err
	}
	agreement := fmt.Sprintf("The two agree within sampling noise (the largest gap here is %.1f standard errors)", r.LargestGap())
	if r.LargestGap() > 3 {
		agreement = fmt.Sprintf("The largest gap here is %.1f standard errors, more than sampling noise usually explains", r.LargestGap())
	}
	blockedCost := "a few more bits per key"
	if c, ok := r.BlockedCost(); ok {
		blockedCost = fmt.Sprintf("%.0f%% more bits per key than classic", 100*c)
	}
	cacheNote := ""
	if r.LargestEncoding() <= 1<<20 {
		cacheNote = " Filters this small stay in the CPU caches, where the layouts' speeds are close; try --keys 2000000 to see what memory misses cost."
	}
	text := fmt.Sprintf(`Each filter holds the same %d keys and was sized by params.Size for p = %g, so the layouts differ only in how they spend their bits. "predicted" is the false-positive rate the params model gives for the shape; "measured" is the fraction of %d other keys, never added, that the filter wrongly reported present. %s, and no member was reported absent: a Bloom filter has no false negatives. Blocked puts all of a key's probes in one 64-byte cache line, so a query costs one memory miss, paid for with %s; paged does the same with 4 KiB pages for filters kept on disk; partitioned gives each probe a slice of its own. Timings are the fastest of three passes and vary with the machine.%s`,
		r.Keys, r.P, r.NonMembers, agreement, blockedCost, cacheNote)
	_, err := fmt.Fprintf(w, "\n%s\n\n%s\n", wrap(text, 76),
		wrap(`To size a filter of your own, try "bloomcast calc -n 1000000 -p 0.001"; "bloomcast table" prints the false-positive rate for each number of bits per key and k.`, 76))
	return err
}
