package anyfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/hashing"
)

// squidKind is a Squid Cache Digest (formats/squid), recognised by its
// own header. Its keys are store keys of URLs requested with GET.
type squidKind struct {
	none
	d *squid.Digest
}

func (*squidKind) Kind() Kind { return Squid }

// structures: the digest, and its mask, which what reads Bloom filters
// reads too.
func (k *squidKind) structures() []any { return []any{k.d, k.d.Filter} }

// readSquid reads a Squid Cache Digest body (what a Squid serves at
// /squid-internal-periodic/store_digest).
func readSquid(br *bufio.Reader, lim envelope.Limits) (*File, error) {
	d, err := squid.Read(br, squidLimits(lim))
	if err != nil {
		return nil, err
	}
	if err := expectEOF(br); err != nil {
		return nil, err
	}
	h := envelope.Header{Version: d.Header.Version, Scheme: uint8(hashing.SquidMD5)}
	return &File{Header: h, Size: int64(d.EncodedSize()), k: &squidKind{d: d}, format: FormatSquid}, nil
}

// squidLimits are the limits a Squid digest is read with: its mask
// within the payload limit, and full digests taken, to be inspected.
func squidLimits(lim envelope.Limits) squid.Limits {
	return squid.Limits{MaxMask: uint32(min(lim.Payload(), 1<<31-1)), AllowFull: true}
}

// readSniffedSquid reads a file whose first bytes squid.Sniff takes for a
// Squid digest's header. That test is loose, so that a damaged digest
// gets Squid's own error; a Guava MURMUR128_MITZ_32 stream of 65536 words
// or more passes it too when its 22nd byte is 4 (its strategy byte and k
// read as a version). So when the header is not a valid Squid header,
// the bytes are read as another program's filter if one of them fits
// exactly, and the Squid header's error is returned if none does.
func readSniffedSquid(br *bufio.Reader, head []byte, opt Options) (*File, error) {
	_, herr := squid.ParseHeader(head, squidLimits(opt.Limits))
	if herr == nil {
		return readSquid(br, opt.Limits)
	}
	f, err := readForeign(br, 0, opt)
	if errors.Is(err, ErrMagic) {
		return nil, herr
	}
	return f, err
}

// contains canonicalises key as Squid does; a key that is not an
// absolute URL is hashed as given.
func (k *squidKind) contains(_ *File, key []byte) (bool, error) {
	u, err := squid.CanonicalURL(string(key))
	if err != nil {
		u = string(key)
	}
	return k.d.ContainsKey(squid.StoreKeyCanonical(squid.GET, u)), nil
}

func (k *squidKind) add(_ *File, key []byte) error {
	if err := k.d.Add(squid.GET, string(key)); err != nil {
		return fmt.Errorf("key %q: %w (a Squid digest holds URLs)", key, err)
	}
	return nil
}

func (k *squidKind) encoding(*File, digest.Codec) (io.WriterTo, error) { return k.d, nil }

// combine ORs (or ANDs) the masks; the header then sums the deletions
// and takes the count estimated from the bits.
func (k *squidKind) combine(_, g *File, intersect bool) error {
	o := kindOf[*squidKind](g)
	if err := combineBits(k.d.Filter, o.d.Filter, intersect); err != nil {
		return err
	}
	h := &k.d.Header
	h.DelCount = uint32(min(uint64(h.DelCount)+uint64(o.d.Header.DelCount), math.MaxInt32))
	h.Count = uint32(min(math.Round(k.d.Filter.EstimateCount()), math.MaxInt32))
	return nil
}

func (*squidKind) foldable(*File) error {
	return errorf("a Squid cache digest cannot be folded: Squid takes its bit positions modulo the mask size, so halving the mask moves them")
}

func (k *squidKind) fold(f *File, _ uint64) error { return k.foldable(f) }
