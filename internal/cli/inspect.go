package cli

import (
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/squid"
)

var inspectCommand = &command{
	name:    "inspect",
	summary: "describe a filter file",
	usage: `usage: bloomcast inspect [--json] FILE

Describe the filter in FILE ("-": standard input): format version,
structure type, codec, hashing scheme and seed, layout, m, k, block size,
sizes, the payload against its entropy bound (m·H(p), p the fraction of
bits set; for counters the order-0 entropy), the recorded count, set bits,
fill ratio, the count estimated from the bits, the false-positive rate now
(from the bits), the rate the model predicts at the recorded count, bits
per key, and how many times the filter folds.

The recorded count is what the writer recorded: "bloomcast build" the
distinct keys it read, "bloomcast add" one more for each key it adds;
after union or intersect it is estimated from the bits (Swamidass–Baldi),
and inspect says "estimated". A filter that has a block (or slice, or for
the classic layout every bit) full is "saturated": its bits no longer tell
how many keys it holds, and inspect says so instead of an estimate. For a counting filter, also the
counter width and mode, the saturated counters, the bound on overflow at
the recorded count, and the histogram of counter values; its bits are
those of its bit view (the non-zero counters), and m counts counters.
For a delta digest: the sequences and checksum it names, the structure it
updates, the bits it changes and its size against the entropy of the
changes. For a deletion filter: the shape, both filters' keys, set bits
and fills, and the rate of false deletions (kept keys reported absent).
For a fingerprint set, a Bloomier filter, a multilevel hash table or a
summary: the frame and the structure's own parameters and sizes. For a
scalable Bloom filter: its configuration, the compound rate (from the
bits, and predicted at the layers' counts) and each layer's keys against
its capacity, shape, fill and rate against its target.

For another program's filter: its format (and a Guava filter's
strategy, a split block filter's blocks), m, k, sizes, set bits, fill
ratio, the count estimated from the bits, the false-positive rate now and
how many times it folds. For a Parquet file: its row groups and columns,
and per filter its column, row group, physical type, values, size, fill
and estimated distinct count.

flags:
  --json   print one JSON object instead of text; "format" names the
           file's format for every kind
` + formatHelp,
	run: runInspect,
}

// inspectReport is what inspect prints; its JSON form is a stable
// interface for scripts.
type inspectReport struct {
	File string `json:"file"`
	// Format is "bloomcast" or "squid" (anyfile.Format).
	Format        string `json:"format"`
	FormatVersion uint16 `json:"format_version"`
	Type          string `json:"type"`
	Codec         string `json:"codec"`
	Sequence      uint64 `json:"sequence"`
	HashScheme    string `json:"hash_scheme"`
	HashSchemeID  uint8  `json:"hash_scheme_id"`
	Seed          uint64 `json:"seed"`
	Layout        string `json:"layout"`
	M             uint64 `json:"m"`
	K             int    `json:"k"`
	BlockBits     uint64 `json:"block_bits"`
	SizeBytes     int    `json:"size_bytes"`
	EncodedBytes  int64  `json:"encoded_bytes"`
	PayloadBytes  int64  `json:"payload_bytes"`
	// EntropyBytes is m·H(p̂)/8 (counters: n·H₀/8), what no coder of the
	// model beats; EntropyRatio is PayloadBytes/EntropyBytes.
	EntropyBytes float64  `json:"entropy_bytes"`
	EntropyRatio *float64 `json:"entropy_ratio"` // null when the entropy is 0
	Count        uint64   `json:"count"`
	// CountEstimated: Count is the estimate from the bits (after union or
	// intersect), not a tally.
	CountEstimated bool `json:"count_estimated"`
	// Saturated: a block, slice or (classic) the whole filter has every
	// bit set, so EstimatedCount is only a lower bound.
	Saturated                  bool     `json:"saturated"`
	SetBits                    uint64   `json:"set_bits"`
	FillRatio                  float64  `json:"fill_ratio"`
	EstimatedCount             float64  `json:"estimated_count"`
	FalsePositiveRate          float64  `json:"false_positive_rate"`
	PredictedFalsePositiveRate float64  `json:"predicted_false_positive_rate"`
	BitsPerKey                 *float64 `json:"bits_per_key"` // null for an empty filter
	// Folds is how many times "bloomcast fold" can halve the filter; 0
	// for counting filters and Squid digests, which do not fold.
	Folds int `json:"folds"`
	// Counting is present for counting filters only.
	Counting *countingReport `json:"counting,omitempty"`
	// Squid is present for Squid Cache Digests only.
	Squid *squidReport `json:"squid,omitempty"`
	// Pieces is present for a digest coded in pieces (codec 3) only.
	Pieces *piecesReport `json:"pieces,omitempty"`
}

// squidReport is the Squid Cache Digest header.
type squidReport struct {
	Version         uint16 `json:"version"`
	RequiredVersion uint16 `json:"required_version"`
	Capacity        uint32 `json:"capacity"`
	DelCount        uint32 `json:"del_count"`
	MaskSize        uint32 `json:"mask_size"`
	BitsPerEntry    uint8  `json:"bits_per_entry"`
	Usable          bool   `json:"usable"` // at most 65% of bits set, as Squid requires
}

func runInspect(e *env, args []string) error {
	fs := newFlagSet("inspect")
	e.formatFlag(fs)
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one FILE, got %d arguments", len(args))
	}
	lf, err := e.open(args[0])
	if err != nil {
		return err
	}
	if lf.Delta != nil {
		return inspectDelta(e, args[0], lf, asJSON)
	}
	if lf.Parquet != nil {
		return inspectParquet(e, args[0], lf.Parquet, asJSON)
	}
	if lf.Foreign() {
		return inspectForeign(e, args[0], lf, asJSON)
	}
	if lf.other != nil {
		return inspectStructure(e, args[0], lf, asJSON)
	}
	if lf.Scalable != nil {
		return inspectScalable(e, args[0], lf, asJSON)
	}
	f, h := lf.Bloom, lf.Header
	r := inspectReport{
		File:                       args[0],
		Format:                     lf.Format().String(),
		FormatVersion:              h.Version,
		Type:                       h.Type.String(),
		Codec:                      h.Codec.String(),
		Sequence:                   h.Sequence,
		HashScheme:                 anyfile.SchemeName(h.Scheme),
		HashSchemeID:               h.Scheme,
		Seed:                       h.Seed,
		Layout:                     f.Layout().String(),
		M:                          f.M(),
		K:                          f.K(),
		BlockBits:                  f.BlockBits(),
		SizeBytes:                  f.SizeBytes(),
		EncodedBytes:               lf.Size,
		PayloadBytes:               lf.PayloadBytes(),
		EntropyBytes:               lf.EntropyBits / 8,
		Count:                      f.Count(),
		CountEstimated:             f.CountEstimated(),
		Saturated:                  f.Saturated(),
		SetBits:                    f.SetBits(),
		FillRatio:                  f.FillRatio(),
		EstimatedCount:             f.EstimateCount(),
		FalsePositiveRate:          f.FalsePositiveRate(),
		PredictedFalsePositiveRate: f.Shape().FalsePositive(f.Count()),
	}
	if lf.Foldable() == nil {
		r.Folds = f.Folds()
	}
	if cf := lf.Counting; cf != nil {
		r.SizeBytes = cf.SizeBytes()
		r.Count = cf.Len()
		r.PredictedFalsePositiveRate = f.Shape().FalsePositive(cf.Len())
		r.Counting = inspectCounting(cf)
	}
	if d := lf.Squid; d != nil {
		r.Type, r.Codec, r.Count = "squid cache digest", "raw", uint64(d.Header.Count)
		r.PayloadBytes, r.EntropyBytes = int64(d.Header.MaskSize), float64(f.M())*entropy.Entropy(f.FillRatio())/8
		r.PredictedFalsePositiveRate = f.Shape().FalsePositive(r.Count)
		r.Squid = &squidReport{Version: d.Header.Version, RequiredVersion: d.Header.RequiredVersion,
			Capacity: d.Header.Capacity, DelCount: d.Header.DelCount, MaskSize: d.Header.MaskSize,
			BitsPerEntry: d.Header.BitsPerEntry, Usable: f.FillRatio() <= squid.MaxUsefulFill}
	}
	if r.Count > 0 {
		bpk := f.Shape().BitsPerKey(r.Count)
		r.BitsPerKey = &bpk
	}
	r.EntropyRatio = anyfile.EntropyRatio(r.PayloadBytes, r.EntropyBytes)
	r.Pieces = inspectPieces(lf)
	if asJSON {
		return writeJSON(e.stdout, r)
	}

	var kv keyValues
	kv.add("file", displayName(r.File))
	kv.add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.add("structure", r.Type)
	kv.add("codec", r.Codec)
	kv.add("sequence", strconv.FormatUint(r.Sequence, 10))
	kv.add("hash scheme", fmt.Sprintf("%s (id %d), seed %#x", r.HashScheme, r.HashSchemeID, r.Seed))
	kv.add("layout", r.Layout)
	kv.add("m", fmt.Sprintf("%d bits", r.M))
	kv.add("k", strconv.Itoa(r.K))
	if r.BlockBits != 0 {
		kv.add("block bits", strconv.FormatUint(r.BlockBits, 10))
	} else {
		kv.add("block bits", "- (no blocks)")
	}
	what := "bits"
	if r.Counting != nil {
		what = "counters and bits"
	}
	kv.add("size", fmt.Sprintf("%d bytes of %s, %d bytes encoded (%s)", r.SizeBytes, what, r.EncodedBytes, humanBytes(r.EncodedBytes)))
	kv.add("payload", payloadLine(r.PayloadBytes, r.EntropyBytes, r.EntropyRatio))
	kv.add("count", countLine(r))
	kv.add("set bits", strconv.FormatUint(r.SetBits, 10))
	kv.add("fill ratio", strconv.FormatFloat(r.FillRatio, 'f', 4, 64))
	if r.Saturated {
		kv.add("estimated count", fmt.Sprintf("saturated: %s has every bit set, so the bits no longer tell how many keys (at least %.0f)", fullRange(r), r.EstimatedCount))
	} else {
		kv.add("estimated count", fmt.Sprintf("%.0f distinct keys, from the set bits", r.EstimatedCount))
	}
	kv.add("false-positive rate", rate(r.FalsePositiveRate)+" now, from the set bits")
	kv.add("predicted rate", rate(r.PredictedFalsePositiveRate)+" at the recorded count (params model)")
	if r.BitsPerKey != nil {
		kv.add("bits per key", strconv.FormatFloat(*r.BitsPerKey, 'f', 3, 64)+" at the recorded count")
	} else {
		kv.add("bits per key", "- (empty filter)")
	}
	kv.add("folds", foldsLine(r))
	if s := r.Squid; s != nil {
		kv.add("squid versions", fmt.Sprintf("%d (requires %d)", s.Version, s.RequiredVersion))
		kv.add("squid capacity", fmt.Sprintf("%d entries at %d bits each, %d deletions", s.Capacity, s.BitsPerEntry, s.DelCount))
		kv.add("usable by squid", strconv.FormatBool(s.Usable)+" (at most 65% of bits set)")
	}
	if r.Counting != nil {
		addCountingLines(&kv, r.Counting, r.M)
	}
	if p := r.Pieces; p != nil {
		kv.add("pieces", fmt.Sprintf("%d of %d decoded bytes, coded %s, index %d bytes", p.Count, p.PieceBytes, p.Codec, p.IndexBytes))
	}
	return kv.write(e.stdout)
}

// payloadLine describes the payload against its entropy.
func payloadLine(payload int64, entropyBytes float64, ratio *float64) string {
	if ratio == nil {
		return fmt.Sprintf("%d bytes (the content has no entropy: constant)", payload)
	}
	return fmt.Sprintf("%d bytes, %.4f × the entropy bound of %.0f bytes", payload, *ratio, entropyBytes)
}

// foldsLine says how far "bloomcast fold" can halve the filter.
func foldsLine(r inspectReport) string {
	switch {
	case r.Squid != nil || r.Counting != nil:
		return "- (does not fold)"
	case r.Folds == 0:
		return "0 (cannot be halved)"
	}
	return fmt.Sprintf("%d (halves down to %d bits, 1/%d)", r.Folds, r.M>>r.Folds, uint64(1)<<r.Folds)
}

// countLine describes the recorded count.
func countLine(r inspectReport) string {
	switch {
	case r.Counting != nil:
		return fmt.Sprintf("%d keys added minus removed (each add counted)", r.Count)
	case r.Squid != nil:
		return fmt.Sprintf("%d entries, as the digest's header records", r.Count)
	case r.CountEstimated && r.Saturated:
		return fmt.Sprintf("saturated: estimated from the bits after a union or intersection, but %s has every bit set (at least %d keys)", fullRange(r), r.Count)
	case r.CountEstimated:
		return fmt.Sprintf("%d keys, estimated from the bits (after a union or intersection)", r.Count)
	}
	return fmt.Sprintf("%d keys, as recorded (bloomcast build: distinct keys read)", r.Count)
}

// fullRange names what is full in a saturated filter.
func fullRange(r inspectReport) string {
	switch r.Layout {
	case "classic":
		return "the filter"
	case "partitioned":
		return "a slice"
	}
	return "a block"
}
