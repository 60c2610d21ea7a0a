package anyfile

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// sbbfKind is a Parquet split block Bloom filter alone: its thrift
// header and bitset (formats/parquet). Its keys are values of a Parquet
// physical type (File.Keys), hashed in their plain encoding.
type sbbfKind struct {
	none
	p *parquet.Filter
}

func decodeSBBF(f *File, data []byte) error {
	p, err := parquet.Decode(data)
	if err != nil {
		return err
	}
	f.k = &sbbfKind{p: p}
	return nil
}

// newSBBF makes a filter of M bits in whole blocks, or sized for N
// distinct values at rate P.
func newSBBF(f *File, s Spec, _ bool) error {
	var p *parquet.Filter
	var err error
	if s.M > 0 {
		p, err = parquet.NewBlocks(int(min((s.M+255)/256, parquet.MaxBytes/parquet.BlockBytes+1)))
	} else {
		p, err = parquet.NewNDV(max(s.N, 1), s.P)
	}
	if err != nil {
		return err
	}
	f.k = &sbbfKind{p: p}
	return nil
}

func (*sbbfKind) Kind() Kind { return SBBF }

func (k *sbbfKind) contains(f *File, key []byte) (bool, error) {
	p, err := f.Keys.Plain(key)
	if err != nil {
		return false, err
	}
	return k.p.Check(p), nil
}

func (k *sbbfKind) add(f *File, key []byte) error {
	p, err := f.Keys.Plain(key)
	if err != nil {
		return err
	}
	k.p.Insert(p)
	return nil
}

func (k *sbbfKind) encoding(*File, digest.Codec) (io.WriterTo, error) {
	b, err := k.p.MarshalBinary()
	return Frame(b), err
}

func (k *sbbfKind) combine(_, g *File, intersect bool) error {
	o := kindOf[*sbbfKind](g).p
	if intersect {
		return k.intersect(o)
	}
	return k.p.Union(o)
}

// intersect ANDs g's bits into the filter's, of the same size.
func (k *sbbfKind) intersect(g *parquet.Filter) error {
	a, b := k.p.Bitset(), g.Bitset()
	if len(a) != len(b) {
		return fmt.Errorf("split block filters of %d and %d blocks do not combine", k.p.Blocks(), g.Blocks())
	}
	for i := range a {
		a[i] &= b[i]
	}
	h, err := parquet.FromBitset(a)
	if err == nil {
		k.p = h
	}
	return err
}

func (*sbbfKind) foldable(*File) error { return nil }

func (k *sbbfKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, sbbfHalver{k.p}, func() uint64 { return 8 * uint64(k.p.Bytes()) }, toBits)
}

// sbbfHalver is a split block filter as a halver.
type sbbfHalver struct{ *parquet.Filter }

func (s sbbfHalver) Folds() int { return bits.TrailingZeros(uint(s.Blocks())) }

// stats: a key sets one bit in each of the eight 32-bit words of its
// block, so the rate from the bits is the mean over the blocks of the
// product of the words' fills, and the count is the filter's own
// estimate (parquet.Filter.EstimateNDV).
func (k *sbbfKind) stats(*File) Stats {
	p := k.p
	s := Stats{Format: FormatParquetSBBF, Bits: 8 * uint64(p.Bytes()), K: 8, SizeBytes: uint64(p.Bytes()),
		SetBits: p.Ones(), FillRatio: p.Fill(), EstimatedCount: p.EstimateNDV(), Blocks: p.Blocks(),
		Folds: sbbfHalver{p}.Folds()}
	words := p.Words()
	var sum float64
	for b := 0; b+8 <= len(words); b += 8 {
		q := 1.0
		for _, w := range words[b : b+8] {
			q *= float64(bits.OnesCount32(w)) / 32
		}
		sum += q
	}
	if n := len(words) / 8; n > 0 {
		s.FalsePositiveRate = sum / float64(n)
	}
	return s
}

// checkKeys: a split block filter hashes any key type.
func (*sbbfKind) checkKeys(*File) error { return nil }

func (k *sbbfKind) structures() []any { return []any{k.p} }
