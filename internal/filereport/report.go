package filereport

import (
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/mht"

	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/ribbon"
)

// Reports: what a file holds, in figures, as "bloomcast inspect" prints
// them. Their JSON forms are a stable interface for scripts.

// SchemeName names a frame header's hashing scheme for people: "xxh3",
// "xxh3-64", "squid-md5", or "scheme N" for one this build does not
// know.
func SchemeName(id uint8) string {
	switch hashing.SchemeID(id) {
	case hashing.XXH3:
		return "xxh3"
	case hashing.XXH3x64:
		return "xxh3-64"
	case hashing.SquidMD5:
		return "squid-md5"
	}
	return "scheme " + strconv.Itoa(int(id))
}

// EntropyRatio is payload over entropyBytes, or nil when the entropy is
// 0 (a constant array, which no ratio describes).
func EntropyRatio(payload int64, entropyBytes float64) *float64 {
	if entropyBytes <= 0 {
		return nil
	}
	ratio := float64(payload) / entropyBytes
	return &ratio
}

// A CountingReport is what only counting filters have: counters, their
// saturation and overflow bound, and the histogram of their values.
// The zero value is the report of no filter.
type CountingReport struct {
	CounterWidth    int    `json:"counter_width"`
	MaxCount        uint64 `json:"max_count"`
	MinimalIncrease bool   `json:"minimal_increase"`
	Saturated       uint64 `json:"saturated"`
	// OverflowBound is counting.OverflowBound at the recorded count: an
	// upper bound on the chance that some counter had to saturate.
	OverflowBound float64 `json:"overflow_bound"`
	// OverflowBoundLog10 is its base-10 logarithm, computed as one
	// (counting.OverflowLog10): finite where the bound underflows to 0.
	OverflowBoundLog10 float64        `json:"overflow_bound_log10"`
	Histogram          []HistogramBin `json:"histogram"` // values held by at least one counter
}

// A HistogramBin is how many counters hold a value.
// The zero value is no counter holding 0.
type HistogramBin struct {
	Value    uint64 `json:"value"`
	Counters uint64 `json:"counters"`
}

// NewCountingReport reports on cf.
func NewCountingReport(cf *counting.Filter) *CountingReport {
	r := &CountingReport{
		CounterWidth:       cf.Width(),
		MaxCount:           cf.Max(),
		MinimalIncrease:    cf.MinimalIncrease(),
		Saturated:          cf.Saturated(),
		OverflowBound:      min(1, counting.OverflowBound(cf.M(), cf.Len(), cf.K(), int(cf.Max())+1)),
		OverflowBoundLog10: min(0, counting.OverflowLog10(cf.M(), cf.Len(), cf.K(), int(cf.Max())+1)),
		Histogram:          []HistogramBin{},
	}
	for v, n := range cf.Histogram() {
		if n != 0 {
			r.Histogram = append(r.Histogram, HistogramBin{uint64(v), n})
		}
	}
	return r
}

// A PiecesReport describes a digest coded in pieces (codec 3).
// The zero value describes no pieces.
type PiecesReport struct {
	Count      int    `json:"count"`
	PieceBytes int    `json:"piece_bytes"`
	Codec      string `json:"codec"`       // of the pieces' streams: arith or fast
	IndexBytes int    `json:"index_bytes"` // the pieces header and index
}

// NewPiecesReport describes v's pieces; nil for a nil View.
func NewPiecesReport(v *digest.Pieces) *PiecesReport {
	if v == nil {
		return nil
	}
	return &PiecesReport{Count: v.Pieces(), PieceBytes: v.PieceBytes(), Codec: v.Codec().String(), IndexBytes: 8 + 4*v.Pieces()}
}

// A DeltaReport describes a delta digest: the versions it joins, the bits
// it changes and its size against the entropy of the changes.
// The zero value describes no delta.
type DeltaReport struct {
	File          string   `json:"file"`
	Format        string   `json:"format"` // "bloomcast"
	FormatVersion uint16   `json:"format_version"`
	Type          string   `json:"type"` // "delta"
	Target        string   `json:"target"`
	Codec         string   `json:"codec"`
	Sequence      uint64   `json:"sequence"`
	BaseSequence  uint64   `json:"base_sequence"`
	BaseChecksum  string   `json:"base_checksum"`
	Seed          uint64   `json:"seed"`
	HashSchemeID  uint8    `json:"hash_scheme_id"`
	Bits          uint64   `json:"bits"`
	ChangedBits   uint64   `json:"changed_bits"`
	EncodedBytes  int64    `json:"encoded_bytes"`
	PayloadBytes  int      `json:"payload_bytes"`
	EntropyBytes  float64  `json:"entropy_bytes"`
	EntropyRatio  *float64 `json:"entropy_ratio"`
}

// DeltaReport describes f, a delta digest read from the file named name.
func Delta(f *anyfile.File, name string) (*DeltaReport, error) {
	d, ok := anyfile.As[*digest.Delta](f)
	if !ok {
		return nil, errorf("%s is not a delta digest", article(f))
	}
	r := &DeltaReport{
		File: name, Format: f.Format().String(), FormatVersion: f.Header.Version, Type: envelope.TypeDelta.String(),
		Target: d.Target.String(), Codec: d.Codec.String(), Sequence: d.Sequence,
		BaseSequence: d.BaseSequence, BaseChecksum: fmt.Sprintf("%08x", d.BaseChecksum),
		Seed: f.Header.Seed, HashSchemeID: f.Header.Scheme, Bits: d.Bits, ChangedBits: d.Changed(),
		EncodedBytes: f.Size, PayloadBytes: d.PayloadBytes, EntropyBytes: d.EntropyBits() / 8,
	}
	r.EntropyRatio = EntropyRatio(int64(r.PayloadBytes), r.EntropyBytes)
	return r, nil
}

// A StructureReport describes a file that holds no Bloom, counting or
// Squid filter and no delta: its frame and, in exactly one of the
// kind-specific parts, the structure's own parameters and sizes.
// The zero value describes nothing.
type StructureReport struct {
	FrameReport
	HashSchemeID uint8  `json:"-"`
	Seed         uint64 `json:"seed"`
	EncodedBytes int64  `json:"encoded_bytes"`
	PayloadBytes int64  `json:"payload_bytes"`

	Deletion *DeletionReport `json:"deletion,omitempty"`
	FPSet    *FPSetReport    `json:"fpset,omitempty"`
	Bloomier *BloomierReport `json:"bloomier,omitempty"`
	Ribbon   *RibbonReport   `json:"ribbon,omitempty"`
	MHT      *MHTReport      `json:"mht,omitempty"`
	Summary  *SummaryReport  `json:"summary,omitempty"`
}

// A DeletionReport describes a deletion filter's two halves.
// The zero value describes no filter.
type DeletionReport struct {
	Layout         string  `json:"layout"`
	M              uint64  `json:"m"`
	K              int     `json:"k"`
	BlockBits      uint64  `json:"block_bits"`
	Added          uint64  `json:"added"`
	Removed        uint64  `json:"removed"`
	AddedSetBits   uint64  `json:"added_set_bits"`
	RemovedSetBits uint64  `json:"removed_set_bits"`
	AddedFill      float64 `json:"added_fill"`
	RemovedFill    float64 `json:"removed_fill"`
	// FalsePositiveRate is the added filter's rate from its bits (an
	// absent key is also reported absent if the removed filter holds it,
	// so this bounds the filter's rate from above).
	FalsePositiveRate float64 `json:"false_positive_rate"`
	// FalseDeletionRate is the fraction of keys added and not removed
	// that the filter reports absent: the removed filter's rate.
	FalseDeletionRate float64 `json:"false_deletion_rate"`
}

// An FPSetReport describes a fingerprint set in either form.
// The zero value describes no set.
type FPSetReport struct {
	Form              string  `json:"form"` // "sorted" or "rice"
	Bits              int     `json:"bits"`
	CountBits         int     `json:"count_bits"`
	RiceK             int     `json:"rice_k"`
	Fingerprints      uint64  `json:"fingerprints"`
	Total             uint64  `json:"total"`
	BitsPerKey        float64 `json:"bits_per_key"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
}

// A BloomierReport describes a Bloomier filter.
// The zero value describes no filter.
type BloomierReport struct {
	Keys              uint64  `json:"keys"`
	ValueBits         int     `json:"value_bits"`
	CheckBits         int     `json:"check_bits"`
	Updatable         bool    `json:"updatable"`
	Seed              uint64  `json:"seed"`
	Cells             uint64  `json:"cells"`
	CellBits          int     `json:"cell_bits"`
	SizeBytes         uint64  `json:"size_bytes"`
	BitsPerKey        float64 `json:"bits_per_key"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
}

// NewBloomierReport describes f.
func NewBloomierReport(f *bloomier.Filter) *BloomierReport {
	return &BloomierReport{
		Keys: f.Len(), ValueBits: f.ValueBits(), CheckBits: f.CheckBits(), Updatable: f.Updatable(),
		Seed: f.Seed(), Cells: f.Cells(), CellBits: f.CellBits(), SizeBytes: (f.SizeBits() + 7) / 8,
		BitsPerKey: f.BitsPerKey(), FalsePositiveRate: f.FalsePositiveRate(),
	}
}

// A RibbonReport describes a ribbon filter: its shape, its size against
// the information bound n·log2(1/ε) and its rate, with the formula the
// rate comes from.
// The zero value describes no filter.
type RibbonReport struct {
	Keys   uint64 `json:"keys"`
	Blocks uint64 `json:"blocks"`
	Slots  uint64 `json:"slots"`
	// Bits is r; HiBlocks the leading blocks with r + 1 bits.
	Bits     int    `json:"bits"`
	HiBlocks uint64 `json:"hi_blocks"`
	// HiFraction is φ, the share of starts in those blocks.
	HiFraction float64 `json:"hi_fraction"`
	SizeBytes  uint64  `json:"size_bytes"`
	BitsPerKey float64 `json:"bits_per_key"`
	// BoundBitsPerKey is log2(1/ε), the least any filter of the keys at
	// the rate can take; TimesBound is BitsPerKey over it.
	BoundBitsPerKey   float64 `json:"bound_bits_per_key"`
	TimesBound        float64 `json:"times_bound"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
	// RateFormula is how FalsePositiveRate follows from the shape.
	RateFormula string `json:"rate_formula"`
}

// NewRibbonReport describes f.
func NewRibbonReport(f *ribbon.Filter) *RibbonReport {
	s := f.Shape()
	r := &RibbonReport{Keys: s.Keys, Blocks: s.Blocks, Slots: s.Slots(), Bits: s.Bits, HiBlocks: s.HiBlocks,
		HiFraction: s.HiFraction(), SizeBytes: (s.SizeBits() + 7) / 8, FalsePositiveRate: s.FalsePositiveRate()}
	if s.Keys > 0 {
		r.BitsPerKey = s.BitsPerKey()
		r.BoundBitsPerKey = s.Bound() / float64(s.Keys)
		r.TimesBound = s.TimesBound()
	}
	switch {
	case s.Blocks == 0:
		r.RateFormula = "0: no keys, every key is reported absent"
	case s.HiBlocks == 0:
		r.RateFormula = fmt.Sprintf("2^-r = 2^-%d", s.Bits)
	default:
		r.RateFormula = fmt.Sprintf("2^-r·(1 − φ/2), r = %d, φ = min(64·h, S)/S = %.4f (h = %d blocks of r + 1 bits, S = 64·B − 127 = %d starts)",
			s.Bits, s.HiFraction(), s.HiBlocks, s.Starts())
	}
	return r
}

// An MHTReport describes a multilevel hash table.
// The zero value describes no table.
type MHTReport struct {
	Levels    int      `json:"levels"`
	Sizes     []uint64 `json:"sizes"`
	Buckets   uint64   `json:"buckets"`
	Items     int      `json:"items"`
	Deleted   int      `json:"deleted"`
	Occupancy []uint64 `json:"occupancy"`
}

// A SummaryReport describes a multilevel hash table's summary.
// The zero value describes no summary.
type SummaryReport struct {
	Kind      string `json:"kind"`
	Levels    int    `json:"levels"`
	Items     uint64 `json:"items"`
	Bits      uint64 `json:"bits"`
	CanRemove bool   `json:"can_remove"`
}

// StructureReport describes f, read from the file named name: a
// deletion filter, a fingerprint set, a Bloomier filter, a multilevel
// hash table or a summary. The other kinds are an error.
func Structure(f *anyfile.File, name string) (*StructureReport, error) {
	h := f.Header
	r := &StructureReport{FrameReport: frameReport(f, name), HashSchemeID: h.Scheme, Seed: h.Seed,
		EncodedBytes: f.Size, PayloadBytes: f.PayloadBytes()}
	part := structureParts[f.Kind()]
	if part == nil {
		return nil, errorf("%s has a report of its own, not a StructureReport", article(f))
	}
	part(f, r)
	return r, nil
}

// structureParts fill, for each kind with a StructureReport, its part of
// the report.
var structureParts = map[anyfile.Kind]func(f *anyfile.File, r *StructureReport){
	anyfile.Deletion:   deletionPart,
	anyfile.FPSet:      fpsetPart,
	anyfile.Bloomier:   bloomierPart,
	anyfile.Ribbon:     ribbonPart,
	anyfile.MHT:        tablePart,
	anyfile.MHTSummary: summaryPart,
}

// structure is the T that f holds, its kind's own (anyfile.As).
func structure[T any](f *anyfile.File) T {
	t, _ := anyfile.As[T](f)
	return t
}

func deletionPart(f *anyfile.File, r *StructureReport) {
	d := structure[*counting.DeletionFilter](f)
	a, rm := d.Added(), d.Removed()
	r.Deletion = &DeletionReport{
		Layout: a.Layout().String(), M: a.M(), K: a.K(), BlockBits: a.BlockBits(),
		Added: a.Count(), Removed: rm.Count(), AddedSetBits: a.SetBits(), RemovedSetBits: rm.SetBits(),
		AddedFill: a.FillRatio(), RemovedFill: rm.FillRatio(),
		FalsePositiveRate: a.FalsePositiveRate(), FalseDeletionRate: d.FalseDeletionRate(),
	}
}

func fpsetPart(f *anyfile.File, r *StructureReport) {
	if t, ok := anyfile.As[*fpset.Sorted](f); ok {
		r.FPSet = &FPSetReport{Form: "sorted", Bits: t.Bits(), CountBits: t.CountBits(), Fingerprints: t.Len(),
			Total: t.Total(), FalsePositiveRate: t.FalsePositiveRate()}
		if t.Len() > 0 {
			r.FPSet.BitsPerKey = float64(t.SizeBits()) / float64(t.Len())
		}
		return
	}
	t := structure[*fpset.Compressed](f)
	r.FPSet = &FPSetReport{Form: "rice", Bits: t.Bits(), CountBits: t.CountBits(), RiceK: t.RiceParameter(),
		Fingerprints: t.Len(), Total: t.Total(), BitsPerKey: t.BitsPerKey(), FalsePositiveRate: t.FalsePositiveRate()}
}

func bloomierPart(f *anyfile.File, r *StructureReport) {
	r.Bloomier = NewBloomierReport(structure[*bloomier.Filter](f))
}

func ribbonPart(f *anyfile.File, r *StructureReport) {
	r.Ribbon = NewRibbonReport(structure[*ribbon.Filter](f))
}

func tablePart(f *anyfile.File, r *StructureReport) {
	t := structure[*mht.Table](f)
	r.MHT = &MHTReport{Levels: t.Levels(), Sizes: t.Sizes(), Buckets: t.Buckets(), Items: t.Len(),
		Deleted: t.Deleted(), Occupancy: t.Occupancy()}
}

func summaryPart(f *anyfile.File, r *StructureReport) {
	m := structure[mht.Summary](f)
	r.Summary = &SummaryReport{Kind: m.Kind().String(), Levels: m.Levels(), Items: m.Count(), Bits: m.Bits(), CanRemove: m.CanRemove()}
}
