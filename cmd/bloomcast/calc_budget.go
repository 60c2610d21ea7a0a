package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
)

// calc --budget and build --budget: the filter with the lowest rate whose
// message fits a budget in bytes.

const calcBudgetUsage = `usage: bloomcast calc -n N --budget BYTES [--packet BYTES] [--layout L]
                      [--block-bits B] [--max-m BITS | --max-bpk X] [--max-k K]
                      [--json]

Choose the filter of N keys with the lowest false-positive rate whose
message, frame included, fits BYTES: layout, m, k, and whether it is sent
raw or entropy-coded. A coded filter's size varies from one set of keys
to the next; calc keeps E[size] + 3.09·σ within the budget, so the
message fits with probability at least 99.9% (σ from occupancy: the
number of zero bits Z has a variance computed per layout, and the size
m·H(Z/m) moves by |log2((m − Z)/Z)| bits per bit of Z; the arithmetic
coder adds at most log2(m+1) + 48 bits). "bloomcast build --budget" builds
the filter, and checks that the file fits.

The receivers hold the decoded m bits. By default m is capped at 4 times
the budget's bits; calc says when the cap binds, and what the rate would
be without it. calc also prints the best raw filter of the same bytes.

flags:
  -n N             number of distinct keys (required)
  --budget BYTES   the largest message, frame included
  --packet BYTES   send in packets of this payload: the budget is rounded
                   down to whole packets (at least one)
  --layout L       classic, partitioned, blocked, paged or all (default all)
  --block-bits B   page size of the paged layout in bits (default 32768)
  --max-m BITS     memory cap in bits (default 4 × 8 × BYTES)
  --max-bpk X      memory cap in bits per key
  --max-k K        largest k tried (default 64)
  --json           print one JSON object instead of a table
`

// budgetFrameBytes is what a Bloom filter's digest adds to its payload:
// the frame's header, the filter's parameters, the checksum, and the
// entropy stream's codec byte.
const budgetFrameBytes = envelope.HeaderSize + 24 + envelope.TrailerSize + 1

// budgetOptions are the flags calc --budget and build --budget share.
type budgetOptions struct {
	n, bytes, packet uint64
	layout           params.Layout // 0: all
	blockBits        uint64
	maxM             uint64
	maxBPK           float64
	maxK             int
}

// effective returns the budget after --packet.
func (o budgetOptions) effective() uint64 {
	if o.packet == 0 {
		return o.bytes
	}
	return max(1, o.bytes/o.packet) * o.packet
}

func (o budgetOptions) solve() (params.BudgetResult, error) {
	q := params.BudgetQuery{N: o.n, Bytes: o.effective(), FrameBytes: budgetFrameBytes,
		BlockBits: o.blockBits, MaxBits: o.maxM, MaxK: o.maxK}
	if o.layout != 0 {
		q.Layouts = []params.Layout{o.layout}
	}
	if o.maxBPK > 0 {
		q.MaxBits = uint64(o.maxBPK * float64(o.n))
		if o.maxM > 0 {
			q.MaxBits = min(q.MaxBits, o.maxM)
		}
	}
	if q.Bytes <= budgetFrameBytes+8 {
		return params.BudgetResult{}, fmt.Errorf("calc: --budget %d leaves no room for a filter after the %d-byte frame", q.Bytes, budgetFrameBytes)
	}
	return params.OptimizeBudget(q)
}

// budgetShape is one shape in calc --budget's JSON.
type budgetShape struct {
	Layout            string  `json:"layout"`
	M                 uint64  `json:"m"`
	K                 int     `json:"k"`
	BlockBits         uint64  `json:"block_bits"`
	BitsPerKey        float64 `json:"bits_per_key"`
	Codec             string  `json:"codec"` // "raw" or "arith"
	FalsePositiveRate float64 `json:"false_positive_rate"`
	MeanBytes         float64 `json:"mean_bytes"`
	SDBytes           float64 `json:"sd_bytes"`
	BoundBytes        float64 `json:"bytes_at_99_9"`
}

type calcBudgetReport struct {
	N           uint64        `json:"n"`
	Budget      uint64        `json:"budget_bytes"`
	Effective   uint64        `json:"effective_budget_bytes"`
	Packet      uint64        `json:"packet_bytes,omitempty"`
	Packets     uint64        `json:"packets,omitempty"`
	FrameBytes  int           `json:"frame_bytes"`
	Best        budgetShape   `json:"best"`
	PerLayout   []budgetShape `json:"per_layout"`
	Raw         *budgetShape  `json:"raw"`
	CapBits     uint64        `json:"memory_cap_bits"`
	CapBinds    bool          `json:"memory_cap_binds"`
	Uncapped    *budgetShape  `json:"uncapped,omitempty"`
	RateGainRaw float64       `json:"rate_ratio_to_raw"` // best / raw
}

func toBudgetShape(s params.BudgetShape, n uint64) budgetShape {
	codec := "raw"
	if s.Compressed {
		codec = "arith"
	}
	return budgetShape{Layout: s.Shape.Layout.String(), M: s.Shape.M, K: s.Shape.K, BlockBits: s.Shape.BlockBits,
		BitsPerKey: float64(s.Shape.M) / float64(n), Codec: codec, FalsePositiveRate: s.FalsePositive,
		MeanBytes: s.MeanBytes, SDBytes: s.SDBytes, BoundBytes: s.BoundBytes}
}

func budgetReport(o budgetOptions, res params.BudgetResult) calcBudgetReport {
	r := calcBudgetReport{N: o.n, Budget: o.bytes, Effective: o.effective(), Packet: o.packet,
		FrameBytes: budgetFrameBytes, Best: toBudgetShape(res.Best, o.n), CapBits: res.CapBits, CapBinds: res.CapBinds}
	if o.packet > 0 {
		r.Packets = r.Effective / o.packet
	}
	for _, s := range res.PerLayout {
		r.PerLayout = append(r.PerLayout, toBudgetShape(s, o.n))
	}
	if res.Raw.Shape.M != 0 {
		raw := toBudgetShape(res.Raw, o.n)
		r.Raw = &raw
		r.RateGainRaw = res.Best.FalsePositive / res.Raw.FalsePositive
	}
	if res.CapBinds {
		u := toBudgetShape(res.Uncapped, o.n)
		r.Uncapped = &u
	}
	return r
}

func runCalcBudget(e *env, args []string) error {
	fs := newFlagSet("calc")
	var n, budget, packet, blockBits, maxM countValue
	var maxK probesValue
	var maxBPK float64
	layout := layoutValue{all: true}
	var asJSON bool
	fs.Var(&n, "n", "")
	fs.Var(&budget, "budget", "")
	fs.Var(&packet, "packet", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.Var(&maxM, "max-m", "")
	fs.Float64Var(&maxBPK, "max-bpk", 0, "")
	fs.Var(&maxK, "max-k", "")
	fs.BoolVar(&asJSON, "json", false, "")
	if done, err := e.parseModeFlags(fs, args, calcBudgetUsage); done || err != nil {
		return err
	}
	o := budgetOptions{n: uint64(n), bytes: uint64(budget), packet: uint64(packet), layout: layout.layout,
		blockBits: uint64(blockBits), maxM: uint64(maxM), maxBPK: maxBPK, maxK: int(maxK)}
	if err := o.check(flagSet(fs, "packet"), true); err != nil {
		return err
	}
	res, err := o.solve()
	if err != nil {
		return err
	}
	r := budgetReport(o, res)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return printBudget(e, r)
}

// check validates the shared flags; cmd names the command for messages.
func (o budgetOptions) check(hasPacket, needN bool) error {
	switch {
	case needN && o.n == 0:
		return errors.New("calc: --budget needs -n N")
	case o.bytes == 0:
		return errors.New("--budget needs a number of bytes above 0")
	case hasPacket && o.packet == 0:
		return errors.New("--packet needs a number of bytes above 0")
	case o.maxBPK < 0:
		return fmt.Errorf("--max-bpk %g: want bits per key above 0", o.maxBPK)
	case o.blockBits%64 != 0:
		return fmt.Errorf("--block-bits %d: want a positive multiple of 64", o.blockBits)
	case o.blockBits != 0 && o.layout != params.Paged && o.layout != 0:
		return fmt.Errorf("--block-bits is the page size of the paged layout; it means nothing with --layout %s", o.layout)
	}
	return nil
}

func printBudget(e *env, r calcBudgetReport) error {
	head := fmt.Sprintf("n = %d keys, budget %d bytes", r.N, r.Budget)
	if r.Packet > 0 {
		head += fmt.Sprintf(" in packets of %d: %d packets, %d bytes", r.Packet, r.Packets, r.Effective)
	}
	fprintf(e.stdout, "%s (frame %d bytes); fits with probability ≥ 99.9%%\n\n", head, r.FrameBytes)
	var t textTable
	t.add("", "layout", "m/n", "k", "m", "sent", "rate", "mean bytes", "σ bytes", "99.9% bytes")
	row := func(label string, s budgetShape) {
		t.add(label, s.Layout, strconv.FormatFloat(s.BitsPerKey, 'f', 2, 64), strconv.Itoa(s.K),
			strconv.FormatUint(s.M, 10), s.Codec, rate(s.FalsePositiveRate),
			strconv.FormatFloat(s.MeanBytes, 'f', 0, 64), strconv.FormatFloat(s.SDBytes, 'f', 1, 64),
			strconv.FormatFloat(s.BoundBytes, 'f', 0, 64))
	}
	row("best", r.Best)
	for _, s := range r.PerLayout {
		row("", s)
	}
	if r.Raw != nil {
		row("raw, same bytes", *r.Raw)
	}
	if r.Uncapped != nil {
		row("without the cap", *r.Uncapped)
	}
	if err := t.write(e.stdout); err != nil {
		return err
	}
	fprintln(e.stdout)
	if r.Raw != nil {
		fprintf(e.stdout, "the best rate is %.3g× the raw filter's of the same bytes\n", r.RateGainRaw)
	}
	if r.CapBinds {
		fprintf(e.stdout, "the memory cap binds: m ≤ %d bits (%.1f bits per key); without it the rate would be %s at m/n = %.1f (raise it with --max-m or --max-bpk)\n",
			r.CapBits, float64(r.CapBits)/float64(r.N), rate(r.Uncapped.FalsePositiveRate), r.Uncapped.BitsPerKey)
	}
	return nil
}
