package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

var convertCommand = &command{
	name:    "convert",
	summary: "write a filter in another format, where nothing is lost",
	usage:   usageText("convert"),
	run:     runConvert,
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
	e.targetFlag(fs)
	e.quietFlag(fs)
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
	if pf, ok := anyfile.As[*parquet.File](lf.File); column != "" && rowGroup < 0 && ok {
		var groups []string
		for _, c := range pf.Filters() {
			if c.Column == column {
				groups = append(groups, strconv.Itoa(c.RowGroup))
			}
		}
		if len(groups) > 1 {
			return fileErr(args[0], fmt.Errorf("column %s has a bloom filter in each of row groups %s: choose one with --row-group N", column, strings.Join(groups, ", ")))
		}
	}
	if column != "" {
		g, err := lf.ColumnFilter(column, rowGroup)
		if err != nil {
			return fileErr(args[0], err)
		}
		var w warnings
		e.checkWritten(&w, &loadedFilter{File: g, path: args[0]}, outputName(out), func(health) string {
			return "the writer sized this column's filter for fewer distinct values than the chunk holds"
		})
		return e.writeWarned(out, g, w)
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
		err = fmt.Errorf("%w; %s", ae.Err, rebuildWith(anyfile.Format(to)))
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	var warn warnings
	e.checkWritten(&warn, lf, outputName(out), rebuildAdvice)
	return e.writeWarned(out, w, warn)
}

// rebuildWith is the advice for a conversion that would lose something:
// build the format from the keys. Build writes no Parquet files, only the
// filter of one column chunk.
func rebuildWith(to anyfile.Format) string {
	if to == anyfile.FormatParquet {
		return "\"bloomcast build --format parquet-sbbf\" builds the split block filter of one column chunk from its keys"
	}
	return fmt.Sprintf("rebuild it from its keys with \"bloomcast build --format %v\"", to)
}
