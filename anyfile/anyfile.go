// Package anyfile reads any file bloomcast writes and says what it holds:
// a Bloom filter, a counting filter, a Squid Cache Digest, a delta digest,
// a deletion filter, a fingerprint set, a Bloomier filter, a ribbon
// filter, a multilevel hash table or one of its summaries, a scalable
// Bloom filter, or a static digest. Bloomcast files are framed by
// package envelope, whose header names the structure; a Squid digest is
// recognised by its own header. Raw, compressed and piecewise-coded
// digests are all read (package digest).
//
// It reads the Bloom filters of other programs too, each in its own
// format (a Format; Read detects it, Options.Format forces it): Guava's
// BloomFilter.writeTo streams (package formats/guava) and
// bits-and-blooms/bloom/v3's binary and JSON forms (package
// formats/bitsandblooms). Their keys are hashed as those programs hash
// them (Options.Keys: Guava's string or long funnel), and they are
// written back in the format they were read in. Convert changes a file's
// format only where nothing is lost, and says why not otherwise.
//
// A File answers membership queries for every kind, takes keys where the
// kind can, and is written back as the kind, codec and sequence it was
// read with, so a file never silently turns into another kind. Update
// does that in place: under an exclusive lock, keeping the file's mode,
// owner and group, or refusing and leaving the file as it was (package
// inplace). Union, Intersect and Fold combine files of one kind.
//
// The input is untrusted: the envelope checks every length before
// allocating, and a regular file's payload limit is raised to the file's
// own size only (a frame cannot hold more than the bytes present).
package anyfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/formats/squid"
)

// An Error is a problem anyfile found with a file's content or with
// what is asked of it; Err says what. Errors of the packages below
// (envelope, digest, bloom, …) are returned as they are. The zero value
// prints as "anyfile: <nil>".
type Error struct {
	Err error
}

func (e *Error) Error() string { return "anyfile: " + fmt.Sprint(e.Err) }
func (e *Error) Unwrap() error { return e.Err }

func errorf(format string, a ...any) error { return &Error{fmt.Errorf(format, a...)} }

// Errors of reading, wrapped in an *Error.
var (
	ErrEmpty    = errors.New("empty input, not a bloomcast filter")
	ErrMagic    = errors.New("not a bloomcast filter, a Squid cache digest, or a Guava or bits-and-blooms filter (no format's header matches)")
	ErrTrailing = errors.New("unexpected bytes after the filter")
)

// A File is what a bloomcast file (or a Squid digest, or another
// program's filter) holds, with what its frame said: one structure, of
// the kind Kind says, which File's methods query, change and write back
// as that kind does, and which As returns for what only that kind has.
// Read makes Files; the zero value holds nothing (Kind 0) and its
// methods return errors.
type File struct {
	// Header is the frame's header; for a Squid digest, only its
	// version and hashing scheme (hashing.SquidMD5); zero for another
	// program's filter.
	Header envelope.Header
	// Size is the bytes of the encoding.
	Size int64
	// Keys is how Contains and Add hash the keys of a Guava or Parquet
	// filter (Options.Keys); the other kinds take KeyString only.
	Keys KeyType

	k      kind   // what f holds, as its kind's type; nil: nothing
	format Format // as read; see Format
}

// Options says how to read a file. The zero value reads every kind
// within the envelope's default limits.
type Options struct {
	// Limits bounds the payload; ReadFile raises it to the size of a
	// larger regular file.
	Limits envelope.Limits
	// LazyPieces keeps a Bloom filter coded in pieces as digest.Pieces
	// (As), decoding pieces only as queries need them.
	LazyPieces bool
	// Format, if not 0, is the format the file must be in; 0 detects it.
	Format Format
	// Keys says how keys are hashed by a Guava filter (File.Keys); any
	// other KeyType than KeyString makes Read refuse the other kinds.
	Keys KeyType
}

// Read reads one file's content from r: a bloomcast frame of any type, a
// Squid Cache Digest (even one too full for Squid to use), or a filter of
// another program's format; opt.Format forces the format, else it is
// detected from the bytes. Nothing may follow the filter.
func Read(r io.Reader, opt Options) (*File, error) {
	f, err := readFormat(r, opt)
	if err != nil {
		return nil, err
	}
	f.Keys = opt.Keys
	if err := f.checkKeys(); err != nil {
		return nil, err
	}
	return f, nil
}

// readFormat is Read, less the check of the key type.
func readFormat(r io.Reader, opt Options) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(squid.HeaderSize)
	switch {
	case len(head) == 0:
		return nil, &Error{ErrEmpty}
	case opt.Format == FormatSquid:
		return readSquid(br, opt.Limits)
	case opt.Format == 0 && !envelope.Sniff(head) && squid.Sniff(head):
		return readSniffedSquid(br, head, opt)
	case opt.Format == FormatParquet, opt.Format == 0 && parquet.SniffFile(head):
		return readParquet(r, br, opt)
	case opt.Format.foreign():
		return readForeign(br, opt.Format, opt)
	case opt.Format != 0 && opt.Format != FormatBloomcast:
		return nil, errorf("unknown format %v", opt.Format)
	}
	if magic := head[:min(len(head), len(envelope.Magic))]; !strings.HasPrefix(envelope.Magic, string(magic)) {
		if opt.Format == FormatBloomcast {
			return nil, errorf("not a bloomcast frame (bad magic)")
		}
		return readForeign(br, 0, opt)
	}
	h, payload, n, err := envelope.Read(br, opt.Limits)
	if err != nil {
		return nil, err
	}
	if err := expectEOF(br); err != nil {
		return nil, err
	}
	f := &File{Header: h, Size: n, format: FormatBloomcast}
	if err := f.decode(payload, opt); err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile reads the file at path as Read does, with the payload limit
// raised to the file's size if it is a larger regular file.
func ReadFile(path string, opt Options) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// Read only: everything read was checked, so closing changes nothing.
	defer func() { _ = fh.Close() }()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errorf("%s is a directory", path)
	}
	return Read(fh, RaiseLimit(opt, fi))
}

// RaiseLimit returns opt with its payload limit raised to the size of
// fi, if fi describes a regular file larger than the limit.
func RaiseLimit(opt Options, fi os.FileInfo) Options {
	if fi != nil && fi.Mode().IsRegular() {
		opt.Limits.MaxPayload = max(uint64(fi.Size()), opt.Limits.Payload())
	}
	return opt
}

// decode decodes the frame's payload into f, as its type says
// (frameDecoders).
func (f *File) decode(payload []byte, opt Options) error {
	dec := frameDecoders[f.Header.Type]
	if dec == nil {
		return errorf("holds a structure of %v, which this bloomcast does not know", f.Header.Type)
	}
	return dec(f, payload, opt)
}

// expectEOF fails if anything follows the structure just read.
func expectEOF(br *bufio.Reader) error {
	switch _, err := br.ReadByte(); {
	case err == nil:
		return &Error{ErrTrailing}
	case err != io.EOF:
		return err
	}
	return nil
}

// Format is the format f was read in: FormatBloomcast, FormatSquid, or
// another program's; 0 for a File that holds nothing.
func (f *File) Format() Format {
	switch {
	case f.Kind() == 0:
		return 0
	case f.format != 0:
		return f.format
	}
	return FormatBloomcast
}

// Foreign reports whether f holds a filter of another program's format
// (Guava, bits-and-blooms).
func (f *File) Foreign() bool { return f.Format().foreign() }

// codecOf is the digest.Codec that writes frames of codec c (Raw for raw
// and unknown codecs).
func codecOf(c envelope.Codec) digest.Codec {
	switch c {
	case envelope.CodecArith:
		return digest.Arith
	case envelope.CodecFast:
		return digest.Fast
	}
	return digest.Raw
}

// errEmptyFile is the error of a File that holds nothing.
var errEmptyFile = errorf("the File holds nothing (not made by Read)")

// Contains asks f about key. A Bloom or counting filter: is it maybe in
// the set; a Squid digest holds store keys, so there the key is a URL
// requested with GET (canonicalised as Squid does; a key that is not an
// absolute URL is hashed as given, and so is absent from any digest a
// Squid made); a deletion filter: in the added filter and not the
// removed one; a fingerprint set: its fingerprint is there; a ribbon
// filter: the key's row gives its fingerprint; a Bloomier
// filter or a table: the key has a value; a summary: it names a
// sub-table for the key, hashed with seed 0 as summary frames are; a
// filter of another program's format: as that program answers, the key
// hashed as f.Keys says. An error is a piece of a View that did not
// decode, a delta digest, which answers nothing, or a key that is not of
// f.Keys' type.
func (f *File) Contains(key []byte) (bool, error) { return f.kind().contains(f, key) }

// Add adds key: to a Bloom, counting or scalable filter (not to the copy of a
// counting filter's bit view that As gives, which stays as read; a scalable
// filter grows a layer when its newest is full), to a deletion filter's added keys, or for a Squid
// digest the store key of the URL requested with GET (canonicalised as
// Squid does; a key that is not an absolute URL is an error), or to a
// filter of another program's format as that program adds it (f.Keys).
// The other kinds take no keys. A Bloom filter read lazily in pieces is
// decoded first.
func (f *File) Add(key []byte) error { return f.kind().add(f, key) }

// article is "a " and the kind's name.
func article(k Kind) string { return "a " + k.String() }

// Codec is the codec f was read with, as a digest.Codec: for a digest
// coded in pieces, the codec of its pieces; for a scalable filter, its
// layers' codec (Auto when they differ); Raw for anything else that is
// not compressed.
func (f *File) Codec() digest.Codec {
	if f == nil {
		return digest.Raw
	}
	return f.kind().codec(f)
}

// EntropyBits is the structure's m·H(p̂) (for counters their order-0
// entropy): what no coder of the model beats. It is set for Bloom,
// counting and scalable filters read whole, and 0 for the others.
func (f *File) EntropyBits() float64 { return f.kind().entropyBits() }

// Digest returns a Bloom, counting or scalable filter as a
// digest.Digest, with the sequence and codec it was read with; nil for
// the other kinds.
func (f *File) Digest() *digest.Digest { return f.kind().digest(f) }

// PayloadBytes is the size of the frame's payload: the encoding less the
// frame's header, parameters and checksum.
func (f *File) PayloadBytes() int64 {
	if f == nil {
		return 0
	}
	return f.Size - int64(envelope.HeaderSize+len(f.Header.Params)+envelope.TrailerSize)
}

// Frame is an encoded frame (or Squid digest body), written as it is.
// The zero value is an empty frame, which writes nothing.
type Frame []byte

// WriteTo writes b to w.
func (b Frame) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

// Encoding returns what writing f back with codec writes: a Squid
// digest body, a deletion filter's frame, or a Bloom, counting or
// scalable filter's digest with f's sequence coded by codec (in pieces of f's
// size when f was read in pieces and codec is theirs), or a filter of
// another program's format in that format (codec does not apply). The
// other kinds are not written back.
func (f *File) Encoding(codec digest.Codec) (io.WriterTo, error) {
	return f.kind().encoding(f, codec)
}

// EncodeDigest encodes d, a digest of f's kind (a new version of f's
// filter, say), with codec: in pieces of f's size when f was read in
// pieces and codec is theirs, else as one stream.
func (f *File) EncodeDigest(d *digest.Digest, codec digest.Codec) (Frame, error) {
	if p, ok := As[*digest.Pieces](f); ok && codec == f.Codec() {
		return digest.EncodePieces(d, codec, p.PieceBytes())
	}
	return digest.Encode(d, codec)
}

// WriteTo writes f as the kind, format, codec and sequence it was read
// with.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	e, err := f.Encoding(f.Codec())
	if err != nil {
		return 0, err
	}
	return e.WriteTo(w)
}
