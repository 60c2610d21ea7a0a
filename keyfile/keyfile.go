// Package keyfile reads keys, one per line, as the bloomcast command
// reads them for build, add, query and the other commands that take keys:
// text compressed with gzip (RFC 1952) or zstd (RFC 8878) is recognised
// by its first bytes and read decompressed; a line's ending ("\n" or
// "\r\n") is dropped and empty lines are skipped; a line longer than a
// limit is an error, so that a file that is not a key file does not
// become one huge key; and NUL bytes near the start, which text does not
// have, are reported so that the caller can warn. Inputs reads several
// files, and standard input, in turn, saying where each key was read.
//
// It also counts distinct keys by their hashes (Distinct), the count a
// filter is sized for when it is built from keys read rather than from a
// given number.
package keyfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// DefaultMaxKeyBytes is the longest key line a Scanner accepts unless
// Options.MaxKeyBytes says otherwise: 1 MiB.
const DefaultMaxKeyBytes = 1 << 20

// BinaryWindow is how much of the text's start (after decompression) is
// checked for NUL bytes (Scanner.Binary).
const BinaryWindow = 4 << 10

// maxKeyLimit caps Options.MaxKeyBytes: 1 TiB, beyond any buffer.
const maxKeyLimit = 1 << 40

// MaxZstdWindow is the largest window a zstd key file may declare: 128
// MiB (window log 27), the most the reference zstd decoder accepts
// without --memory or --long=N. A decoder allocates the window a frame
// declares before it decodes a byte, so a larger limit would let a file
// of a few bytes cost that much memory (klauspost/compress's own default,
// 512 MiB, made a 15-byte file allocate 513 MB). A frame over the limit
// is an error wrapping zstd.ErrWindowSizeExceeded.
const MaxZstdWindow = 128 << 20

// Magic numbers: gzip (RFC 1952) and a zstd frame (RFC 8878).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Options tunes a Scanner. The zero value is the default: lines up to
// DefaultMaxKeyBytes.
type Options struct {
	// MaxKeyBytes is the longest key line, without its line ending; a
	// longer line is a *TooLongError. 0 means DefaultMaxKeyBytes; values
	// above 1 TiB are taken as 1 TiB.
	MaxKeyBytes uint64
}

// maxKey is the limit o sets.
func (o Options) maxKey() int {
	if o.MaxKeyBytes == 0 {
		return DefaultMaxKeyBytes
	}
	return int(min(o.MaxKeyBytes, maxKeyLimit))
}

// A TooLongError is a line longer than Options.MaxKeyBytes. The zero
// value is usable: a limit of 0 bytes.
type TooLongError struct {
	Max int // the limit, in bytes
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("keyfile: line longer than %d bytes", e.Max)
}

// A LineError is an error about one line of the input: Scanner.Err
// returns one wrapping a *TooLongError for a line too long. The zero
// value is usable (line 0, and a nil Err prints as "<nil>").
type LineError struct {
	Line int // 1-based, counting empty lines
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// A Scanner reads keys: each non-empty line of its text, without the line
// ending. It is made by NewScanner; the zero value is not usable (Scan
// reports false and Err ErrNotOpen; so does a nil *Scanner). Close it
// to release the decompressor.
type Scanner struct {
	sc     *bufio.Scanner
	closer func()
	max    int
	line   int
	key    []byte
	err    error
	binary bool
	closed bool
}

// ErrNotOpen is the error of a Scanner not made by NewScanner.
var ErrNotOpen = errors.New("keyfile: scanner not made by NewScanner")

// NewScanner returns a Scanner of the keys in r, decompressed if r starts
// with gzip's or zstd's magic number. It reads the first bytes of r (up to
// BinaryWindow of its text) before it returns. An error is one of a
// compressed stream's header.
func NewScanner(r io.Reader, opt Options) (*Scanner, error) {
	text, closer, err := Decompress(r)
	if err != nil {
		return nil, err
	}
	br, ok := text.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(text, 64<<10)
	}
	s := &Scanner{closer: closer, max: opt.maxKey()}
	if start, _ := br.Peek(BinaryWindow); bytes.IndexByte(start, 0) >= 0 {
		s.binary = true
	}
	s.sc = bufio.NewScanner(br)
	// Room for the longest key and its "\r\n"; longer lines fail in Scan.
	s.sc.Buffer(make([]byte, 0, min(64<<10, s.max+2)), s.max+2)
	return s, nil
}

// stickyEOF reads r until r reports io.EOF, and then reports io.EOF
// without reading r again. A terminal reports the end of input once per
// Ctrl-D and then waits for more; the peeks at the start of the input
// (the magic numbers, the binary window) would otherwise take that end
// and make the user press Ctrl-D a second time.
type stickyEOF struct {
	r   io.Reader
	eof bool
}

func (s *stickyEOF) Read(p []byte) (int, error) {
	if s.eof {
		return 0, io.EOF
	}
	n, err := s.r.Read(p)
	if err == io.EOF {
		s.eof = true
	}
	return n, err
}

// Decompress returns the text of r: decompressed if r starts with gzip's
// or zstd's magic number, else r's bytes as they are. The returned
// function releases the decompressor. It reads the first bytes of r
// before it returns; an error is one of a compressed stream's header.
func Decompress(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(&stickyEOF{r: r}, 64<<10)
	head, _ := br.Peek(len(zstdMagic))
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() {}, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxZstdWindow))
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return br, func() {}, nil
}

// Binary reports whether the text's first BinaryWindow bytes hold a NUL
// byte: binary data, seldom meant as keys.
func (s *Scanner) Binary() bool { return s != nil && s.binary }

// Scan advances to the next key, which Key then returns. It reports false
// at the end of the input or on an error, which Err then returns.
func (s *Scanner) Scan() bool {
	if s == nil {
		return false
	}
	if s.sc == nil {
		s.err = ErrNotOpen
		return false
	}
	if s.err != nil || s.closed {
		return false
	}
	for s.sc.Scan() { // ScanLines drops the "\n" and a "\r" before it
		s.line++
		key := s.sc.Bytes()
		if len(key) > s.max {
			s.err = &LineError{Line: s.line, Err: &TooLongError{Max: s.max}}
			return false
		}
		if len(key) > 0 {
			s.key = key
			return true
		}
	}
	s.key = nil
	if err := s.sc.Err(); err != nil {
		switch {
		case errors.Is(err, bufio.ErrTooLong):
			err = &LineError{Line: s.line + 1, Err: &TooLongError{Max: s.max}}
		case errors.Is(err, zstd.ErrWindowSizeExceeded):
			err = fmt.Errorf("keyfile: a zstd window over %d MiB (decompress it first, with zstd -d --long=31): %w", MaxZstdWindow>>20, err)
		}
		s.err = err
	}
	return false
}

// Key is the key Scan found, valid until the next Scan.
func (s *Scanner) Key() []byte {
	if s == nil {
		return nil
	}
	return s.key
}

// Line is the number of the line Key came from, 1-based, counting empty
// lines.
func (s *Scanner) Line() int {
	if s == nil {
		return 0
	}
	return s.line
}

// Err is the error that stopped Scan: nil at the end of the input, a
// *LineError (wrapping a *TooLongError) for a line too long, else the
// error of reading or decompressing.
func (s *Scanner) Err() error {
	if s == nil {
		return ErrNotOpen
	}
	return s.err
}

// Close releases the decompressor; Scan then reports false.
func (s *Scanner) Close() {
	if s == nil {
		return
	}
	if s.closer != nil && !s.closed {
		s.closer()
	}
	s.closed = true
}
