package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
)

// deletionKind is a deletion filter (envelope.TypeDeletion): a filter
// of the keys added and one of those removed, written raw.
type deletionKind struct {
	none
	d *counting.DeletionFilter
}

func decodeDeletion(f *File, payload []byte, _ Options) error {
	d, err := counting.DeletionFromFrame(f.Header, payload)
	if err != nil {
		return err
	}
	f.k = &deletionKind{d: d}
	return nil
}

func (*deletionKind) Kind() Kind { return Deletion }

// contains: in the added filter and not the removed one.
func (k *deletionKind) contains(_ *File, key []byte) (bool, error) { return k.d.Contains(key), nil }

func (k *deletionKind) add(_ *File, key []byte) error {
	k.d.Add(key)
	return nil
}

func (k *deletionKind) encoding(*File, digest.Codec) (io.WriterTo, error) { return k.d, nil }

func (k *deletionKind) convertFrame(_ *File, codec digest.Codec) (io.WriterTo, error) {
	if codec != digest.Raw && codec != digest.Auto {
		return nil, errorf("a deletion filter is written raw only, not %v", codec)
	}
	return k.d, nil
}

func (k *deletionKind) structures() []any { return []any{k.d} }
