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
type guavaKind struct {
	none
	g *guava.Filter
}

func decodeGuava(f *File, data []byte) error {
	g, err := guava.Decode(data)
	if err != nil {
		return err
	}
	f.k = &guavaKind{g: g}
	return nil
}

// newGuava makes a MURMUR128_MITZ_64 filter, as Guava builds them.
func newGuava(f *File, s Spec, shaped bool) error {
	var g *guava.Filter
	var err error
	if shaped {
		g, err = guava.NewSized(guava.Murmur128Mitz64, int64(min(s.M, math.MaxInt64)), s.K)
	} else {
		g, err = guava.New(int64(min(max(s.N, 1), math.MaxInt64)), s.P)
	}
	if err != nil {
		return err
	}
	f.k = &guavaKind{g: g}
	return nil
}

func (*guavaKind) Kind() Kind { return Guava }

// parseLong reads a key of type KeyLong.
func parseLong(key []byte) (int64, error) {
	v, err := strconv.ParseInt(string(key), 10, 64)
	if err != nil {
		return 0, errorf("key %q is not a long (a decimal 64-bit integer)", key)
	}
	return v, nil
}

func (k *guavaKind) contains(f *File, key []byte) (bool, error) {
	if f.Keys == KeyLong {
		v, err := parseLong(key)
		if err != nil {
			return false, err
		}
		return k.g.TestLong(v), nil
	}
	return k.g.Test(key), nil
}

func (k *guavaKind) add(f *File, key []byte) error {
	if f.Keys == KeyLong {
		v, err := parseLong(key)
		if err != nil {
			return err
		}
		k.g.AddLong(v)
		return nil
	}
	k.g.Add(key)
	return nil
}

func (k *guavaKind) encoding(*File, digest.Codec) (io.WriterTo, error) {
	b, err := k.g.MarshalBinary()
	return Frame(b), err
}

func (k *guavaKind) combine(_, g *File, intersect bool) error {
	o := kindOf[*guavaKind](g).g
	if intersect {
		return k.g.Intersect(o)
	}
	return k.g.Union(o)
}

func (*guavaKind) foldable(*File) error { return nil }

func (k *guavaKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, k.g, k.g.Bits, toBits)
}

func (k *guavaKind) stats(f *File) Stats {
	g := k.g
	return bitStats(f, Stats{Strategy: g.Strategy().String(), Bits: g.Bits(), K: g.K(), SetBits: g.Ones(), Folds: g.Folds()})
}

func (*guavaKind) checkKeys(f *File) error {
	if f.Keys == KeyString || f.Keys == KeyLong {
		return nil
	}
	return errorf("a Guava filter takes keys as strings or longs, not as %vs", f.Keys)
}

func (k *guavaKind) structures() []any { return []any{k.g} }
