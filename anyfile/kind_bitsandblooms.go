package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
)

// bitsAndBloomsKind is a bits-and-blooms/bloom/v3 filter
// (formats/bitsandblooms), in its binary or its JSON form: written back
// in the one it was read in.
type bitsAndBloomsKind struct {
	none
	b *bitsandblooms.Filter
}

func decodeBitsAndBlooms(f *File, data []byte) error {
	b, err := bitsandblooms.Decode(data)
	if err != nil {
		return err
	}
	f.k = &bitsAndBloomsKind{b: b}
	return nil
}

func decodeBitsAndBloomsJSON(f *File, data []byte) error {
	b, err := bitsandblooms.DecodeJSON(data)
	if err != nil {
		return err
	}
	f.k = &bitsAndBloomsKind{b: b}
	return nil
}

// newBitsAndBlooms makes a filter as bloom/v3's New or NewWithEstimates.
func newBitsAndBlooms(f *File, s Spec, shaped bool) error {
	var b *bitsandblooms.Filter
	var err error
	if shaped {
		b, err = bitsandblooms.New(s.M, uint64(s.K))
	} else {
		b, err = bitsandblooms.NewWithEstimates(max(s.N, 1), s.P)
	}
	if err != nil {
		return err
	}
	f.k = &bitsAndBloomsKind{b: b}
	return nil
}

func (*bitsAndBloomsKind) Kind() Kind { return BitsAndBlooms }

func (k *bitsAndBloomsKind) contains(_ *File, key []byte) (bool, error) {
	return k.b.Test(key), nil
}

func (k *bitsAndBloomsKind) add(_ *File, key []byte) error {
	k.b.Add(key)
	return nil
}

func (k *bitsAndBloomsKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) {
	return k.marshal(f.format == FormatBitsAndBloomsJSON)
}

// marshal is the filter in its JSON form, or its binary one.
func (k *bitsAndBloomsKind) marshal(json bool) (io.WriterTo, error) {
	var b []byte
	var err error
	if json {
		b, err = k.b.MarshalJSON()
	} else {
		b, err = k.b.MarshalBinary()
	}
	return Frame(b), err
}

func (k *bitsAndBloomsKind) combine(_, g *File, intersect bool) error {
	o := kindOf[*bitsAndBloomsKind](g).b
	if intersect {
		return k.b.Intersect(o)
	}
	return k.b.Union(o)
}

func (*bitsAndBloomsKind) foldable(*File) error { return nil }

func (k *bitsAndBloomsKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, k.b, k.b.M, toBits)
}

func (k *bitsAndBloomsKind) stats(f *File) Stats {
	b := k.b
	return bitStats(f, Stats{Bits: b.M(), K: int(b.K()), SetBits: b.Ones(), Folds: b.Folds()})
}

func (k *bitsAndBloomsKind) structures() []any { return []any{k.b} }
