package filereport

import (
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// A StaticReport describes a static digest's whole frame: its frame, the
// ribbon filter it is built on and the Bloom filters of the keys added
// and removed since (or the one of the keys the ribbon answers wrongly),
// and the rate a receiver's view answers with; its
// JSON form is what "bloomcast inspect --json" prints for one. The zero
// value describes no digest.
type StaticReport struct {
	FrameReport
	HashSchemeID uint8  `json:"-"`
	Seed         uint64 `json:"seed"`
	EncodedBytes int64  `json:"encoded_bytes"`
	// BaseSequence is the sequence of the frame that carried the ribbon.
	BaseSequence uint64 `json:"base_sequence"`
	RibbonKeys   uint64 `json:"ribbon_keys"`
	// Form is "added-removed" (two filters, frame kind 1) or "xor" (one
	// filter of the keys the ribbon answers wrongly, kind 3):
	// digest.StaticForm.
	Form string `json:"form"`
	// FilterBits is the size of each filter beside the ribbon.
	FilterBits uint64 `json:"filter_bits"`
	// FalsePositiveRate is the ribbon's rate plus the added filter's,
	// or the one filter's (digest.StaticView.FalsePositiveRate), an
	// upper bound.
	FalsePositiveRate float64 `json:"false_positive_rate"`
}

// Static describes f, a static digest read from the file named name. The
// other kinds are an error.
func Static(f *anyfile.File, name string) (*StaticReport, error) {
	v, ok := anyfile.As[*digest.StaticView](f)
	if !ok {
		return nil, errorf("%s is not a static digest", article(f))
	}
	keys, bits := v.Sizes()
	return &StaticReport{FrameReport: frameReport(f, name), HashSchemeID: f.Header.Scheme, Seed: f.Header.Seed,
		EncodedBytes: f.Size, BaseSequence: v.Base(), RibbonKeys: keys, Form: v.Form().String(), FilterBits: bits,
		FalsePositiveRate: v.FalsePositiveRate()}, nil
}

// WriteText writes r as "bloomcast inspect" prints it: the frame, then
// the ribbon, the two filters and the rate.
func (r *StaticReport) WriteText(w io.Writer) error {
	kv := r.FrameReport.lines(r.HashSchemeID, r.Seed)
	kv.Add("size", fmt.Sprintf("%d bytes encoded (%s)", r.EncodedBytes, textfmt.Bytes(r.EncodedBytes)))
	kv.Add("base", fmt.Sprintf("a ribbon filter of %d keys, sent at sequence %d", r.RibbonKeys, r.BaseSequence))
	if r.Form == digest.StaticXOR.String() {
		kv.Add("changes", fmt.Sprintf("a Bloom filter of the keys the ribbon answers wrongly (added since and not in it, or removed since), %d bits and one hash function; a key is present when exactly one of the two holds it", r.FilterBits))
		kv.Add("false-positive rate", textfmt.Rate(r.FalsePositiveRate)+" at most: the ribbon's plus the filter's")
	} else {
		kv.Add("changes", fmt.Sprintf("Bloom filters of the keys added and removed since, %d bits and one hash function each", r.FilterBits))
		kv.Add("false-positive rate", textfmt.Rate(r.FalsePositiveRate)+" at most: the ribbon's plus the added filter's")
	}
	_, err := kv.WriteTo(w)
	return err
}
