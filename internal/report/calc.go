package report

import (
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/params"
)

// Reports: the answers of Solve, OptimizeTransmit/OptimizeTarget and the
// fingerprint-set sizing with their derived figures, in the JSON form
// "bloomcast calc --json" prints (a stable interface for scripts).

// A SolveReport sets out a Solution: what was given, what was derived,
// the query and each layout's shape. The zero value is an empty report.
type SolveReport struct {
	Given   []string      `json:"given"`
	Derived []string      `json:"derived"`
	Query   QueryReport   `json:"query"`
	Layouts []ShapeReport `json:"layouts"`
}

// A QueryReport is a Query with its layout named ("all" for 0).
// The zero value is the zero Query's.
type QueryReport struct {
	N         uint64  `json:"n"`
	P         float64 `json:"p"`
	M         uint64  `json:"m"`
	K         int     `json:"k"`
	Layout    string  `json:"layout"`
	BlockBits uint64  `json:"block_bits"`
}

// A ShapeReport is one layout's answer of a SolveReport.
// The zero value is no shape.
type ShapeReport struct {
	Layout            string  `json:"layout"`
	N                 uint64  `json:"n"`
	M                 uint64  `json:"m"`
	K                 int     `json:"k"`
	BlockBits         uint64  `json:"block_bits"`
	BitsPerKey        float64 `json:"bits_per_key"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
	SizeBytes         uint64  `json:"size_bytes"`
	MeetsP            bool    `json:"meets_p"`
}

// NewSolveReport sets out sol, Solve's answer to q.
func NewSolveReport(q params.Query, sol params.Solution) *SolveReport {
	layout := "all"
	if q.Layout != 0 {
		layout = q.Layout.String()
	}
	r := &SolveReport{Given: sol.Given, Derived: sol.Derived,
		Query: QueryReport{N: q.N, P: q.P, M: q.M, K: q.K, Layout: layout, BlockBits: q.BlockBits}}
	if r.Derived == nil {
		r.Derived = []string{}
	}
	for _, s := range sol.Layouts {
		r.Layouts = append(r.Layouts, ShapeReport{
			Layout: s.Shape.Layout.String(), N: s.N, M: s.Shape.M, K: s.Shape.K, BlockBits: s.Shape.BlockBits,
			BitsPerKey: s.BitsPerKey, FalsePositiveRate: s.FalsePositive, SizeBytes: (s.Shape.M + 7) / 8, MeetsP: s.Meets,
		})
	}
	return r
}

// A TransmitShape is one shape of a TransmitReport.
// The zero value is no shape.
type TransmitShape struct {
	M                  uint64   `json:"m"`
	K                  int      `json:"k"`
	BitsPerKey         float64  `json:"bits_per_key"`
	P0                 float64  `json:"p0"`
	FalsePositiveRate  float64  `json:"false_positive_rate"`
	Compressed         bool     `json:"compressed"`
	CompressedBits     float64  `json:"compressed_bits"`
	TransmitBits       float64  `json:"transmit_bits"`
	TransmitBitsPerKey float64  `json:"transmit_bits_per_key"`
	DeltaBits          *float64 `json:"delta_bits,omitempty"` // with a churn only
}

// A TransmitReport sets out a TransmitResult: the best shape, the
// standard (uncompressed) filter and the best for each k.
// The zero value is an empty report.
type TransmitReport struct {
	N            uint64          `json:"n"`
	Question     string          `json:"question"` // "transmit" or "target"
	Budget       float64         `json:"transmit_bits_per_key,omitempty"`
	TargetP      float64         `json:"target_p,omitempty"`
	Best         TransmitShape   `json:"best"`
	Uncompressed *TransmitShape  `json:"uncompressed"`
	PerK         []TransmitShape `json:"per_k"`
}

func transmitShape(s params.CompressedShape, churn bool) TransmitShape {
	t := TransmitShape{
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

// NewTransmitReport sets out res, OptimizeTransmit's answer to q.
func NewTransmitReport(q params.TransmitQuery, res params.TransmitResult) *TransmitReport {
	r := &TransmitReport{N: q.N, Question: "transmit", Budget: q.BitsPerElement}
	r.fill(res, q.Churn > 0)
	return r
}

// NewTargetReport sets out res, OptimizeTarget's answer to q.
func NewTargetReport(q params.TargetQuery, res params.TransmitResult) *TransmitReport {
	r := &TransmitReport{N: q.N, Question: "target", TargetP: q.P}
	r.fill(res, q.Churn > 0)
	return r
}

func (r *TransmitReport) fill(res params.TransmitResult, churn bool) {
	r.Best = transmitShape(res.Best, churn)
	if res.Uncompressed.M != 0 {
		u := transmitShape(res.Uncompressed, churn)
		r.Uncompressed = &u
	}
	r.PerK = []TransmitShape{}
	for _, s := range res.PerK {
		r.PerK = append(r.PerK, transmitShape(s, churn))
	}
}

// FingerprintTableLoad is the load at which package fpset's table grows,
// at which a FingerprintReport gives the table's size.
const FingerprintTableLoad = 0.8

// A FingerprintReport compares a fingerprint set of N keys in its three
// forms with a Bloom filter of the same rate, and says from which width
// each form is smaller than the filter. The zero value is an empty
// report.
type FingerprintReport struct {
	N                    uint64  `json:"n"`
	Bits                 int     `json:"bits"`
	CountBits            int     `json:"count_bits"`
	FalsePositiveRate    float64 `json:"false_positive_rate"`
	TableBitsPerKey      float64 `json:"table_bits_per_key"` // at FingerprintTableLoad
	SortedBitsPerKey     float64 `json:"sorted_bits_per_key"`
	RiceK                int     `json:"rice_k"`
	CompressedBitsPerKey float64 `json:"compressed_bits_per_key"`
	EntropyBitsPerKey    float64 `json:"entropy_bits_per_key"`
	MinimumBitsPerKey    float64 `json:"minimum_bits_per_key"`
	BloomM               uint64  `json:"bloom_m"`
	BloomK               int     `json:"bloom_k"`
	BloomBitsPerKey      float64 `json:"bloom_bits_per_key"`
	// The narrowest widths from which each form beats the Bloom filter
	// (0: not within 64 bits), with their rates at N.
	MemoryCrossoverBits   int     `json:"memory_crossover_bits"`
	MemoryCrossoverRate   float64 `json:"memory_crossover_rate"`
	TransmitCrossoverBits int     `json:"transmit_crossover_bits"`
	TransmitCrossoverRate float64 `json:"transmit_crossover_rate"`
}

// NewFingerprintReport sets out s, with countBits of count per
// fingerprint, and the crossovers for s.N.
func NewFingerprintReport(s fpset.Sizing, countBits int) (*FingerprintReport, error) {
	cross, err := fpset.CrossoverFor(s.N)
	if err != nil {
		return nil, err
	}
	return &FingerprintReport{
		N: s.N, Bits: s.Bits, CountBits: countBits, FalsePositiveRate: s.FalsePositive,
		TableBitsPerKey:      s.TableBitsPerKey(FingerprintTableLoad, countBits),
		SortedBitsPerKey:     s.SortedBitsPerKey + float64(countBits),
		RiceK:                s.RiceK,
		CompressedBitsPerKey: s.CompressedBitsPerKey,
		EntropyBitsPerKey:    s.EntropyBitsPerKey,
		MinimumBitsPerKey:    s.MinimumBitsPerKey,
		BloomM:               s.Bloom.M, BloomK: s.Bloom.K, BloomBitsPerKey: s.BloomBitsPerKey,
		MemoryCrossoverBits: cross.MemoryBits, MemoryCrossoverRate: cross.MemoryRate,
		TransmitCrossoverBits: cross.TransmitBits, TransmitCrossoverRate: cross.TransmitRate,
	}, nil
}

// A FingerprintQuery sizes a fingerprint set of N keys by at most one of
// P (the rate), Bits (the width) and C (bits = ceil(C·log2 N)); none
// means C = 2. The zero value sizes nothing (N 0 is an error).
type FingerprintQuery struct {
	N    uint64
	P    float64
	Bits int
	C    float64
}

// FingerprintSetOf solves q: fpset.Size, fpset.OfBits or fpset.BitsForC
// with C.
func FingerprintSetOf(q FingerprintQuery) (fpset.Sizing, error) {
	switch {
	case q.P != 0:
		return fpset.Size(q.N, q.P)
	case q.Bits != 0:
		return fpset.OfBits(q.N, q.Bits)
	}
	c := q.C
	if c == 0 {
		c = 2
	}
	b, err := fpset.BitsForC(q.N, c)
	if err != nil {
		return fpset.Sizing{}, err
	}
	return fpset.OfBits(q.N, b)
}
