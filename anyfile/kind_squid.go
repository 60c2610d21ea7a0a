package anyfile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/hashing"
)

// squidKind is a Squid Cache Digest (formats/squid), recognised by its
// own header: File.Squid, its mask also in File.Bloom. Its keys are
// store keys of URLs requested with GET.
type squidKind struct{ none }

func (squidKind) structures(f *File) []any { return []any{f.Squid, f.Bloom} }

// readSquid reads a Squid Cache Digest body (what a Squid serves at
// /squid-internal-periodic/store_digest).
func readSquid(br *bufio.Reader, lim envelope.Limits) (*File, error) {
	d, err := squid.Read(br, squid.Limits{MaxMask: uint32(min(lim.Payload(), 1<<31-1)), AllowFull: true})
	if err != nil {
		return nil, err
	}
	if err := expectEOF(br); err != nil {
		return nil, err
	}
	h := envelope.Header{Version: d.Header.Version, Scheme: uint8(hashing.SquidMD5)}
	return &File{Header: h, Size: int64(d.EncodedSize()), Bloom: d.Filter, Squid: d, format: FormatSquid}, nil
}

// contains canonicalises key as Squid does; a key that is not an
// absolute URL is hashed as given.
func (squidKind) contains(f *File, key []byte) (bool, error) {
	u, err := squid.CanonicalURL(string(key))
	if err != nil {
		u = string(key)
	}
	return f.Squid.ContainsKey(squid.StoreKeyCanonical(squid.GET, u)), nil
}

func (squidKind) add(f *File, key []byte) error {
	if err := f.Squid.Add(squid.GET, string(key)); err != nil {
		return fmt.Errorf("key %q: %w (a Squid digest holds URLs)", key, err)
	}
	return nil
}

func (squidKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) { return f.Squid, nil }

func (squidKind) combine(f, g *File, intersect bool) error { return combineBits(f, g, intersect) }

func (squidKind) foldable(*File) error {
	return errorf("a Squid cache digest cannot be folded: Squid takes its bit positions modulo the mask size, so halving the mask moves them")
}

func (k squidKind) fold(f *File, _ uint64) error { return k.foldable(f) }
