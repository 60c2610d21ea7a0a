package filereport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"

	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/internal/textfmt"
	"github.com/bloomcast/bloomcast/scalable"
)

// The reports of "bloomcast inspect" for Bloom, counting and Squid
// filters and scalable filters, and the text forms of every framed
// file's report.

// A FrameReport is what the reports of framed files begin with: the file
// as named, its format and frame header. The zero value describes no
// file.
type FrameReport struct {
	File string `json:"file"` // as given; "-" is standard input
	// Format is "bloomcast" or "squid" (File.Format).
	Format        string `json:"format"`
	FormatVersion uint16 `json:"format_version"`
	Type          string `json:"type"`
	Codec         string `json:"codec"`
	Sequence      uint64 `json:"sequence"`
	HashScheme    string `json:"hash_scheme"`
}

// frameReport fills a FrameReport from f's header.
func frameReport(f *anyfile.File, name string) FrameReport {
	h := f.Header
	return FrameReport{File: name, Format: f.Format().String(), FormatVersion: h.Version, Type: h.Type.String(),
		Codec: h.Codec.String(), Sequence: h.Sequence, HashScheme: SchemeName(h.Scheme)}
}

// lines returns the text form's first lines: the file, the frame's
// version, type and codec, the sequence, and the hashing scheme (id) and
// seed.
func (r *FrameReport) lines(id uint8, seed uint64) textfmt.KeyValues {
	var kv textfmt.KeyValues
	kv.Add("file", displayName(r.File))
	kv.Add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.Add("structure", r.Type)
	kv.Add("codec", r.Codec)
	kv.Add("sequence", strconv.FormatUint(r.Sequence, 10))
	kv.Add("hash scheme", fmt.Sprintf("%s (id %d), seed %#x", r.HashScheme, id, seed))
	return kv
}

// displayName is how the text forms name a file: "-" is stdin.
func displayName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

// A FilterReport describes a Bloom, counting or Squid filter: its frame,
// shape, sizes against the entropy bound, recorded and estimated counts,
// fill, rates now and predicted, and how often it folds; its JSON form
// is what "bloomcast inspect --json" prints for one. The zero value
// describes no filter.
type FilterReport struct {
	FrameReport
	HashSchemeID uint8  `json:"hash_scheme_id"`
	Seed         uint64 `json:"seed"`
	Layout       string `json:"layout"`
	M            uint64 `json:"m"`
	K            int    `json:"k"`
	BlockBits    uint64 `json:"block_bits"`
	SizeBytes    int    `json:"size_bytes"`
	EncodedBytes int64  `json:"encoded_bytes"`
	PayloadBytes int64  `json:"payload_bytes"`
	// EntropyBytes is m·H(p̂)/8 (counters: n·H₀/8), what no coder of the
	// model beats; EntropyRatio is PayloadBytes/EntropyBytes.
	EntropyBytes float64  `json:"entropy_bytes"`
	EntropyRatio *float64 `json:"entropy_ratio"` // null when the entropy is 0
	Count        uint64   `json:"count"`
	// CountEstimated: Count is the estimate from the bits (after union or
	// intersect), not a tally.
	CountEstimated bool `json:"count_estimated"`
	// CountSource says where Count came from: "build" (the distinct keys
	// bloomcast build read, plus those add added since), "digest" (the
	// count a numbered digest, of sequence 1 or more, was written with: by
	// a bloomcast node, the objects it held when it published it; by
	// compress --seq or patch, the count of the filter it was made from),
	// "estimated" (from the bits, after union or intersect), "counting"
	// (keys added minus removed) or "squid" (the entries a Squid digest's
	// header records).
	CountSource string `json:"count_source"`
	// Saturated: a block, slice or (classic) the whole filter has every
	// bit set, so EstimatedCount is only a lower bound.
	Saturated                  bool     `json:"saturated"`
	SetBits                    uint64   `json:"set_bits"`
	FillRatio                  float64  `json:"fill_ratio"`
	EstimatedCount             float64  `json:"estimated_count"`
	FalsePositiveRate          float64  `json:"false_positive_rate"`
	PredictedFalsePositiveRate float64  `json:"predicted_false_positive_rate"`
	BitsPerKey                 *float64 `json:"bits_per_key"` // null for an empty filter
	// Folds is how many times the filter can be halved; 0 for counting
	// filters and Squid digests, which do not fold.
	Folds int `json:"folds"`
	// Counting is present for counting filters only.
	Counting *CountingReport `json:"counting,omitempty"`
	// Squid is present for Squid Cache Digests only.
	Squid *SquidReport `json:"squid,omitempty"`
	// Pieces is present for a digest coded in pieces (codec 3) only.
	Pieces *PiecesReport `json:"pieces,omitempty"`
}

// A SquidReport is a Squid Cache Digest's header.
// The zero value is an empty header's.
type SquidReport struct {
	Version         uint16 `json:"version"`
	RequiredVersion uint16 `json:"required_version"`
	Capacity        uint32 `json:"capacity"`
	DelCount        uint32 `json:"del_count"`
	MaskSize        uint32 `json:"mask_size"`
	BitsPerEntry    uint8  `json:"bits_per_entry"`
	Usable          bool   `json:"usable"` // at most 65% of bits set, as Squid requires
}

// FilterReport describes f, a Bloom, counting or Squid filter read from
// the file named name. The other kinds are an error.
func Filter(f *anyfile.File, name string) (*FilterReport, error) {
	b, ok := anyfile.As[*bloom.Filter](f)
	if !ok {
		return nil, errorf("%s has a report of its own, not a FilterReport", article(f))
	}
	h := f.Header
	r := &FilterReport{
		FrameReport: frameReport(f, name), HashSchemeID: h.Scheme, Seed: h.Seed,
		Layout: b.Layout().String(), M: b.M(), K: b.K(), BlockBits: b.BlockBits(),
		SizeBytes: b.SizeBytes(), EncodedBytes: f.Size, PayloadBytes: f.PayloadBytes(), EntropyBytes: f.EntropyBits() / 8,
		Count: b.Count(), CountEstimated: b.CountEstimated(), Saturated: b.Saturated(),
		SetBits: b.SetBits(), FillRatio: b.FillRatio(), EstimatedCount: b.EstimateCount(),
		FalsePositiveRate: b.FalsePositiveRate(), PredictedFalsePositiveRate: b.Shape().FalsePositive(b.Count()),
	}
	if f.Foldable() == nil {
		r.Folds = b.Folds()
	}
	if cf, ok := anyfile.As[*counting.Filter](f); ok {
		r.SizeBytes, r.Count = cf.SizeBytes(), cf.Len()
		r.PredictedFalsePositiveRate = b.Shape().FalsePositive(cf.Len())
		r.Counting = NewCountingReport(cf)
	}
	if d, ok := anyfile.As[*squid.Digest](f); ok {
		r.Type, r.Codec, r.Count = "squid cache digest", "raw", uint64(d.Header.Count)
		r.PayloadBytes, r.EntropyBytes = int64(d.Header.MaskSize), float64(b.M())*entropy.Entropy(b.FillRatio())/8
		r.PredictedFalsePositiveRate = b.Shape().FalsePositive(r.Count)
		r.Squid = &SquidReport{Version: d.Header.Version, RequiredVersion: d.Header.RequiredVersion,
			Capacity: d.Header.Capacity, DelCount: d.Header.DelCount, MaskSize: d.Header.MaskSize,
			BitsPerEntry: d.Header.BitsPerEntry, Usable: b.FillRatio() <= squid.MaxUsefulFill}
	}
	r.CountSource = countSource(r)
	if r.Count > 0 {
		bpk := b.Shape().BitsPerKey(r.Count)
		r.BitsPerKey = &bpk
	}
	r.EntropyRatio = EntropyRatio(r.PayloadBytes, r.EntropyBytes)
	if p, ok := anyfile.As[*digest.Pieces](f); ok {
		r.Pieces = NewPiecesReport(p)
	}
	return r, nil
}

// WriteText writes r as "bloomcast inspect" prints it: one aligned
// "label  value" line per figure.
func (r *FilterReport) WriteText(w io.Writer) error {
	kv := r.FrameReport.lines(r.HashSchemeID, r.Seed)
	kv.Add("layout", r.Layout)
	if r.Counting != nil {
		// m counts positions: each a counter, with its bit in the view.
		kv.Add("m", fmt.Sprintf("%d counters of %d bits, and the bit view's %d bits", r.M, r.Counting.CounterWidth, r.M))
	} else {
		kv.Add("m", fmt.Sprintf("%d bits", r.M))
	}
	kv.Add("k", strconv.Itoa(r.K))
	if r.BlockBits != 0 {
		kv.Add("block bits", strconv.FormatUint(r.BlockBits, 10))
	} else {
		kv.Add("block bits", "- (no blocks)")
	}
	what := "bits"
	switch {
	case r.Counting != nil:
		what = "counters and bits"
	case uint64(r.SizeBytes)*8 > r.M:
		// The payload has m bits; memory holds them in whole words.
		what = "bits in memory (whole 64-bit words)"
	}
	kv.Add("size", fmt.Sprintf("%d bytes of %s, %d bytes encoded (%s)", r.SizeBytes, what, r.EncodedBytes, textfmt.Bytes(r.EncodedBytes)))
	kv.Add("payload", payloadLine(r.PayloadBytes, r.EntropyBytes, r.EntropyRatio))
	kv.Add("count", r.countLine())
	kv.Add("set bits", strconv.FormatUint(r.SetBits, 10))
	kv.Add("fill ratio", textfmt.Float(r.FillRatio, 4))
	if r.Saturated {
		kv.Add("estimated count", fmt.Sprintf("saturated: %s has every bit set, so the bits no longer tell how many keys (at least %.0f)", r.fullRange(), r.EstimatedCount))
	} else {
		kv.Add("estimated count", fmt.Sprintf("%.0f distinct keys, from the set bits", r.EstimatedCount))
	}
	kv.Add("false-positive rate", textfmt.Rate(r.FalsePositiveRate)+" now, from the set bits")
	kv.Add("predicted rate", textfmt.Rate(r.PredictedFalsePositiveRate)+" at the recorded count (params model)")
	if r.BitsPerKey != nil {
		kv.Add("bits per key", textfmt.Float(*r.BitsPerKey, 3)+" at the recorded count")
	} else {
		kv.Add("bits per key", "- (empty filter)")
	}
	kv.Add("folds", r.foldsLine())
	if s := r.Squid; s != nil {
		kv.Add("squid versions", fmt.Sprintf("%d (requires %d)", s.Version, s.RequiredVersion))
		kv.Add("squid capacity", fmt.Sprintf("%d entries at %d bits each, %d deletions", s.Capacity, s.BitsPerEntry, s.DelCount))
		kv.Add("usable by squid", strconv.FormatBool(s.Usable)+" (at most 65% of bits set)")
	}
	if c := r.Counting; c != nil {
		c.addLines(&kv, r.M)
	}
	if p := r.Pieces; p != nil {
		kv.Add("pieces", fmt.Sprintf("%d of %d decoded bytes, coded %s, index %d bytes", p.Count, p.PieceBytes, p.Codec, p.IndexBytes))
	}
	_, err := kv.WriteTo(w)
	return err
}

// addLines adds the counting filter's lines, of m counters, to kv.
func (r *CountingReport) addLines(kv *textfmt.KeyValues, m uint64) {
	mode := "minimum selection; removal allowed"
	if r.MinimalIncrease {
		mode = "minimal increase; no removal"
	}
	kv.Add("counters", fmt.Sprintf("%d-bit (max %d), %s", r.CounterWidth, r.MaxCount, mode))
	kv.Add("saturated", fmt.Sprintf("%d counters stuck at %d", r.Saturated, r.MaxCount))
	bound := textfmt.Rate(r.OverflowBound)
	if r.OverflowBound < 1e-300 {
		bound = fmt.Sprintf("10^%.2f", r.OverflowBoundLog10)
	}
	kv.Add("overflow bound", bound+fmt.Sprintf(" = Pr(some counter reaches %d) at the recorded count, at most", r.MaxCount+1))
	label, digits := "counter values", len(strconv.FormatUint(r.MaxCount, 10))
	for _, b := range r.Histogram {
		kv.Add(label, fmt.Sprintf("%*d: %d counters (%.4g%%)", digits, b.Value, b.Counters, 100*float64(b.Counters)/float64(m)))
		label = ""
	}
}

// payloadLine describes the payload against its entropy.
func payloadLine(payload int64, entropyBytes float64, ratio *float64) string {
	if ratio == nil {
		return fmt.Sprintf("%d bytes (the content has no entropy: constant)", payload)
	}
	return fmt.Sprintf("%d bytes, %.4f × the entropy bound of %.0f bytes", payload, *ratio, entropyBytes)
}

// foldsLine says how far the filter can be halved.
func (r *FilterReport) foldsLine() string {
	switch {
	case r.Squid != nil || r.Counting != nil:
		return "- (does not fold)"
	case r.Folds == 0:
		return "0 (cannot be halved)"
	}
	return fmt.Sprintf("%d (halves down to %d bits, 1/%d)", r.Folds, r.M>>r.Folds, uint64(1)<<r.Folds)
}

// countSource names where r's count came from (FilterReport.CountSource).
func countSource(r *FilterReport) string {
	switch {
	case r.Counting != nil:
		return "counting"
	case r.Squid != nil:
		return "squid"
	case r.CountEstimated:
		return "estimated"
	case r.Sequence > 0:
		// A sequence number says the file is a numbered version, not
		// that a node wrote it: patch numbers its output too.
		return "digest"
	}
	return "build"
}

// countLine describes the recorded count and where it came from.
func (r *FilterReport) countLine() string {
	switch {
	case r.Counting != nil:
		return fmt.Sprintf("%d keys added minus removed (each add counted)", r.Count)
	case r.Squid != nil:
		return fmt.Sprintf("%d entries, as the digest's header records (Squid: the objects in its store when it built the digest; build --squid: the URLs read)", r.Count)
	case r.CountEstimated && r.Saturated:
		return fmt.Sprintf("saturated: estimated from the bits after a union or intersection, but %s has every bit set (at least %d keys)", r.fullRange(), r.Count)
	case r.CountEstimated:
		return fmt.Sprintf("%d keys, estimated from the bits (after a union or intersection)", r.Count)
	case r.Sequence > 0:
		return fmt.Sprintf("%d keys, as recorded with digest %d (by bloomcast serve: the objects the node held when it published it; by compress --seq or patch: the count of the filter it was made from)", r.Count, r.Sequence)
	}
	return fmt.Sprintf("%d keys, as recorded (bloomcast build: distinct keys read; add: keys added since)", r.Count)
}

// fullRange names what is full in a saturated filter.
func (r *FilterReport) fullRange() string {
	switch r.Layout {
	case "classic":
		return "the filter"
	case "partitioned":
		return "a slice"
	}
	return "a block"
}

// A ScalableReport describes a scalable Bloom filter: its frame,
// configuration, count, sizes, compound rate and each layer; its JSON
// form is what "bloomcast inspect --json" prints for one. The zero value
// describes no filter.
type ScalableReport struct {
	FrameReport
	Seed          uint64                `json:"seed"`
	Layout        string                `json:"layout"`
	Capacity      uint64                `json:"capacity"`
	P             float64               `json:"p"`
	Expansion     uint32                `json:"expansion"`
	Tightening    float64               `json:"tightening"`
	NonScaling    bool                  `json:"non_scaling"`
	Count         uint64                `json:"count"`
	SizeBytes     int                   `json:"size_bytes"`
	EncodedBytes  int64                 `json:"encoded_bytes"`
	EntropyBytes  float64               `json:"entropy_bytes"`
	Rate          float64               `json:"false_positive_rate"`
	PredictedRate float64               `json:"predicted_false_positive_rate"`
	Layers        []scalable.LayerStats `json:"layers"`
}

// ScalableReport describes f, a scalable filter read from the file named
// name. The other kinds are an error.
func Scalable(f *anyfile.File, name string) (*ScalableReport, error) {
	s, ok := anyfile.As[*scalable.Filter](f)
	if !ok {
		return nil, errorf("%s is not a scalable filter", article(f))
	}
	c := s.Config()
	r := &ScalableReport{FrameReport: frameReport(f, name), Seed: f.Header.Seed, Layout: c.Layout.String(),
		Capacity: c.Capacity, P: c.P, Expansion: c.Expansion, Tightening: c.Tightening, NonScaling: c.NonScaling,
		Count: s.Count(), SizeBytes: s.SizeBytes(), EncodedBytes: f.Size, EntropyBytes: f.EntropyBits() / 8,
		Rate: s.FalsePositiveRate(), PredictedRate: s.PredictedRate(), Layers: s.Stats()}
	r.Codec = f.Codec().String()
	return r, nil
}

// WriteText writes r as "bloomcast inspect" prints it: the frame, the
// configuration, the count, sizes and compound rate, and a line per
// layer.
func (r *ScalableReport) WriteText(w io.Writer) error {
	var kv textfmt.KeyValues
	kv.Add("file", displayName(r.File))
	kv.Add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.Add("structure", "scalable Bloom filter, layers coded "+r.Codec)
	kv.Add("sequence", strconv.FormatUint(r.Sequence, 10))
	kv.Add("hash scheme", fmt.Sprintf("%s, seed %#x", r.HashScheme, r.Seed))
	scaling := fmt.Sprintf("expansion %d, tightening %g", r.Expansion, r.Tightening)
	if r.NonScaling {
		scaling = "non-scaling"
	}
	kv.Add("configuration", fmt.Sprintf("%s layers, first for %d keys, target %s, %s", r.Layout, r.Capacity, textfmt.Rate(r.P), scaling))
	kv.Add("count", fmt.Sprintf("%d keys in %d layers", r.Count, len(r.Layers)))
	kv.Add("size", fmt.Sprintf("%d bytes of bits, %d bytes encoded (%s), entropy bound %.0f bytes", r.SizeBytes, r.EncodedBytes, textfmt.Bytes(r.EncodedBytes), r.EntropyBytes))
	if r.Count > 0 {
		kv.Add("bits per key", textfmt.Float(8*float64(r.SizeBytes)/float64(r.Count), 3))
	}
	kv.Add("compound rate", fmt.Sprintf("%s now, from the set bits; %s predicted at the layers' counts (target %s)", textfmt.Rate(r.Rate), textfmt.Rate(r.PredictedRate), textfmt.Rate(r.P)))
	for i, l := range r.Layers {
		est := ""
		if l.Estimate {
			est = " (estimated)"
		}
		kv.Add(fmt.Sprintf("layer %d", i), fmt.Sprintf("%d of %d keys%s, m = %d, k = %d, fill %.4f, rate %s (target %s)",
			l.Count, l.Capacity, est, l.M, l.K, l.Fill, textfmt.Rate(l.Rate), textfmt.Rate(l.Target)))
	}
	_, err := kv.WriteTo(w)
	return err
}

// WriteText writes r as "bloomcast inspect" prints it.
func (r *DeltaReport) WriteText(w io.Writer) error {
	var kv textfmt.KeyValues
	kv.Add("file", displayName(r.File))
	kv.Add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.Add("structure", "delta digest of a "+r.Target+" filter")
	kv.Add("codec", r.Codec)
	kv.Add("sequence", fmt.Sprintf("%d, from base %d (words' CRC-32C %s)", r.Sequence, r.BaseSequence, r.BaseChecksum))
	kv.Add("hash scheme", fmt.Sprintf("id %d, seed %#x", r.HashSchemeID, r.Seed))
	kv.Add("changed bits", fmt.Sprintf("%d of %d (%.4g%%)", r.ChangedBits, r.Bits, 100*float64(r.ChangedBits)/float64(max(r.Bits, 1))))
	kv.Add("size", fmt.Sprintf("%d bytes encoded (%s)", r.EncodedBytes, textfmt.Bytes(r.EncodedBytes)))
	kv.Add("payload", payloadLine(int64(r.PayloadBytes), r.EntropyBytes, r.EntropyRatio))
	_, err := kv.WriteTo(w)
	return err
}

// WriteText writes r as "bloomcast inspect" prints it: the frame, then
// the lines of the structure it holds.
func (r *StructureReport) WriteText(w io.Writer) error {
	kv := r.FrameReport.lines(r.HashSchemeID, r.Seed)
	kv.Add("size", fmt.Sprintf("%d bytes encoded (%s), payload %d bytes", r.EncodedBytes, textfmt.Bytes(r.EncodedBytes), r.PayloadBytes))
	switch {
	case r.Deletion != nil:
		d := r.Deletion
		kv.Add("layout", d.Layout)
		kv.Add("m", fmt.Sprintf("%d bits in each of two filters", d.M))
		kv.Add("k", strconv.Itoa(d.K))
		if d.BlockBits != 0 {
			kv.Add("block bits", strconv.FormatUint(d.BlockBits, 10))
		}
		kv.Add("added", fmt.Sprintf("%d keys, %d bits set, fill %.4f", d.Added, d.AddedSetBits, d.AddedFill))
		kv.Add("removed", fmt.Sprintf("%d keys, %d bits set, fill %.4f", d.Removed, d.RemovedSetBits, d.RemovedFill))
		kv.Add("false-positive rate", textfmt.Rate(d.FalsePositiveRate)+" at most, from the added filter's bits")
		kv.Add("false deletions", textfmt.Rate(d.FalseDeletionRate)+" of the keys kept are reported absent (the removed filter's rate)")
	case r.FPSet != nil:
		f := r.FPSet
		form := "sorted (interpolation search)"
		if f.Form == "rice" {
			form = fmt.Sprintf("Rice-coded gaps, k = %d", f.RiceK)
		}
		kv.Add("form", form)
		kv.Add("fingerprints", fmt.Sprintf("%d of %d bits (%d keys with multiplicity)", f.Fingerprints, f.Bits, f.Total))
		if f.CountBits > 0 {
			kv.Add("counts", fmt.Sprintf("%d bits each", f.CountBits))
		}
		kv.Add("bits per key", textfmt.Float(f.BitsPerKey, 3))
		kv.Add("false-positive rate", textfmt.Rate(f.FalsePositiveRate))
	case r.Bloomier != nil:
		b := r.Bloomier
		kv.Add("keys", strconv.FormatUint(b.Keys, 10))
		kv.Add("values", fmt.Sprintf("%d bits, check %d bits, updatable %v", b.ValueBits, b.CheckBits, b.Updatable))
		kv.Add("cells", strconv.FormatUint(b.Cells, 10))
		kv.Add("bits per key", textfmt.Float(b.BitsPerKey, 3))
		kv.Add("false-positive rate", textfmt.Rate(b.FalsePositiveRate)+" (a key outside the set given a value)")
	case r.Ribbon != nil:
		b := r.Ribbon
		kv.Add("keys", strconv.FormatUint(b.Keys, 10))
		shape := fmt.Sprintf("%d slots (%d blocks of 64), r = %d bits", b.Slots, b.Blocks, b.Bits)
		if b.HiBlocks > 0 {
			shape += fmt.Sprintf(", r + 1 in the first %d blocks (φ = %.4f of the starts)", b.HiBlocks, b.HiFraction)
		}
		kv.Add("shape", shape)
		kv.Add("solution", textfmt.Bytes(int64(b.SizeBytes)))
		if b.Keys > 0 {
			kv.Add("bits per key", fmt.Sprintf("%.3f, %.4f × the bound log2(1/ε) = %.3f", b.BitsPerKey, b.TimesBound, b.BoundBitsPerKey))
		}
		kv.Add("false-positive rate", textfmt.Rate(b.FalsePositiveRate)+" = "+b.RateFormula)
	case r.MHT != nil:
		t := r.MHT
		kv.Add("sub-tables", fmt.Sprintf("%d, sizes %v (%d buckets)", t.Levels, t.Sizes, t.Buckets))
		kv.Add("items", fmt.Sprintf("%d live, %d lazily deleted", t.Items, t.Deleted))
		kv.Add("occupancy", fmt.Sprint(t.Occupancy))
	case r.Summary != nil:
		m := r.Summary
		kv.Add("summary", fmt.Sprintf("%s over %d sub-tables, %d items, %d bits, removal %v", m.Kind, m.Levels, m.Items, m.Bits, m.CanRemove))
	}
	_, err := kv.WriteTo(w)
	return err
}

// WriteText writes r as "bloomcast bloomier info" prints it.
func (r *BloomierReport) WriteText(w io.Writer) error {
	var kv textfmt.KeyValues
	kv.Add("keys", strconv.FormatUint(r.Keys, 10))
	kv.Add("value bits", strconv.Itoa(r.ValueBits))
	kv.Add("check bits", strconv.Itoa(r.CheckBits))
	kv.Add("updatable", strconv.FormatBool(r.Updatable))
	kv.Add("seed", fmt.Sprintf("%#x", r.Seed))
	kv.Add("cells", fmt.Sprintf("%d of %d bits", r.Cells, r.CellBits))
	kv.Add("size", textfmt.Bytes(int64(r.SizeBytes)))
	kv.Add("bits per key", fmt.Sprintf("%.3f (%.3f·(value + check bits))", r.BitsPerKey, r.BitsPerKey/float64(r.ValueBits+r.CheckBits)))
	kv.Add("false positives", textfmt.Rate(r.FalsePositiveRate)+" of keys outside the set")
	_, err := kv.WriteTo(w)
	return err
}
