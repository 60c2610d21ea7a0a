package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

// calc --transmit and calc --compressed: the compressed-filter optimiser.
// runCalc hands its arguments here when they include either flag.

const calcTransmitUsage = `usage: bloomcast calc -n N --transmit Z [--max-m BITS] [options] [--json]
       bloomcast calc -n N -p P --compressed [--max-m BITS] [options] [--json]

Choose a classic filter to send compressed (Mitzenmacher, "Compressed Bloom
filters"). A filter with few hash functions and a larger array has its
bits far from half set, and an entropy coder sends its m bits in about
m·H(p) bits. With --transmit, calc finds the m and k with the lowest
false-positive rate whose message fits Z bits per key; with --compressed,
the m and k whose message is smallest at rate P. Either way it prints the
standard (uncompressed) filter for the same question, the optimum, and the
best shape for each k.

options:
  -n N              number of distinct keys (required)
  --transmit Z      budget: bits per key on the wire
  -p P              target false-positive rate (with --compressed)
  --max-m BITS      memory cap: the receivers hold at most BITS bits
  --max-bpk X       memory cap in bits per key
  --max-k K         largest k tried (default 64)
  --overhead E      the coder's excess over m·H(p), e.g. 0.005 (default 0)
  --whole           whole bits per key only (m/n = 14, 92, ...), as the
                    paper's tables
  --exact           p = (1 − 1/m)^(kn) instead of the paper's e^(−kn/m)
  --churn C         fraction of keys replaced between updates: report the
                    size of a delta for each shape
  --delta Z         bound the delta at Z bits per key (needs --churn)
  --json            print one JSON object instead of tables
  --plot OUT.svg    also draw the best shape's rate, message and memory
                    against k (log scale), with the standard filter's
`

// wantsTransmit reports whether calc's arguments ask for the optimiser.
func wantsTransmit(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-transmit", "--transmit", "-compressed", "--compressed":
			return true
		}
		if strings.HasPrefix(a, "--transmit=") || strings.HasPrefix(a, "-transmit=") {
			return true
		}
	}
	return false
}

// transmitShape is one shape in calc's output.
type transmitShape struct {
	M                  uint64   `json:"m"`
	K                  int      `json:"k"`
	BitsPerKey         float64  `json:"bits_per_key"`
	P0                 float64  `json:"p0"`
	FalsePositiveRate  float64  `json:"false_positive_rate"`
	Compressed         bool     `json:"compressed"`
	CompressedBits     float64  `json:"compressed_bits"`
	TransmitBits       float64  `json:"transmit_bits"`
	TransmitBitsPerKey float64  `json:"transmit_bits_per_key"`
	DeltaBits          *float64 `json:"delta_bits,omitempty"`
}

// calcTransmitReport is calc --transmit's and --compressed's JSON output.
type calcTransmitReport struct {
	N            uint64          `json:"n"`
	Question     string          `json:"question"` // "transmit" or "target"
	Budget       float64         `json:"transmit_bits_per_key,omitempty"`
	TargetP      float64         `json:"target_p,omitempty"`
	Best         transmitShape   `json:"best"`
	Uncompressed *transmitShape  `json:"uncompressed"`
	PerK         []transmitShape `json:"per_k"`
}

func toTransmitShape(s params.CompressedShape, churn bool) transmitShape {
	t := transmitShape{
		M: s.M, K: s.K, BitsPerKey: s.BitsPerElement, P0: s.P0,
		FalsePositiveRate: s.FalsePositive, Compressed: s.Compressed,
		CompressedBits: s.CompressedBits, TransmitBits: s.TransmitBits,
		TransmitBitsPerKey: s.TransmitPerElement,
	}
	if churn {
		d := s.DeltaBits
		t.DeltaBits = &d
	}
	return t
}

func runCalcTransmit(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, maxM countValue
	var p rateValue
	var maxK probesValue
	var z, maxBPK, overhead, churn, delta float64
	var compressed, whole, exact, asJSON bool
	var plotOut string
	fs.StringVar(&plotOut, "plot", "", "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&maxM, "max-m", "")
	fs.Var(&maxK, "max-k", "")
	fs.Float64Var(&z, "transmit", 0, "")
	fs.Float64Var(&maxBPK, "max-bpk", 0, "")
	fs.Float64Var(&overhead, "overhead", 0, "")
	fs.Float64Var(&churn, "churn", 0, "")
	fs.Float64Var(&delta, "delta", 0, "")
	fs.BoolVar(&compressed, "compressed", false, "")
	fs.BoolVar(&whole, "whole", false, "")
	fs.BoolVar(&exact, "exact", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if done, err := e.parseModeFlags(fs, args, calcTransmitUsage); done || err != nil {
		return err
	}
	switch {
	case n == 0:
		return usagef("calc --transmit and --compressed need -n N")
	case flagSet(fs, "transmit") == compressed:
		return usagef("give either --transmit Z or -p P --compressed")
	case compressed && p == 0:
		return usagef("--compressed needs a target rate -p P")
	case !compressed && p != 0:
		return usagef("-p is the target of --compressed; --transmit takes a budget instead")
	case !compressed && (!(z > 0) || math.IsInf(z, 0)):
		return fmt.Errorf("calc: --transmit %g: want bits per key above 0", z)
	case !(maxBPK >= 0) || math.IsInf(maxBPK, 0):
		return fmt.Errorf("calc: --max-bpk %g: want bits per key above 0", maxBPK)
	case !(overhead >= 0) || math.IsInf(overhead, 0):
		return fmt.Errorf("calc: --overhead %g: want a fraction ≥ 0, such as 0.005", overhead)
	case !(churn >= 0 && churn <= 1):
		return fmt.Errorf("calc: --churn %g: want a fraction of the keys from 0 to 1", churn)
	case !(delta >= 0) || math.IsInf(delta, 0):
		return fmt.Errorf("calc: --delta %g: want bits per key above 0", delta)
	case delta > 0 && churn == 0:
		return errors.New("calc: --delta bounds the delta for a churn: it needs --churn C")
	}
	opts := params.TransmitOptions{
		MaxBitsPerElement: maxBPK, MaxBits: uint64(maxM), MaxK: int(maxK), Overhead: overhead,
		Exact: exact, WholeBitsPerElement: whole, Churn: churn, DeltaBitsPerElement: delta,
	}
	var res params.TransmitResult
	var err error
	r := calcTransmitReport{N: uint64(n)}
	if compressed {
		r.Question, r.TargetP = "target", float64(p)
		res, err = params.OptimizeTarget(params.TargetQuery{N: uint64(n), P: float64(p), TransmitOptions: opts})
	} else {
		r.Question, r.Budget = "transmit", z
		res, err = params.OptimizeTransmit(params.TransmitQuery{N: uint64(n), BitsPerElement: z, TransmitOptions: opts})
	}
	if err != nil {
		return err
	}
	r.Best = toTransmitShape(res.Best, churn > 0)
	if res.Uncompressed.M != 0 {
		u := toTransmitShape(res.Uncompressed, churn > 0)
		r.Uncompressed = &u
	}
	r.PerK = []transmitShape{}
	for _, s := range res.PerK {
		r.PerK = append(r.PerK, toTransmitShape(s, churn > 0))
	}
	if plotOut != "" && len(r.PerK) > 0 {
		q := fmt.Sprintf("budget %g bits per key", r.Budget)
		if compressed {
			q = fmt.Sprintf("target rate %g", r.TargetP)
		}
		if err := writeCharts(plotOut, sim.TransmitCharts(r.N, q, res)...); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return printTransmit(e, r, churn > 0)
}

func printTransmit(e *env, r calcTransmitReport, churn bool) error {
	if r.Question == "target" {
		fprintf(e.stdout, "n = %d, target rate %s: the smallest message\n\n", r.N, rate(r.TargetP))
	} else {
		fprintf(e.stdout, "n = %d, budget %g bits per key: the lowest rate\n\n", r.N, r.Budget)
	}
	var t textTable
	head := []string{"", "m/n", "k", "m", "p0", "rate", "z/n", "sent"}
	if churn {
		head = append(head, "delta/n")
	}
	t.add(head...)
	row := func(label string, s transmitShape) {
		sent := "raw"
		if s.Compressed {
			sent = "compressed"
		}
		cells := []string{label,
			strconv.FormatFloat(s.BitsPerKey, 'f', 3, 64), strconv.Itoa(s.K),
			strconv.FormatUint(s.M, 10), strconv.FormatFloat(s.P0, 'f', 4, 64),
			rate(s.FalsePositiveRate), strconv.FormatFloat(s.TransmitBitsPerKey, 'f', 3, 64), sent}
		if churn {
			cells = append(cells, strconv.FormatFloat(*s.DeltaBits/float64(r.N), 'f', 3, 64))
		}
		t.add(cells...)
	}
	if r.Uncompressed != nil {
		row("standard", *r.Uncompressed)
	}
	row("best", r.Best)
	for _, s := range r.PerK {
		row("k = "+strconv.Itoa(s.K), s)
	}
	return t.write(e.stdout)
}
