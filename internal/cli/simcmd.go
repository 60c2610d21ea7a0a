package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

var tracebackUsage = usageText("sim-traceback")

var loopsUsage = usageText("sim-loops")

var simCommand = &command{
	name:    "sim",
	summary: "simulate IP traceback, loop detection, compressed digests, growth",
	usage:   usageText("sim"),
	run:     runSim,
}

func runSim(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("missing traceback, loops, compress or growth")
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return errHelp
	case "traceback":
		return subHelp(e, tracebackUsage, runTraceback(e, args[1:]))
	case "loops":
		return subHelp(e, loopsUsage, runLoops(e, args[1:]))
	case "compress":
		return subHelp(e, compressSimUsage, runSimCompress(e, args[1:]))
	case "growth":
		return subHelp(e, growthUsage, runSimGrowth(e, args[1:]))
	}
	return usagef("unknown simulation %q (want traceback, loops, compress or growth)", args[0])
}

// subHelp prints a subcommand's own usage when it was asked for.
func subHelp(e *env, usage string, err error) error {
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(e.stdout, usage)
	}
	return err
}

// listValue is a comma-separated list, replaced (not appended to) by the
// flag.
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }

func (l *listValue) Set(s string) error {
	*l = nil
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l = append(*l, f)
		}
	}
	if len(*l) == 0 {
		return errors.New("want a comma-separated list")
	}
	return nil
}

func runTraceback(e *env, args []string) error {
	fs := newFlagSet("sim traceback")
	topologies := listValue(sim.DefaultTopologyKinds())
	rates := listValue(formatFloats(sim.DefaultTracebackRates()))
	routers := countValue(sim.DefaultRouters)
	attacks := countValue(sim.DefaultAttacks)
	traffic := countValue(sim.DefaultTraffic)
	var seed uint64
	var asJSON bool
	var plot string
	fs.Var(&topologies, "topology", "")
	fs.Var(&rates, "fp", "")
	fs.Var(&routers, "routers", "")
	fs.Var(&attacks, "attacks", "")
	fs.Var(&traffic, "traffic", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	plotFlag(fs, &plot)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	ps, err := parseRates(rates)
	if err != nil {
		return err
	}
	if routers < 2 || attacks < 1 || traffic < 1 || routers > sim.MaxRouters ||
		attacks > sim.MaxAttacks || traffic > sim.MaxTraffic {
		return usagef("--routers, --attacks and --traffic must be positive (and --routers at least 2)")
	}
	cfg := sim.TracebackConfig{Rates: ps, Attacks: int(attacks), Traffic: int(traffic), Seed: seed}
	if cfg.Topologies, err = loadTopologies(topologies, int(routers), seed); err != nil {
		return err
	}
	results, err := sim.Traceback(cfg)
	if err != nil {
		return err
	}
	if plot != "" {
		if err := e.writeCharts(plot, sim.TracebackChart(results)); err != nil {
			return err
		}
	}
	report := report.NewTracebackReport(cfg, results)
	if asJSON {
		return writeJSON(e.stdout, report)
	}
	return report.WriteText(e.stdout)
}

// loadTopologies generates the named kinds and reads the edge-list files.
func loadTopologies(names []string, routers int, seed uint64) ([]*sim.Topology, error) {
	var ts []*sim.Topology
	for _, name := range names {
		if slices.Contains(sim.DefaultTopologyKinds(), name) {
			t, err := sim.NewTopology(sim.TopologyConfig{Kind: name, Routers: routers, Seed: seed})
			if err != nil {
				return nil, err
			}
			ts = append(ts, t)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fileErr(name, err)
		}
		t, err := sim.ReadEdgeList(f, filepath.Base(name))
		closeInput(f)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func parseRates(list []string) ([]float64, error) {
	var ps []float64
	for _, s := range list {
		var p rateValue
		if err := p.Set(s); err != nil {
			return nil, usagef("--fp %s: %v", s, err)
		}
		ps = append(ps, float64(p))
	}
	return ps, nil
}

func formatFloats(vs []float64) []string {
	var out []string
	for _, v := range vs {
		out = append(out, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return out
}

func runLoops(e *env, args []string) error {
	fs := newFlagSet("sim loops")
	bitsList := listValue{"64", "128", "256"}
	var k, hops, packets countValue
	hops, packets = sim.DefaultLoopHops, sim.DefaultLoopPackets
	loops := sim.DefaultLoopFraction
	var seed uint64
	var asJSON bool
	var plot string
	fs.Var(&bitsList, "bits", "")
	fs.Var(&k, "k", "")
	fs.Var(&hops, "hops", "")
	fs.Float64Var(&loops, "loops", loops, "")
	fs.Var(&packets, "packets", "")
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	plotFlag(fs, &plot)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if hops < 2 || hops > sim.MaxLoopRouters || packets < 1 || packets > 1<<32 || k > 512 {
		return usagef("--hops must be 2 to %d, --packets positive, --k at most 512", sim.MaxLoopRouters)
	}
	if !(loops >= 0 && loops <= 1) {
		return usagef("--loops must be a fraction from 0 to 1")
	}
	if loops == 0 {
		loops = sim.NoLoops
	}
	var results []sim.LoopResult
	for _, b := range bitsList {
		m, err := strconv.Atoi(b)
		if err != nil {
			return usagef("--bits %s: want whole numbers", b)
		}
		r, err := sim.LoopDetection(sim.LoopConfig{Bits: m, K: int(k), Hops: int(hops),
			LoopFraction: loops, Packets: int(packets), Seed: seed})
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if plot != "" {
		if err := e.writeCharts(plot, sim.LoopChart(results)); err != nil {
			return err
		}
	}
	report := report.NewLoopReport(seed, loops, results)
	if asJSON {
		return writeJSON(e.stdout, report)
	}
	return report.WriteText(e.stdout)
}
