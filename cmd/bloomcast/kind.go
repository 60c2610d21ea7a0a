package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/squid"
)

// Every command that writes a filter writes it back as the kind it read
// (a Bloom filter, a counting filter, a Squid cache digest), with the
// codec and sequence number it read, or refuses without writing: a file
// never silently turns into another kind.

// kind names what lf holds, for messages.
func (lf *loadedFilter) kind() string {
	switch {
	case lf.other != nil:
		return lf.other.kind()
	case lf.squid != nil:
		return "a Squid cache digest"
	case lf.counting != nil:
		return "a counting filter"
	}
	return "a Bloom filter"
}

// codec is the codec lf was read with, as a digest.Codec: for a digest
// coded in pieces, the codec of its pieces.
func (lf *loadedFilter) codec() digest.Codec {
	if lf.view != nil {
		return lf.view.Codec()
	}
	switch lf.header.Codec {
	case envelope.CodecArith:
		return digest.Arith
	case envelope.CodecFast:
		return digest.Fast
	}
	return digest.Raw
}

// encoding returns what writing lf back writes: a Squid digest body, or a
// bloomcast frame with lf's sequence coded by codec.
func (lf *loadedFilter) encoding(codec digest.Codec) (io.WriterTo, error) {
	if lf.squid != nil {
		return lf.squid, nil
	}
	if lf.other != nil {
		return lf.other.writer()
	}
	return lf.encodeAs(lf.digest(), codec)
}

// encodeAs encodes d, a digest of lf's kind, with codec: in pieces of lf's
// size when lf was read in pieces and codec is theirs, else as one stream.
func (lf *loadedFilter) encodeAs(d *digest.Digest, codec digest.Codec) (io.WriterTo, error) {
	var b []byte
	var err error
	if lf.view != nil && codec == lf.codec() {
		b, err = digest.EncodePieces(d, codec, lf.view.PieceBytes())
	} else {
		b, err = digest.Encode(d, codec)
	}
	if err != nil {
		return nil, fileErr(lf.path, err)
	}
	return frameBytes(b), nil
}

// writeBack writes lf to out as the kind, codec and sequence it was read
// with.
func (e *env) writeBack(out string, lf *loadedFilter) error {
	w, err := lf.encoding(lf.codec())
	if err != nil {
		return err
	}
	return e.writeFilter(out, w)
}

// adder returns the function that adds a key to lf: for a Squid digest
// the store key of the URL requested with GET (canonicalised as Squid
// does; a key that is not an absolute URL is an error, as in build
// --squid), else the key's bytes.
func (lf *loadedFilter) adder() func(key []byte) error {
	switch {
	case lf.other != nil:
		d := lf.other.deletion
		return func(key []byte) error { d.Add(key); return nil }
	case lf.squid != nil:
		d := lf.squid
		return func(key []byte) error {
			if err := d.Add(squid.GET, string(key)); err != nil {
				return fmt.Errorf("key %q: %w (a Squid digest holds URLs)", key, err)
			}
			return nil
		}
	case lf.counting != nil:
		cf := lf.counting
		return func(key []byte) error { cf.Add(key); return nil }
	}
	f := lf.filter
	return func(key []byte) error { f.Add(key); return nil }
}

// combineWith applies union (or, with intersect, intersection) of next
// to lf, both of one kind. Counting filters are merged (their counters
// summed); they have no intersection. Squid digests of one mask size OR
// or AND their masks; the header keeps lf's capacity and sizes, sums the
// deletions, and takes the count estimated from the bits.
func (lf *loadedFilter) combineWith(next *loadedFilter, intersect bool) error {
	if lf.kind() != next.kind() {
		return fmt.Errorf("%s, and %s is %s: only filters of one kind combine", next.kind(), displayName(lf.path), lf.kind())
	}
	if lf.counting != nil {
		if intersect {
			return errors.New("counting filters have no intersection here (the smaller of two counters is not a count of the keys in both)")
		}
		return lf.counting.Merge(next.counting)
	}
	if err := lf.filter.Compatible(next.filter); err != nil {
		return fmt.Errorf("cannot combine with %s: %w", displayName(lf.path), err)
	}
	op := lf.filter.Union
	if intersect {
		op = lf.filter.Intersect
	}
	if err := op(next.filter); err != nil {
		return err
	}
	if d := lf.squid; d != nil {
		d.Header.DelCount = uint32(min(uint64(d.Header.DelCount)+uint64(next.squid.Header.DelCount), math.MaxInt32))
		d.Header.Count = uint32(min(math.Round(lf.filter.EstimateCount()), math.MaxInt32))
	}
	return nil
}

// foldable refuses to fold what cannot be folded without changing kind.
func (lf *loadedFilter) foldable() error {
	switch {
	case lf.squid != nil:
		return errors.New("a Squid cache digest cannot be folded: Squid takes its bit positions modulo the mask size, so halving the mask moves them")
	case lf.counting != nil:
		return errors.New("a counting filter cannot be folded (its counters would have to be summed in pairs, and a key's count would mix with others')")
	}
	return nil
}
