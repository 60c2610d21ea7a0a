package cli

import "io"

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
	var r interface{ WriteText(io.Writer) error }
	switch path := args[0]; {
	case lf.Delta != nil:
		r, err = lf.DeltaReport(path)
	case lf.Parquet != nil:
		r, err = lf.ParquetReport(path)
	case lf.Foreign():
		r, err = lf.ForeignReport(path)
	case lf.other != nil:
		r, err = lf.StructureReport(path)
	case lf.Scalable != nil:
		r, err = lf.ScalableReport(path)
	default:
		r, err = lf.FilterReport(path)
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
