package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
)

// countingKind is a counting filter (envelope.TypeCounting, decoded by
// decodeBloom): File.Counting, with a copy of its bit view as read in
// File.Bloom.
type countingKind struct{ none }

func (countingKind) structures(f *File) []any { return []any{f.Counting, f.Bloom} }

func (countingKind) contains(f *File, key []byte) (bool, error) { return bloomKind{}.contains(f, key) }

// add adds to the counters, not to the copy of the bit view.
func (countingKind) add(f *File, key []byte) error {
	f.Counting.Add(key)
	return nil
}

func (k countingKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec == digest.Raw && f.Header.Sequence == 0 && f.Pieces == nil {
		// What digest.Encode writes, streamed from the counters.
		return f.Counting, nil
	}
	return f.EncodeDigest(k.digest(f), codec)
}

func (k countingKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (countingKind) digest(f *File) *digest.Digest {
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Counting: f.Counting}
}

func (countingKind) combine(f, g *File, intersect bool) error {
	if intersect {
		return errorf("counting filters have no intersection here (the smaller of two counters is not a count of the keys in both)")
	}
	return f.Counting.Merge(g.Counting)
}

func (countingKind) foldable(*File) error {
	return errorf("a counting filter cannot be folded (its counters would have to be summed in pairs, and a key's count would mix with others')")
}

func (k countingKind) fold(f *File, _ uint64) error { return k.foldable(f) }
