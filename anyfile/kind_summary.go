package anyfile

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/mht"
)

// summaryKind is a summary of a multilevel hash table
// (envelope.TypeMHTInterp, TypeMHTFilter, TypeMHTMBF).
type summaryKind struct{ none }

func (summaryKind) structures(f *File) []any { return []any{f.Summary} }

func decodeSummary(f *File, payload []byte, _ Options) (err error) {
	f.Summary, err = mht.SummaryFromFrame(f.Header, payload)
	return err
}

// contains: the summary names a sub-table for the key, hashed with seed
// 0 as summary frames are.
func (summaryKind) contains(f *File, key []byte) (bool, error) {
	return f.Summary.Type(hashing.SumSeed(key, 0)) > 0, nil
}
