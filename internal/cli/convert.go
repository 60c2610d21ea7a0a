package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
)

var convertCommand = &command{
	name:    "convert",
	summary: "write a filter in another format, where nothing is lost",
	usage: `usage: bloomcast convert --to FORMAT [--codec C] [--format NAME] -o OUT FILE
       bloomcast convert --to parquet-sbbf --column NAME [--row-group N]
                         -o OUT FILE.parquet

Write the filter in FILE to OUT in FORMAT, where that keeps every answer
and everything the file records (anyfile.File.Convert):

  bloomcast              a bloomcast file, with --codec C for a Bloom or
                         counting filter (auto, arith, fast or raw; default:
                         keep FILE's): raw to compressed and back
  bits-and-blooms, bits-and-blooms-json
                         a bits-and-blooms filter, binary to JSON and back
  FILE's own format      as it was read
  parquet-sbbf, from a Parquet file
                         the filter of one column chunk, as a standalone
                         split block filter: its bitset as the file holds
                         it, with the header Parquet stores before it
                         (--column NAME, as "bloomcast inspect" lists the
                         columns; --row-group N, needed when the column
                         has a filter in several row groups)

Every other pair is refused with exit status 2 and one line that says
why: no two programs hash keys alike (bloomcast: XXH3-128; Squid: MD5
store keys; Guava: MurmurHash3 with its MITZ probes; bits-and-blooms:
MurmurHash3 with bloom/v3's locations; Parquet: xxHash64 into 256-bit
blocks), so a key's bits in one filter are not its bits in the other; a
Squid digest's header has no place in a bloomcast frame; and a Parquet
file holds a filter per column chunk (one comes out with --column) and
is never written. Rebuild the
filter from its keys instead, with "bloomcast build --format FORMAT".

flags:
  --to FORMAT  bloomcast, squid, guava, bits-and-blooms,
               bits-and-blooms-json, parquet-sbbf or parquet (required)
  --codec C    with --to bloomcast: the codec (see "bloomcast compress -h")
  --column NAME, --row-group N
               with --to parquet-sbbf and a Parquet FILE: the column
               chunk whose filter to write (row groups count from 0)
  -o OUT       output file (required; "-" for standard output)
  --force      write to standard output even when it is a terminal
` + formatHelp,
	run: runConvert,
}

func runConvert(e *env, args []string) error {
	fs := newFlagSet("convert")
	var out, codecName, column string
	var to formatValue
	rowGroup := -1
	e.outFlag(fs, &out, "")
	e.formatFlag(fs)
	fs.Var(&to, "to", "")
	fs.StringVar(&codecName, "codec", "", "")
	fs.StringVar(&column, "column", "", "")
	fs.IntVar(&rowGroup, "row-group", -1, "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if to == 0 {
		return usagef("missing --to FORMAT (one of %s)", anyfile.FormatNames())
	}
	switch {
	case (column != "" || flagSet(fs, "row-group")) && anyfile.Format(to) != anyfile.FormatParquetSBBF:
		return usagef("--column and --row-group take a column chunk's filter out of a Parquet file: --to parquet-sbbf")
	case flagSet(fs, "row-group") && column == "":
		return usagef("--row-group needs --column NAME")
	case flagSet(fs, "row-group") && rowGroup < 0:
		return usagef("--row-group %d: row groups count from 0", rowGroup)
	}
	if err := oneFileToOut(out, args); err != nil {
		return err
	}
	var codec digest.Codec
	if codecName != "" {
		if anyfile.Format(to) != anyfile.FormatBloomcast {
			return usagef("--codec applies to --to bloomcast only")
		}
		if codec, err = digest.ParseCodec(codecName); err != nil {
			return usagef("--codec: %v", err)
		}
	}
	lf, err := e.openAny(args[0])
	if err != nil {
		return err
	}
	if column != "" {
		g, err := lf.ColumnFilter(column, rowGroup)
		if err != nil {
			return fileErr(args[0], err)
		}
		return e.writeFilter(out, g)
	}
	if lf.Format() == anyfile.FormatParquet && anyfile.Format(to) == anyfile.FormatParquetSBBF {
		return fileErr(args[0], errors.New("a Parquet file holds one filter per column chunk: choose one with --column NAME (and --row-group N)"))
	}
	if codecName == "" {
		codec = lf.Codec()
	}
	w, err := lf.Convert(anyfile.Format(to), codec)
	var ae *anyfile.Error
	if errors.Is(err, anyfile.ErrLossy) && errors.As(err, &ae) {
		err = fmt.Errorf("%w; rebuild it from its keys with \"bloomcast build --format %v\"", ae.Err, anyfile.Format(to))
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	return e.writeFilter(out, w)
}
