package main

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/squid"
)

// loadedFilter is a filter read from a file, with what its frame said.
type loadedFilter struct {
	path   string          // as given; "-" is standard input
	header envelope.Header // the frame's header
	size   int64           // bytes of the encoding
	// filter is the Bloom filter: the file's own, or for a counting
	// filter a copy of its bit view, so that every command that reads
	// Bloom filters also reads counting ones (commands that write write
	// the counting filter, see kind.go).
	filter *bloom.Filter
	// counting is the counting filter, nil for a Bloom filter file.
	counting *counting.Filter
	// squid is the Squid Cache Digest, nil for bloomcast files. Its mask
	// is filter, with Squid's MD5 probes.
	squid *squid.Digest
	// delta is set, and filter is nil, for a delta digest (only open
	// returns those; openFilter refuses them).
	delta *digest.Delta
	// other is set, and filter is nil, for any other structure: a
	// deletion filter, a fingerprint set, a Bloomier filter, a multilevel
	// hash table or summary (structs.go; openFilter refuses those).
	other *structure
	// view is set for a digest coded in pieces (codec 3); with
	// openWith's lazyPieces, filter is then nil and queries decode only the
	// pieces they need. viewErr is the first piece that did not decode.
	view    *digest.View
	viewErr error
	// entropyBits is the structure's m·H(p̂) (or the counters' order-0
	// entropy), the yardstick inspect compares the payload with.
	entropyBits float64
}

// digest returns the structure as a digest.Digest, with its sequence.
func (lf *loadedFilter) digest() *digest.Digest {
	d := &digest.Digest{Sequence: lf.header.Sequence, Codec: lf.header.Codec}
	if lf.counting != nil {
		d.Counting = lf.counting
	} else {
		d.Bloom = lf.filter
	}
	return d
}

// payloadBytes is the size of the frame's payload: the encoding less the
// frame's header, parameters and checksum.
func (lf *loadedFilter) payloadBytes() int64 {
	return lf.size - int64(envelope.HeaderSize+len(lf.header.Params)+envelope.TrailerSize)
}

// contains asks the filter about a key. Squid digests hold store keys, so
// there the key is a URL requested with GET (canonicalised as Squid does;
// a key that is not an absolute URL is hashed as given, and so is absent
// from any digest a Squid made).
func (lf *loadedFilter) contains(key []byte) bool {
	if lf.other != nil {
		return lf.other.contains(key)
	}
	if lf.filter == nil && lf.view != nil {
		in, err := lf.view.Contains(key)
		if err != nil && lf.viewErr == nil {
			lf.viewErr = fileErr(lf.path, err)
		}
		return in
	}
	if lf.squid == nil {
		return lf.filter.Contains(key)
	}
	u, err := squid.CanonicalURL(string(key))
	if err != nil {
		u = string(key)
	}
	return lf.squid.ContainsKey(squid.StoreKeyCanonical(squid.GET, u))
}

// openFilter reads the filter at path ("-": standard input). Every command
// that reads a filter goes through here, so a new encoding or structure
// type plugs in at this one place. Compressed digests are read directly;
// a delta digest is refused with a pointer to patch.
func (e *env) openFilter(path string) (*loadedFilter, error) {
	lf, err := e.openAny(path)
	if err == nil && lf.other != nil {
		err = refuseStructure(lf)
	}
	if err != nil {
		return nil, err
	}
	return lf, nil
}

// open reads a filter or a delta digest at path.
//
// The input is untrusted: the envelope checks every length before
// allocating and grows its buffer only as bytes arrive; the payload limit
// is the envelope's default, raised to the file's own size for a larger
// regular file (a frame cannot hold more than the bytes present); and
// nothing may follow the frame.
func (e *env) open(path string) (*loadedFilter, error) { return e.openWith(path, false) }

// openWith is open; with lazyPieces a digest coded in pieces is kept as a
// digest.View, not decoded (query).
func (e *env) openWith(path string, lazyPieces bool) (*loadedFilter, error) {
	var r io.Reader = e.stdin
	var lim envelope.Limits
	if path != "-" {
		f, fi, closeFile, err := e.openInput(path)
		if err != nil {
			return nil, err
		}
		defer closeFile()
		if fi.Mode().IsRegular() {
			lim.MaxPayload = max(uint64(fi.Size()), envelope.DefaultMaxPayload)
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(squid.HeaderSize); !envelope.Sniff(head) && squid.Sniff(head) {
		return openSquid(path, br, lim)
	}
	switch magic, _ := br.Peek(len(envelope.Magic)); {
	case len(magic) == 0:
		return nil, fileErr(path, errors.New("empty input, not a bloomcast filter"))
	case !strings.HasPrefix(envelope.Magic, string(magic)):
		return nil, fileErr(path, errors.New("not a bloomcast filter or a Squid cache digest (bad magic)"))
	}
	h, payload, n, err := envelope.Read(br, lim)
	if err != nil {
		return nil, fileErr(path, err)
	}
	if err := expectEOF(br); err != nil {
		return nil, fileErr(path, err)
	}
	lf := &loadedFilter{path: path, header: h, size: n}
	switch h.Type {
	case envelope.TypeBloom, envelope.TypeCounting:
		if h.Type == envelope.TypeBloom && h.Codec == envelope.CodecPieces {
			if lf.view, err = digest.NewView(h, payload, lim, 0); err != nil || lazyPieces {
				break
			}
		}
		var d *digest.Digest
		if d, err = digest.FromFrame(h, payload, lim); err != nil {
			break
		}
		lf.filter, lf.counting, lf.entropyBits = d.Bloom, d.Counting, d.EntropyBits()
		if d.Counting != nil {
			lf.filter = d.Counting.BitView().Clone()
		}
	case envelope.TypeDelta:
		lf.delta, err = digest.DeltaFromFrame(h, payload, lim)
	default:
		lf.other, err = openStructure(h, payload)
	}
	if err != nil {
		return nil, fileErr(path, err)
	}
	return lf, nil
}

// openSquid reads a Squid Cache Digest body (what a Squid serves at
// /squid-internal-periodic/store_digest). A digest too full for Squid to
// use is still read, so that inspect can show it.
func openSquid(path string, br *bufio.Reader, lim envelope.Limits) (*loadedFilter, error) {
	d, err := squid.Read(br, squid.Limits{MaxMask: uint32(min(lim.Payload(), 1<<31-1)), AllowFull: true})
	if err != nil {
		return nil, fileErr(path, err)
	}
	if err := expectEOF(br); err != nil {
		return nil, fileErr(path, err)
	}
	h := envelope.Header{Version: d.Header.Version, Scheme: uint8(hashing.SquidMD5)}
	return &loadedFilter{path: path, header: h, size: int64(d.EncodedSize()), filter: d.Filter, squid: d}, nil
}

// expectEOF fails if anything follows the structure just read.
func expectEOF(br *bufio.Reader) error {
	switch _, err := br.ReadByte(); {
	case err == nil:
		return errors.New("unexpected bytes after the filter")
	case err != io.EOF:
		return err
	}
	return nil
}

// writeFilter writes f, a bloom or counting filter, to path ("-":
// standard output, refused if it is a terminal unless --force). A file is
// written atomically by writeFile: readers see the old filter or the new
// one, never a part.
func (e *env) writeFilter(path string, f io.WriterTo) error {
	if path != "-" {
		return e.writeFile(path, f)
	}
	if isTerminal(e.stdout) && !e.force {
		return fileErr(outputName(path), errors.New("is a terminal: binary output refused (redirect it, or add --force)"))
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	_, err := f.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fileErr(outputName(path), err)
	}
	return nil
}
