package digest

import (
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// A digest within a byte budget: params.OptimizeBudget chooses the shape
// and whether to code it; EncodeWithin builds it and checks that it fits.

// BudgetFrameBytes is what a Bloom filter's digest adds to its payload:
// the frame's header, the filter's parameters, the checksum, and the
// entropy stream's codec byte.
const BudgetFrameBytes = envelope.HeaderSize + 24 + envelope.TrailerSize + 1

// A Budget is a byte budget for one Bloom filter's digest of N keys, as
// "bloomcast calc --budget" and "build --budget" take it. The zero value
// is no budget: Solve refuses it.
type Budget struct {
	N     uint64
	Bytes uint64 // the whole message, frame included
	// Packet, if not 0, rounds Bytes down to whole packets (at least one).
	Packet uint64
	// Layout restricts the choice to one layout; 0 means all four.
	Layout    params.Layout
	BlockBits uint64 // page size of the paged layout; 0: params.DefaultPageBits
	// MaxBits caps m; MaxBitsPerKey caps it at that many bits per key
	// (the smaller cap applies). Both 0: params.BudgetQuery's default.
	MaxBits       uint64
	MaxBitsPerKey float64
	MaxK          int // 0: params.MaxK
}

// Effective is the budget after rounding down to whole packets.
func (b Budget) Effective() uint64 {
	if b.Packet == 0 {
		return b.Bytes
	}
	return max(1, b.Bytes/b.Packet) * b.Packet
}

// Query is the params.BudgetQuery of b: the effective bytes, the frame
// of a Bloom filter's digest, and the caps.
func (b Budget) Query() params.BudgetQuery {
	q := params.BudgetQuery{N: b.N, Bytes: b.Effective(), FrameBytes: BudgetFrameBytes,
		BlockBits: b.BlockBits, MaxBits: b.MaxBits, MaxK: b.MaxK}
	if b.Layout != 0 {
		q.Layouts = []params.Layout{b.Layout}
	}
	if b.MaxBitsPerKey > 0 {
		q.MaxBits = uint64(b.MaxBitsPerKey * float64(b.N))
		if b.MaxBits > 0 {
			q.MaxBits = min(q.MaxBits, b.MaxBits)
		}
	}
	return q
}

// Solve returns params.OptimizeBudget's answer for b. A budget that
// leaves fewer than 8 bytes after the frame is an error.
func (b Budget) Solve() (params.BudgetResult, error) {
	q := b.Query()
	if q.Bytes <= BudgetFrameBytes+8 {
		return params.BudgetResult{}, fmt.Errorf("digest: a budget of %d bytes leaves no room for a filter after the %d-byte frame", q.Bytes, BudgetFrameBytes)
	}
	return params.OptimizeBudget(q)
}

// EncodeWithin builds the Bloom filter of b.N keys with the lowest rate
// whose digest fits b, adds the keys whose hashes (with seed) are hs,
// and returns its digest, raw or coded (Auto) as the solution
// says, with the solution. With b.N 0 the filter is for the distinct keys
// of hs (hashing.CountDistinct, at least 1). The bound holds with
// probability 99.9%: should the coded digest come out larger than the
// budget, it solves again for a budget smaller by the excess, up to three
// times, and then returns an *OverBudgetError.
func EncodeWithin(b Budget, seed uint64, hs []hashing.Hash128) ([]byte, params.BudgetResult, error) {
	if b.N == 0 {
		b.N = max(1, hashing.CountDistinct(hs))
	}
	limit := b.Effective()
	for try := 0; ; try++ {
		res, err := b.Solve()
		if err != nil {
			return nil, res, err
		}
		s := res.Best.Shape
		f, err := bloom.New(bloom.Config{Layout: s.Layout, M: s.M, K: s.K, BlockBits: s.BlockBits, Seed: seed})
		if err != nil {
			return nil, res, err
		}
		f.AddBatch(hs)
		codec := Raw
		if res.Best.Compressed {
			codec = Auto
		}
		out, err := Encode(&Digest{Bloom: f}, codec)
		if err != nil {
			return nil, res, err
		}
		if uint64(len(out)) <= limit {
			return out, res, nil
		}
		if try == 2 {
			return nil, res, &OverBudgetError{Bytes: uint64(len(out)), Budget: limit}
		}
		// Solve again for the bytes themselves, less the excess.
		b.Bytes, b.Packet = b.Effective()-(uint64(len(out))-limit)-1, 0
	}
}

// An OverBudgetError is EncodeWithin's answer when the digest came out
// larger than the budget three times. The zero value reports 0 bytes.
type OverBudgetError struct {
	Bytes, Budget uint64
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("digest: the filter came to %d bytes, over the budget of %d", e.Bytes, e.Budget)
}

// A BudgetShape is one shape of a BudgetReport.
// The zero value is no shape.
type BudgetShape struct {
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

// A BudgetReport sets out a budget's solution: the best shape, the best
// of each layout, the best raw filter of the same bytes and, when the
// memory cap binds, the best without it. Its JSON form is what "bloomcast
// calc --budget --json" prints. The zero value is an empty report.
type BudgetReport struct {
	N           uint64        `json:"n"`
	Budget      uint64        `json:"budget_bytes"`
	Effective   uint64        `json:"effective_budget_bytes"`
	Packet      uint64        `json:"packet_bytes,omitempty"`
	Packets     uint64        `json:"packets,omitempty"`
	FrameBytes  int           `json:"frame_bytes"`
	Best        BudgetShape   `json:"best"`
	PerLayout   []BudgetShape `json:"per_layout"`
	Raw         *BudgetShape  `json:"raw"`
	CapBits     uint64        `json:"memory_cap_bits"`
	CapBinds    bool          `json:"memory_cap_binds"`
	Uncapped    *BudgetShape  `json:"uncapped,omitempty"`
	RateGainRaw float64       `json:"rate_ratio_to_raw"` // best / raw
}

func budgetShape(s params.BudgetShape, n uint64) BudgetShape {
	codec := "raw"
	if s.Compressed {
		codec = "arith"
	}
	return BudgetShape{Layout: s.Shape.Layout.String(), M: s.Shape.M, K: s.Shape.K, BlockBits: s.Shape.BlockBits,
		BitsPerKey: float64(s.Shape.M) / float64(n), Codec: codec, FalsePositiveRate: s.FalsePositive,
		MeanBytes: s.MeanBytes, SDBytes: s.SDBytes, BoundBytes: s.BoundBytes}
}

// NewBudgetReport sets out res, the solution of b.
func NewBudgetReport(b Budget, res params.BudgetResult) *BudgetReport {
	r := &BudgetReport{N: b.N, Budget: b.Bytes, Effective: b.Effective(), Packet: b.Packet,
		FrameBytes: BudgetFrameBytes, Best: budgetShape(res.Best, b.N), CapBits: res.CapBits, CapBinds: res.CapBinds}
	if b.Packet > 0 {
		r.Packets = r.Effective / b.Packet
	}
	for _, s := range res.PerLayout {
		r.PerLayout = append(r.PerLayout, budgetShape(s, b.N))
	}
	if res.Raw.Shape.M != 0 {
		raw := budgetShape(res.Raw, b.N)
		r.Raw = &raw
		r.RateGainRaw = res.Best.FalsePositive / res.Raw.FalsePositive
	}
	if res.CapBinds {
		u := budgetShape(res.Uncapped, b.N)
		r.Uncapped = &u
	}
	return r
}
