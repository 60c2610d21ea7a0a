package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
)

// countingKind is a counting filter (envelope.TypeCounting, decoded by
// decodeBloom), with a copy of its bit view as it was read or built.
type countingKind struct {
	none
	counters *counting.Filter
	bits     *bloom.Filter // the bit view as read; Add does not change it
	entropy  float64
}

func newCountingKind(c *counting.Filter, entropyBits float64) *countingKind {
	return &countingKind{counters: c, bits: c.BitView().Clone(), entropy: entropyBits}
}

func (*countingKind) Kind() Kind { return Counting }

func (k *countingKind) contains(_ *File, key []byte) (bool, error) { return k.bits.Contains(key), nil }

// add adds to the counters, not to the copy of the bit view.
func (k *countingKind) add(_ *File, key []byte) error {
	k.counters.Add(key)
	return nil
}

func (k *countingKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec == digest.Raw && f.Header.Sequence == 0 {
		// What digest.Encode writes, streamed from the counters.
		return k.counters, nil
	}
	return f.EncodeDigest(k.digest(f), codec)
}

func (k *countingKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (k *countingKind) digest(f *File) *digest.Digest {
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Counting: k.counters}
}

func (k *countingKind) combine(_, g *File, intersect bool) error {
	if intersect {
		return errorf("counting filters have no intersection here (the smaller of two counters is not a count of the keys in both)")
	}
	return k.counters.Merge(kindOf[*countingKind](g).counters)
}

func (*countingKind) foldable(*File) error {
	return errorf("a counting filter cannot be folded (its counters would have to be summed in pairs, and a key's count would mix with others')")
}

func (k *countingKind) fold(f *File, _ uint64) error { return k.foldable(f) }

func (k *countingKind) structures() []any { return []any{k.counters, k.bits} }

func (k *countingKind) entropyBits() float64 { return k.entropy }
