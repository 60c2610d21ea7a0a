package filereport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/parquet"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// A ForeignReport describes another program's filter (Guava,
// bits-and-blooms, a Parquet split block filter): File.Stats with the
// file's name and encoded size; its JSON form is what "bloomcast inspect
// --json" prints for one. The zero value describes no filter.
type ForeignReport struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Kind is what the file holds, for people ("Guava BloomFilter").
	Kind string `json:"-"`
	// Strategy is a Guava filter's (MURMUR128_MITZ_64 or _32).
	Strategy          string  `json:"strategy,omitempty"`
	M                 uint64  `json:"m"`
	K                 int     `json:"k"`
	SizeBytes         uint64  `json:"size_bytes"`
	EncodedBytes      int64   `json:"encoded_bytes"`
	SetBits           uint64  `json:"set_bits"`
	FillRatio         float64 `json:"fill_ratio"`
	EstimatedCount    float64 `json:"estimated_count"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
	Folds             int     `json:"folds"`
	// Blocks is a Parquet split block filter's number of 32-byte blocks.
	Blocks int `json:"blocks,omitempty"`
}

// ForeignReport describes f, another program's filter read from the
// file named name. Bloomcast's own kinds and Parquet files are an error.
func Foreign(f *anyfile.File, name string) (*ForeignReport, error) {
	if _, whole := anyfile.As[*parquet.File](f); !f.Foreign() || whole {
		return nil, errorf("%s is not another program's filter", article(f))
	}
	s := f.Stats()
	return &ForeignReport{File: name, Format: s.Format.String(), Kind: f.Kind().String(), Strategy: s.Strategy,
		M: s.Bits, K: s.K, SizeBytes: s.SizeBytes, EncodedBytes: f.Size, SetBits: s.SetBits, FillRatio: s.FillRatio,
		EstimatedCount: s.EstimatedCount, FalsePositiveRate: s.FalsePositiveRate, Folds: s.Folds, Blocks: s.Blocks}, nil
}

// WriteText writes r as "bloomcast inspect" prints it.
func (r *ForeignReport) WriteText(w io.Writer) error {
	var kv textfmt.KeyValues
	kv.Add("file", displayName(r.File))
	format := r.Format + " (a " + r.Kind + ")"
	if r.Strategy != "" {
		format += ", strategy " + r.Strategy
	}
	if r.Blocks != 0 {
		format += fmt.Sprintf(", %d blocks of 256 bits", r.Blocks)
	}
	kv.Add("format", format)
	kv.Add("m", fmt.Sprintf("%d bits", r.M))
	kv.Add("k", strconv.Itoa(r.K))
	kv.Add("size", fmt.Sprintf("%d bytes of bits, %d bytes encoded (%s)", r.SizeBytes, r.EncodedBytes, textfmt.Bytes(r.EncodedBytes)))
	kv.Add("set bits", strconv.FormatUint(r.SetBits, 10))
	kv.Add("fill ratio", textfmt.Float(r.FillRatio, 4))
	kv.Add("count", "none recorded: "+r.Kind+" files hold no count of keys (see the estimate below)")
	kv.Add("estimated count", fmt.Sprintf("%.0f distinct keys, from the set bits", r.EstimatedCount))
	kv.Add("false-positive rate", textfmt.Rate(r.FalsePositiveRate)+" now, from the set bits")
	folds := "0 (cannot be halved)"
	if r.Folds > 0 {
		folds = fmt.Sprintf("%d (halves down to %d bits, 1/%d)", r.Folds, r.M>>r.Folds, uint64(1)<<r.Folds)
	}
	kv.Add("folds", folds)
	_, err := kv.WriteTo(w)
	return err
}

// A ParquetReport lists the split block filters of a Parquet file: its
// JSON form is what "bloomcast inspect --json" prints for one. The zero
// value lists none.
type ParquetReport struct {
	File      string                `json:"file"`
	Format    string                `json:"format"` // "parquet"
	RowGroups int                   `json:"row_groups"`
	Columns   []string              `json:"columns"`
	Filters   []ParquetFilterReport `json:"filters"`
}

// A ParquetFilterReport is one column chunk's filter in a ParquetReport.
// The zero value describes an empty filter.
type ParquetFilterReport struct {
	Column            string  `json:"column"`
	RowGroup          int     `json:"row_group"`
	Type              string  `json:"type"`
	Values            int64   `json:"values"`
	SizeBytes         int     `json:"size_bytes"`
	FillRatio         float64 `json:"fill_ratio"`
	EstimatedDistinct float64 `json:"estimated_distinct"`
}

// ParquetReport lists the filters of f, a Parquet file read from the
// file named name (parquet.File.Reports). Other kinds are an error.
func Parquet(f *anyfile.File, name string) (*ParquetReport, error) {
	p, ok := anyfile.As[*parquet.File](f)
	if !ok {
		return nil, errorf("%s is not a Parquet file", article(f))
	}
	reports, err := p.Reports()
	if err != nil {
		return nil, err
	}
	r := &ParquetReport{File: name, Format: "parquet", RowGroups: p.RowGroups(), Columns: p.Columns(), Filters: []ParquetFilterReport{}}
	for _, c := range reports {
		r.Filters = append(r.Filters, ParquetFilterReport{Column: c.Column, RowGroup: c.RowGroup, Type: c.Type.String(),
			Values: c.NumValues, SizeBytes: c.Bytes, FillRatio: c.Fill, EstimatedDistinct: c.EstimatedNDV})
	}
	return r, nil
}

// WriteText writes r as "bloomcast inspect" prints it: a line about the
// file, then a table of its filters.
func (r *ParquetReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("file %s: Parquet, %d row groups, %d columns, %d split block Bloom filters\n",
		displayName(r.File), r.RowGroups, len(r.Columns), len(r.Filters))
	var t textfmt.Table
	t.Add("column", "row group", "type", "values", "bytes", "fill", "est. distinct")
	for _, c := range r.Filters {
		t.Add(c.Column, strconv.Itoa(c.RowGroup), c.Type, strconv.FormatInt(c.Values, 10), strconv.Itoa(c.SizeBytes),
			textfmt.Float(c.FillRatio, 4), textfmt.Float(c.EstimatedDistinct, 0))
	}
	tw.Write(&t)
	return tw.Err()
}
