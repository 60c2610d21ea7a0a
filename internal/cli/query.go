package cli

import (
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

var queryCommand = &command{
	name:    "query",
	summary: "ask a filter about keys",
	usage:   usageText("query"),
	run:     runQuery,
}

func runQuery(e *env, args []string) error {
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
	pf, parquetFile := anyfile.As[*parquet.File](lf.File)
	switch {
	case parquetFile && column == "":
		return usagef("%s is a Parquet file, with a filter per column chunk: name the column with --column (one of %s)",
			displayName(file), strings.Join(pf.Columns(), ", "))
	case parquetFile:
		return e.queryParquet(lf, column, keys, asJSON)
	case column != "" || asJSON:
		return usagef("--column and --json apply to Parquet files; %s holds %s", displayName(file), lf.kind())
	}
	if _, ok := anyfile.As[*guava.Filter](lf.File); ok && !flagSet(fs, "key-type") {
		// A Guava file records no funnel: a key typed in the wrong one
		// answers "no" for a member.
		e.warnf("%s: a Guava filter does not record how its keys were put: taken as strings (Funnels.stringFunnel(UTF_8)); give --key-type long for one built with Funnels.longFunnel()", displayName(file))
	}
	return e.answerKeys(keys, withKeys, func(key []byte) (string, bool, error) {
		// A key not of the filter's key type, or in a piece of a digest
		// that does not decode, has no answer.
		switch in, err := lf.Contains(key); {
		case err != nil:
			return "", false, fileErr(lf.path, err)
		case in:
			return "maybe", true, nil
		}
		return "no", false, nil
	})
}
