package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
)

// deletionKind is a deletion filter (envelope.TypeDeletion): a filter
// of the keys added and one of those removed, written raw.
type deletionKind struct{ none }

func (deletionKind) structures(f *File) []any { return []any{f.Deletion} }

func decodeDeletion(f *File, payload []byte, _ Options) (err error) {
	f.Deletion, err = counting.DeletionFromFrame(f.Header, payload)
	return err
}

// contains: in the added filter and not the removed one.
func (deletionKind) contains(f *File, key []byte) (bool, error) { return f.Deletion.Contains(key), nil }

func (deletionKind) add(f *File, key []byte) error {
	f.Deletion.Add(key)
	return nil
}

func (deletionKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) { return f.Deletion, nil }

func (deletionKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec != digest.Raw && codec != digest.Auto {
		return nil, errorf("a deletion filter is written raw only, not %v", codec)
	}
	return f.Deletion, nil
}
