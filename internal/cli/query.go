package cli

import (
	"strings"
)

var queryCommand = &command{
	name:    "query",
	summary: "ask a filter about keys",
	usage: `usage: bloomcast query [-v] FILTER [KEY...]

Ask FILTER about each KEY, or about each line of standard input when no KEY
is given (a trailing "\r" is dropped and empty lines are skipped). Prints
one line per key: "maybe" if the key may be in the set, "no" if it
certainly is not. FILTER may be "-" (standard input) when the keys are
arguments.

FILTER may hold any structure bloomcast writes: a Bloom, counting or
deletion filter (present: in the added filter and not in the removed
one; a digest coded in pieces is decoded only in the pieces the keys'
probes fall in), a Squid cache digest, a fingerprint set, a Bloomier filter or a
multilevel hash table (present: the key has a value), or a summary of
one (present: the summary names a sub-table; keys are hashed with seed
0, as the summary's frame says).

A Parquet file holds a filter per column chunk: with --column NAME each
KEY is a value of that column (text read as its physical type: a string,
a decimal integer or number, FIXED_LEN_BYTE_ARRAY as its bytes or in hex),
and query prints per value the row groups whose filter may hold it
("VALUE<TAB>row groups 0,2", or "none"; a row group without a filter
for the column may hold anything and is listed too). The exit status is
then 1 when no row group may hold any of the values.

flags:
  -v, --keys      print KEY<TAB>maybe or KEY<TAB>no
  --column NAME   the Parquet column to probe
  --json          with --column: one JSON array of {"value", "row_groups",
                  "unfiltered"}
` + keyTypeHelp + formatHelp + `
Exit status: 0 if every key may be present, 1 if any is absent, 2 on error.
` + keyInputHelp,
	run: runQuery,
}

func runQuery(e *env, args []string) (err error) {
	fs := newFlagSet("query")
	e.formatFlag(fs)
	e.keyTypeFlag(fs)
	var column string
	var asJSON bool
	fs.StringVar(&column, "column", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	file, keys, withKeys, err := e.lookupArgs(fs, args, "FILTER", "filter")
	if err != nil {
		return err
	}
	lf, err := e.openAnyWith(file, true)
	if err != nil {
		return err
	}
	switch parquetFile := lf.Parquet != nil; {
	case parquetFile && column == "":
		return usagef("%s is a Parquet file, with a filter per column chunk: name the column with --column (one of %s)",
			displayName(file), strings.Join(lf.Parquet.Columns(), ", "))
	case parquetFile:
		return e.queryParquet(lf, column, keys, asJSON)
	case column != "" || asJSON:
		return usagef("--column and --json apply to Parquet files; %s holds %s", displayName(file), lf.kind())
	}
	defer func() {
		if lf.viewErr != nil {
			err = lf.viewErr
		}
	}()

	err = e.answerKeys(keys, withKeys, func(key []byte) (string, bool) {
		if lf.contains(key) {
			return "maybe", true
		}
		return "no", false
	})
	return err
}
