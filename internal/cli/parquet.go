package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/parquet"
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
	pf, _ := anyfile.As[*parquet.File](lf.File)
	answers, err := pf.Probe(column, values)
	if err != nil {
		return fileErr(lf.path, err)
	}
	if msg := unfilteredColumns(lf, column); msg != "" {
		e.warnf("%s: %s", displayName(lf.path), msg)
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

// whyUnfiltered is why a Parquet file's column may carry no bloom filter.
const whyUnfiltered = "its writer wrote none there (DuckDB writes filters only for dictionary-encoded columns, which a column of mostly distinct values is not; Spark and Arrow only for the columns they are told to)"

// unfilteredColumns says which columns of the Parquet file lf (only
// column, if not empty) have no bloom filter in some or all of its row
// groups, so that a query on them cannot skip those row groups; empty if
// every one has a filter in every row group.
func unfilteredColumns(lf *loadedFilter, column string) string {
	pf, _ := anyfile.As[*parquet.File](lf.File)
	groups := pf.RowGroups()
	if groups == 0 {
		return ""
	}
	filtered := map[string]map[int]bool{}
	for _, c := range pf.Filters() {
		if filtered[c.Column] == nil {
			filtered[c.Column] = map[int]bool{}
		}
		filtered[c.Column][c.RowGroup] = true
	}
	var parts []string
	for _, col := range pf.Columns() {
		if column != "" && col != column {
			continue
		}
		var missing []string
		for g := range groups {
			if !filtered[col][g] {
				missing = append(missing, strconv.Itoa(g))
			}
		}
		switch {
		case len(missing) == 0:
		case len(missing) == groups:
			parts = append(parts, fmt.Sprintf("%s (in any of the %d row groups)", col, groups))
		default:
			parts = append(parts, fmt.Sprintf("%s (in row groups %s of %d)", col, strings.Join(missing, ","), groups))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	what := "columns"
	if len(parts) == 1 {
		what = "column"
	}
	return fmt.Sprintf("no bloom filter for %s %s, so a query on it reads those row groups: %s", what, strings.Join(parts, ", "), whyUnfiltered)
}
