package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/sim"
)

const tracebackUsage = `usage: bloomcast sim traceback [--topology T] [--routers N] [--attacks N]
                              [--fp P] [--traffic N] [--seed S] [--json]
                              [--plot OUT.svg]

Simulate hash-based IP traceback (Snoeren et al., SPIE, SIGCOMM 2001).
Every router keeps a Bloom-filter digest of the packets it forwards for
each one-second window, sized for its load at the target false-positive
rate, in a ring of 4 windows; a victim traces each attack packet back hop
by hop, asking every neighbour whether it saw the packet. For each topology
and rate it reports the false branches of the reconstructed attack graphs,
measured and expected from the digests' false-positive rates, how often
the source was found with no false lead, and the digest memory per router
per second of traffic.

flags:
  --topology T    comma-separated list of tree, random, powerlaw or an
                  edge-list FILE: one link "a b" per line, # comments
                  (default tree,random,powerlaw)
  --routers N     routers in each generated topology (default 300)
  --attacks N     attack packets traced per topology and rate (default 1000)
  --fp P          comma-separated target false-positive rates of the digests
                  (default 0.001,0.003,0.01,0.03,0.1)
  --traffic N     background packets per second, network-wide (default 20000)
  --seed S        seed of the topologies, traffic, attacks and hashing
                  (default 1)
  --json          print one JSON object instead of tables
  --plot OUT.svg  also draw false branches against the rate as an SVG chart
`

const loopsUsage = `usage: bloomcast sim loops [--bits M] [--k K] [--hops H] [--loops F]
                          [--packets N] [--seed S] [--json] [--plot OUT.svg]

Simulate loop detection with a Bloom filter in each packet (Whitaker and
Wetherall, "Forwarding without loops in Icarus", 2002). Every router has
a precomputed mask of k bits; it checks the packet's M-bit filter against
it (all set means "probably looped": the packet is dropped) and ORs it in.
Packets cross H routers; a fraction F of them meet a routing loop. It
reports the loops detected, the false alarms on loop-free packets against
the exact model and the textbook Bloom-filter estimate, and the header
bytes spent.

flags:
  --bits M        comma-separated sizes of the carried filter in bits,
                  multiples of 8 up to 1024 (default 64,128,256)
  --k K           bits per router mask (default: the k with the fewest
                  false alarms over H routers, for each M)
  --hops H        routers a loop-free packet crosses (default 16)
  --loops F       fraction of packets with a routing loop, 0 to 1
                  (default 0.1)
  --packets N     packets sent for each filter size (default 200000)
  --seed S        seed of the paths, loops and masks (default 1)
  --json          print one JSON object instead of tables
  --plot OUT.svg  also draw the false-alarm rate at each router as an SVG
                  chart
`

var simCommand = &command{
	name:    "sim",
	summary: "simulate SPIE IP traceback, in-packet loop detection, compressed digests and scalable filters' growth",
	usage: `usage: bloomcast sim traceback [FLAGS]
       bloomcast sim loops [FLAGS]
       bloomcast sim compress [FLAGS]
       bloomcast sim growth [FLAGS]

Network applications of Bloom filters, simulated with built-in defaults;
each run takes seconds and depends only on its seed. docs/SIMULATIONS.md
explains the models and the figures.

` + indentUsage(tracebackUsage) + "\n" + indentUsage(loopsUsage) + "\n" + indentUsage(compressSimUsage) + "\n" + indentUsage(growthUsage),
	run: runSim,
}

// indentUsage returns a subcommand's usage as a section of sim's: its
// synopsis without "usage: ", continuation lines moved left to match.
func indentUsage(u string) string {
	synopsis, rest, _ := strings.Cut(u, "\n\n")
	lines := strings.Split(strings.TrimPrefix(synopsis, "usage: "), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], "       ")
	}
	return strings.Join(lines, "\n") + "\n\n" + rest
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
	fs.StringVar(&plot, "plot", "", "")
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
		if err := writeCharts(plot, sim.TracebackChart(results)); err != nil {
			return err
		}
	}
	report := sim.NewTracebackReport(cfg, results)
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
	fs.StringVar(&plot, "plot", "", "")
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
		if err := writeCharts(plot, sim.LoopChart(results)); err != nil {
			return err
		}
	}
	report := sim.NewLoopReport(seed, loops, results)
	if asJSON {
		return writeJSON(e.stdout, report)
	}
	return report.WriteText(e.stdout)
}
