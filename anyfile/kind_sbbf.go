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
type sbbfKind struct{ none }

func (sbbfKind) structures(f *File) []any { return []any{f.SBBF} }

func decodeSBBF(f *File, data []byte) (err error) {
	f.SBBF, err = parquet.Decode(data)
	return err
}

// newSBBF makes a filter of M bits in whole blocks, or sized for N
// distinct values at rate P.
func newSBBF(f *File, s Spec, _ bool) (err error) {
	if s.M > 0 {
		f.SBBF, err = parquet.NewBlocks(int(min((s.M+255)/256, parquet.MaxBytes/parquet.BlockBytes+1)))
	} else {
		f.SBBF, err = parquet.NewNDV(max(s.N, 1), s.P)
	}
	return err
}

func (sbbfKind) contains(f *File, key []byte) (bool, error) {
	p, err := f.Keys.Plain(key)
	if err != nil {
		return false, err
	}
	return f.SBBF.Check(p), nil
}

func (sbbfKind) add(f *File, key []byte) error {
	p, err := f.Keys.Plain(key)
	if err != nil {
		return err
	}
	f.SBBF.Insert(p)
	return nil
}

func (sbbfKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) {
	b, err := f.SBBF.MarshalBinary()
	return Frame(b), err
}

func (sbbfKind) combine(f, g *File, intersect bool) error {
	if intersect {
		return f.intersectSBBF(g.SBBF)
	}
	return f.SBBF.Union(g.SBBF)
}

// intersectSBBF ANDs g's bits into f's split block filter, of the same
// size.
func (f *File) intersectSBBF(g *parquet.Filter) error {
	a, b := f.SBBF.Bitset(), g.Bitset()
	if len(a) != len(b) {
		return fmt.Errorf("split block filters of %d and %d blocks do not combine", f.SBBF.Blocks(), g.Blocks())
	}
	for i := range a {
		a[i] &= b[i]
	}
	h, err := parquet.FromBitset(a)
	if err == nil {
		f.SBBF = h
	}
	return err
}

func (sbbfKind) foldable(*File) error { return nil }

func (sbbfKind) fold(f *File, toBits uint64) error {
	return foldHalver(f, sbbfHalver{f.SBBF}, func() uint64 { return 8 * uint64(f.SBBF.Bytes()) }, toBits)
}

// sbbfHalver is a split block filter as a halver.
type sbbfHalver struct{ *parquet.Filter }

func (s sbbfHalver) Folds() int { return bits.TrailingZeros(uint(s.Blocks())) }

// stats: a key sets one bit in each of the eight 32-bit words of its
// block, so the rate from the bits is the mean over the blocks of the
// product of the words' fills, and the count is the filter's own
// estimate (parquet.Filter.EstimateNDV).
func (sbbfKind) stats(f *File) Stats {
	p := f.SBBF
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
func (sbbfKind) checkKeys(*File) error { return nil }
