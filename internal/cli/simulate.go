package cli

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/keyfile"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/sim/replay"
)

var simulateCommand = &command{
	name:    "simulate",
	summary: "replay a trace through real cache nodes: summary cache against ICP",
	usage:   usageText("simulate"),
	run:     runSimulate,
}

func runSimulate(e *env, args []string) error {
	fs := newFlagSet("simulate")
	var traceFile, modes, plot string
	nodes, requests := countValue(4), countValue(200000)
	var objects, clients countValue
	zipf, churn, shift, cacheFraction, compMemory := 0.8, 0.05, 0.005, 0.1, 4.0
	var seed uint64
	var asJSON bool
	var transports, natsURL string
	poll := 30 * time.Second
	fs.StringVar(&transports, "transport", "", "")
	fs.DurationVar(&poll, "poll", poll, "")
	var pushInterval time.Duration
	fs.DurationVar(&pushInterval, "push-interval", 0, "")
	fs.StringVar(&natsURL, "nats", "", "")
	fs.StringVar(&traceFile, "trace", "", "")
	fs.Var(&nodes, "nodes", "")
	fs.Var(&requests, "requests", "")
	fs.Var(&objects, "objects", "")
	fs.Float64Var(&zipf, "zipf", zipf, "")
	fs.Var(&clients, "clients", "")
	fs.Float64Var(&churn, "churn", churn, "")
	fs.Float64Var(&shift, "shift", shift, "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.Float64Var(&cacheFraction, "cache", cacheFraction, "")
	fs.StringVar(&modes, "modes", "all", "")
	fs.Float64Var(&compMemory, "compressed-memory", compMemory, "")
	fs.BoolVar(&asJSON, "json", false, "")
	plotFlag(fs, &plot)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	tlist, err := parseTransports(e, transports, poll)
	if err != nil {
		return err
	}
	switch {
	case pushInterval < 0 || pushInterval > 0 && pushInterval < cache.MinInterval:
		return usagef("--push-interval must be 0 or at least %v", cache.MinInterval)
	case pushInterval > 0 && !slices.Contains(tlist, "nats"):
		return usagef("--push-interval needs --transport nats")
	}
	modesSet := false
	fs.Visit(func(f *flag.Flag) { modesSet = modesSet || f.Name == "modes" })
	if len(tlist) > 0 && !modesSet {
		modes = "sc-1%-16b-comp-delta"
	}
	ms, err := parseModes(modes)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Static && len(tlist) > 0 {
			return usagef("--transport: mode %s: static digests travel only at once", m)
		}
	}
	if nodes < 1 || nodes > replay.MaxProxies {
		return usagef("--nodes must be 1 to %d", replay.MaxProxies)
	}
	if !(cacheFraction > 0 && cacheFraction <= 1) {
		return usagef("--cache must be a fraction in (0, 1]")
	}
	if !(compMemory >= 1 && compMemory <= 1<<12) {
		return usagef("--compressed-memory must be 1 to %d", 1<<12)
	}
	var trace *replay.Trace
	source := "synthetic"
	if traceFile != "" {
		f, err := os.Open(traceFile)
		if err != nil {
			return fileErr(traceFile, err)
		}
		trace, err = parseTrace(f, int(nodes))
		closeInput(f)
		if err != nil {
			return fmt.Errorf("%s: %w", traceFile, err)
		}
		if len(trace.Requests) == 0 {
			return fmt.Errorf("%s: no GET request to replay (lines not parsed: %d; not GET: %d; unsuccessful: %d)",
				traceFile, trace.Malformed, trace.SkippedMethod, trace.SkippedStatus)
		}
		source, seed = traceFile, 0
	} else {
		// 0 means "none" on the command line; the generator reads a
		// negative value so.
		if churn == 0 {
			churn = -1
		}
		if shift == 0 {
			shift = -1
		}
		if requests > replay.MaxSyntheticRequests || objects > replay.MaxSyntheticObjects || clients > 1<<20 {
			return usagef("--requests at most %d, --objects at most %d", replay.MaxSyntheticRequests, replay.MaxSyntheticObjects)
		}
		trace, err = replay.SyntheticTrace(replay.SyntheticConfig{Proxies: int(nodes), Clients: int(clients),
			Requests: int(requests), Objects: int(objects), Zipf: zipf, Churn: churn, Shift: shift, Seed: seed})
		if err != nil {
			return usagef("%v", err)
		}
	}
	opts := clusterOptions{cacheFraction: cacheFraction, compressedMemory: compMemory, source: source, seed: seed, progress: true}
	var rep *report.ClusterReport
	var results []replay.ClusterResult
	if len(tlist) == 0 {
		if rep, results, err = replayCluster(e, trace, ms, opts); err != nil {
			return err
		}
	}
	for _, tr := range tlist {
		o := opts
		if tr == "http" {
			o.poll = poll
		} else {
			stop, err := natsTransport(e, natsURL, &o)
			if err != nil {
				return err
			}
			o.pushInterval = pushInterval
			defer stop()
		}
		r, res, err := replayCluster(e, trace, ms, o)
		if err != nil {
			return err
		}
		if rep == nil {
			rep = r
		} else {
			rep.Results = append(rep.Results, r.Results...)
		}
		results = append(results, res...)
	}
	if plot != "" {
		if err := e.writeCharts(plot, report.ClusterChart(results)); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	return rep.WriteText(e.stdout)
}

// parseModes reads --modes (replay.ParseModes).
func parseModes(list string) ([]replay.Mode, error) {
	ms, err := replay.ParseModes(list)
	if err != nil {
		return nil, usagef("--modes: %v", err)
	}
	return ms, nil
}

// clusterOptions are replayCluster's settings besides the trace and the
// modes.
type clusterOptions struct {
	cacheFraction, compressedMemory float64
	source                          string // the trace file, or "synthetic"
	seed                            uint64
	progress                        bool // report progress on stderr
	// poll or transport: how digests travel (replay.ClusterConfig)
	poll         time.Duration
	transport    func(replay int, name string) (node.DigestTransport, error)
	pushInterval time.Duration
}

// parseTransports reads --transport: http, nats or both.
func parseTransports(e *env, list string, poll time.Duration) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, t := range strings.Split(list, ",") {
		switch t = strings.TrimSpace(t); t {
		case "http":
		case "nats":
			if e.opts.NATS == nil {
				return nil, fmt.Errorf("simulate --transport nats: %w", errNoNATS)
			}
		default:
			return nil, usagef("--transport: %q (want http, nats or http,nats)", t)
		}
		if slices.Contains(out, t) {
			return nil, usagef("--transport: %s twice", t)
		}
		out = append(out, t)
	}
	if poll < cache.MinInterval {
		return nil, usagef("--poll must be at least %v", cache.MinInterval)
	}
	return out, nil
}

// natsTransport sets o's transport to NATS at url, or at a server the
// build starts when url is empty, and returns what stops that server.
func natsTransport(e *env, url string, o *clusterOptions) (stop func(), err error) {
	stop = func() {}
	if url == "" {
		if e.opts.StartNATS == nil {
			return nil, usagef("--transport nats needs --nats URL in this build")
		}
		if url, stop, err = e.opts.StartNATS(); err != nil {
			return nil, fmt.Errorf("simulate: starting nats-server: %w", err)
		}
	}
	run := time.Now().UnixNano()
	quiet := slog.New(slog.DiscardHandler)
	o.transport = func(replay int, name string) (node.DigestTransport, error) {
		return e.opts.NATS(NATSConfig{URL: url, Namespace: fmt.Sprintf("SIM%d_%d", run, replay), Logger: quiet})
	}
	return stop, nil
}

// replayCluster runs the replay, with progress on stderr if asked, and
// builds the report.
func replayCluster(e *env, trace *replay.Trace, ms []replay.Mode, o clusterOptions) (*report.ClusterReport, []replay.ClusterResult, error) {
	total := len(trace.Requests)
	start := time.Now()
	cfg := replay.ClusterConfig{Trace: trace, Modes: ms, CacheFraction: o.cacheFraction, CompressedMemory: o.compressedMemory,
		ProgressEvery: max(total/4, 5000), Context: e.ctx, PollInterval: o.poll, Transport: o.transport,
		PushInterval: o.pushInterval}
	if o.progress {
		finished := 0 // modes replayed whole; ReplayCluster runs them in turn
		cfg.Progress = func(m replay.Mode, done, total int) {
			elapsed := time.Since(start)
			fprintf(e.stderr, "bloomcast: %-22s %d/%d requests (%s%s)\n", m, done, total, elapsed.Round(time.Second),
				timeLeft(elapsed, finished*total+done, len(ms)*total))
			if done == total {
				finished++
			}
		}
	}
	results, err := replay.ReplayCluster(cfg)
	if err != nil {
		return nil, nil, err
	}
	r := report.NewClusterReport(cfg, results)
	r.Trace.Source, r.Trace.Seed = o.source, o.seed
	return r, results, nil
}

// timeLeft estimates the time a run that took elapsed for done of all
// units of work still needs, at the rate so far: ", about 1m10s left", or
// "" at the start and the end.
func timeLeft(elapsed time.Duration, done, all int) string {
	if done <= 0 || done >= all {
		return ""
	}
	left := time.Duration(float64(elapsed) * float64(all-done) / float64(done))
	return ", about " + left.Round(time.Second).String() + " left"
}

// parseTrace reads an access.log from r, decompressed first if it is
// gzip or zstd, as rotated logs often are (keyfile.Decompress, as key
// files are read).
func parseTrace(r io.Reader, nodes int) (*replay.Trace, error) {
	text, release, err := keyfile.Decompress(r)
	if err != nil {
		return nil, err
	}
	defer release()
	return replay.ParseAccessLog(text, nodes)
}
