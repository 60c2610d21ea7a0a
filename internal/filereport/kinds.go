package filereport

import (
	"io"

	"github.com/bloomcast/bloomcast/anyfile"
)

// A Report is what "bloomcast inspect" prints about a file: WriteText
// its text form, encoding/json of the report its --json form.
type Report interface {
	WriteText(w io.Writer) error
}

// reports make the report of each kind of file: the one place that says
// which report a kind has. A kind without an entry has no report.
var reports = map[anyfile.Kind]func(f *anyfile.File, name string) (Report, error){
	anyfile.Bloom:         report(Filter),
	anyfile.Counting:      report(Filter),
	anyfile.Squid:         report(Filter),
	anyfile.Scalable:      report(Scalable),
	anyfile.Delta:         report(Delta),
	anyfile.Deletion:      report(Structure),
	anyfile.FPSet:         report(Structure),
	anyfile.Bloomier:      report(Structure),
	anyfile.Ribbon:        report(Structure),
	anyfile.MHT:           report(Structure),
	anyfile.MHTSummary:    report(Structure),
	anyfile.Guava:         report(Foreign),
	anyfile.BitsAndBlooms: report(Foreign),
	anyfile.SBBF:          report(Foreign),
	anyfile.ParquetFile:   report(Parquet),
	anyfile.Static:        report(Static),
}

// report adapts the constructor of one report type to the table.
func report[R Report](make func(f *anyfile.File, name string) (R, error)) func(*anyfile.File, string) (Report, error) {
	return func(f *anyfile.File, name string) (Report, error) {
		r, err := make(f, name)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// Of returns the report of f, read from the file named name, as its kind
// has it.
func Of(f *anyfile.File, name string) (Report, error) {
	make := reports[f.Kind()]
	if make == nil {
		return nil, errorf("%s has no report", article(f))
	}
	return make(f, name)
}
