package anyfile

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/mht"
)

// summaryKind is a summary of a multilevel hash table
// (envelope.TypeMHTInterp, TypeMHTFilter, TypeMHTMBF).
type summaryKind struct {
	none
	s mht.Summary
}

func decodeSummary(f *File, payload []byte, _ Options) error {
	s, err := mht.SummaryFromFrame(f.Header, payload)
	if err != nil {
		return err
	}
	f.k = &summaryKind{s: s}
	return nil
}

func (*summaryKind) Kind() Kind { return MHTSummary }

// contains: the summary names a sub-table for the key, hashed with seed
// 0 as summary frames are.
func (k *summaryKind) contains(_ *File, key []byte) (bool, error) {
	return k.s.Type(hashing.SumSeed(key, 0)) > 0, nil
}

func (k *summaryKind) structures() []any { return []any{k.s} }
