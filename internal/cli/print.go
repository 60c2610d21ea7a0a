package cli

import (
	"encoding/json"
	"io"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// textTable collects rows for a textfmt.Table.
type textTable struct{ rows [][]string }

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *textTable) write(w io.Writer) error {
	var tt textfmt.Table
	for _, r := range t.rows {
		tt.Add(r...)
	}
	_, err := tt.WriteTo(w)
	return err
}

// The number formats of package textfmt.
var (
	rate       = textfmt.Rate
	humanBytes = textfmt.Bytes
	humanCount = textfmt.Count
	percent    = textfmt.Percent
	wrap       = textfmt.Wrap
)
