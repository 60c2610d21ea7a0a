package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// Parquet files hold one split block filter per column chunk: query
// --column probes them (parquet.File.Probe) and inspect lists them
// (parquet.File.Reports).

// parquetAnswer is one value's line of query --column --json.
type parquetAnswer struct {
	Value string `json:"value"`
	// RowGroups may hold the value: their filter may, or they have none
	// for the column (Unfiltered).
	RowGroups  []int `json:"row_groups"`
	Unfiltered []int `json:"unfiltered"`
}

// queryParquet answers, per value, the row groups of the Parquet file
// whose filter on column may hold it; exit status 1 when none may hold
// any of the values.
func (e *env) queryParquet(lf *loadedFilter, column string, values []string, asJSON bool) error {
	if len(values) == 0 {
		err := e.eachKey(nil, func(key []byte) { values = append(values, string(key)) })
		if err != nil {
			return err
		}
	}
	answers, err := lf.Parquet.Probe(column, values)
	if err != nil {
		return fileErr(lf.path, err)
	}
	anywhere := false
	out := make([]parquetAnswer, len(answers))
	for i, a := range answers {
		out[i] = parquetAnswer{Value: a.Value, RowGroups: a.RowGroups, Unfiltered: append([]int{}, a.Unfiltered...)}
		anywhere = anywhere || len(a.RowGroups) > 0
	}
	if asJSON {
		err = writeJSON(e.stdout, out)
	} else {
		var b strings.Builder
		for _, a := range out {
			fmt.Fprintf(&b, "%s\t%s\n", a.Value, rowGroupsText(a))
		}
		fprint(e.stdout, b.String())
	}
	if err == nil && !anywhere {
		err = exitStatus(1)
	}
	return err
}

// rowGroupsText lists the row groups that may hold a value, or "none".
func rowGroupsText(a parquetAnswer) string {
	if len(a.RowGroups) == 0 {
		return "none"
	}
	groups := make([]string, len(a.RowGroups))
	for i, g := range a.RowGroups {
		groups[i] = strconv.Itoa(g)
	}
	s := "row groups " + strings.Join(groups, ",")
	if len(a.Unfiltered) > 0 {
		s += fmt.Sprintf(" (%d without a filter)", len(a.Unfiltered))
	}
	return s
}
