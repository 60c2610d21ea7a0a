package anyfile

import (
	"io"
	"math"
	"strconv"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/guava"
)

// guavaKind is a Guava BloomFilter.writeTo stream (formats/guava): its
// keys funnelled as strings or, with KeyLong, as longs.
type guavaKind struct{ none }

func (guavaKind) structures(f *File) []any { return []any{f.Guava} }

func decodeGuava(f *File, data []byte) (err error) {
	f.Guava, err = guava.Decode(data)
	return err
}

// newGuava makes a MURMUR128_MITZ_64 filter, as Guava builds them.
func newGuava(f *File, s Spec, shaped bool) (err error) {
	if shaped {
		f.Guava, err = guava.NewSized(guava.Murmur128Mitz64, int64(min(s.M, math.MaxInt64)), s.K)
	} else {
		f.Guava, err = guava.New(int64(min(max(s.N, 1), math.MaxInt64)), s.P)
	}
	return err
}

// parseLong reads a key of type KeyLong.
func parseLong(key []byte) (int64, error) {
	v, err := strconv.ParseInt(string(key), 10, 64)
	if err != nil {
		return 0, errorf("key %q is not a long (a decimal 64-bit integer)", key)
	}
	return v, nil
}

func (guavaKind) contains(f *File, key []byte) (bool, error) {
	if f.Keys == KeyLong {
		v, err := parseLong(key)
		if err != nil {
			return false, err
		}
		return f.Guava.TestLong(v), nil
	}
	return f.Guava.Test(key), nil
}

func (guavaKind) add(f *File, key []byte) error {
	if f.Keys == KeyLong {
		v, err := parseLong(key)
		if err != nil {
			return err
		}
		f.Guava.AddLong(v)
		return nil
	}
	f.Guava.Add(key)
	return nil
}

func (guavaKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) {
	b, err := f.Guava.MarshalBinary()
	return Frame(b), err
}

func (guavaKind) combine(f, g *File, intersect bool) error {
	if intersect {
		return f.Guava.Intersect(g.Guava)
	}
	return f.Guava.Union(g.Guava)
}

func (guavaKind) foldable(*File) error { return nil }

func (guavaKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, f.Guava, f.Guava.Bits, toBits)
}

func (guavaKind) stats(f *File) Stats {
	g := f.Guava
	return bitStats(f, Stats{Strategy: g.Strategy().String(), Bits: g.Bits(), K: g.K(), SetBits: g.Ones(), Folds: g.Folds()})
}

func (guavaKind) checkKeys(f *File) error {
	if f.Keys == KeyString || f.Keys == KeyLong {
		return nil
	}
	return errorf("a Guava filter takes keys as strings or longs, not as %vs", f.Keys)
}
