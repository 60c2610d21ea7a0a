package cli

import (
	"fmt"
	"strconv"
	"strings"

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

// parquetReport is what inspect prints for a Parquet file.
type parquetReport struct {
	File      string           `json:"file"`
	Format    string           `json:"format"` // "parquet"
	RowGroups int              `json:"row_groups"`
	Columns   []string         `json:"columns"`
	Filters   []parquetFilterR `json:"filters"`
}

type parquetFilterR struct {
	Column            string  `json:"column"`
	RowGroup          int     `json:"row_group"`
	Type              string  `json:"type"`
	Values            int64   `json:"values"`
	SizeBytes         int     `json:"size_bytes"`
	FillRatio         float64 `json:"fill_ratio"`
	EstimatedDistinct float64 `json:"estimated_distinct"`
}

// inspectParquet lists the filters of a Parquet file.
func inspectParquet(e *env, path string, f *parquet.File, asJSON bool) error {
	reports, err := f.Reports()
	if err != nil {
		return fileErr(path, err)
	}
	r := parquetReport{File: path, Format: "parquet", RowGroups: f.RowGroups(), Columns: f.Columns(), Filters: []parquetFilterR{}}
	for _, c := range reports {
		r.Filters = append(r.Filters, parquetFilterR{Column: c.Column, RowGroup: c.RowGroup, Type: c.Type.String(),
			Values: c.NumValues, SizeBytes: c.Bytes, FillRatio: c.Fill, EstimatedDistinct: c.EstimatedNDV})
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	fprintf(e.stdout, "file %s: Parquet, %d row groups, %d columns, %d split block Bloom filters\n",
		displayName(path), r.RowGroups, len(r.Columns), len(r.Filters))
	var t textTable
	t.add("column", "row group", "type", "values", "bytes", "fill", "est. distinct")
	for _, c := range r.Filters {
		t.add(c.Column, strconv.Itoa(c.RowGroup), c.Type, strconv.FormatInt(c.Values, 10), strconv.Itoa(c.SizeBytes),
			strconv.FormatFloat(c.FillRatio, 'f', 4, 64), strconv.FormatFloat(c.EstimatedDistinct, 'f', 0, 64))
	}
	return t.write(e.stdout)
}
