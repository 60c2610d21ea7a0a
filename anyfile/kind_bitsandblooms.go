package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
)

// bitsAndBloomsKind is a bits-and-blooms/bloom/v3 filter
// (formats/bitsandblooms), in its binary or its JSON form: written back
// in the one it was read in.
type bitsAndBloomsKind struct{ none }

func (bitsAndBloomsKind) structures(f *File) []any { return []any{f.BitsAndBlooms} }

func decodeBitsAndBlooms(f *File, data []byte) (err error) {
	f.BitsAndBlooms, err = bitsandblooms.Decode(data)
	return err
}

func decodeBitsAndBloomsJSON(f *File, data []byte) (err error) {
	f.BitsAndBlooms, err = bitsandblooms.DecodeJSON(data)
	return err
}

// newBitsAndBlooms makes a filter as bloom/v3's New or NewWithEstimates.
func newBitsAndBlooms(f *File, s Spec, shaped bool) (err error) {
	if shaped {
		f.BitsAndBlooms, err = bitsandblooms.New(s.M, uint64(s.K))
	} else {
		f.BitsAndBlooms, err = bitsandblooms.NewWithEstimates(max(s.N, 1), s.P)
	}
	return err
}

func (bitsAndBloomsKind) contains(f *File, key []byte) (bool, error) {
	return f.BitsAndBlooms.Test(key), nil
}

func (bitsAndBloomsKind) add(f *File, key []byte) error {
	f.BitsAndBlooms.Add(key)
	return nil
}

func (bitsAndBloomsKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) {
	var b []byte
	var err error
	if f.format == FormatBitsAndBloomsJSON {
		b, err = f.BitsAndBlooms.MarshalJSON()
	} else {
		b, err = f.BitsAndBlooms.MarshalBinary()
	}
	return Frame(b), err
}

func (bitsAndBloomsKind) combine(f, g *File, intersect bool) error {
	if intersect {
		return f.BitsAndBlooms.Intersect(g.BitsAndBlooms)
	}
	return f.BitsAndBlooms.Union(g.BitsAndBlooms)
}

func (bitsAndBloomsKind) foldable(*File) error { return nil }

func (bitsAndBloomsKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, f.BitsAndBlooms, f.BitsAndBlooms.M, toBits)
}

func (bitsAndBloomsKind) stats(f *File) Stats {
	b := f.BitsAndBlooms
	return bitStats(f, Stats{Bits: b.M(), K: int(b.K()), SetBits: b.Ones(), Folds: b.Folds()})
}
