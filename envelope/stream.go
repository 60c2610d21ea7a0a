package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/internal/readn"
)

// Writer writes one frame to an io.Writer, computing the checksum as the
// payload streams through, so a large structure need not be copied into one
// buffer first.
//
// The zero Writer is not usable: its Write and Close return an error
// (make one with NewWriter).
type Writer struct {
	w   io.Writer
	crc uint32
	n   int64
	err error
}

// errZeroWriter is the error of a zero Writer.
var errZeroWriter = fmt.Errorf("%w: zero Writer; use NewWriter", ErrInvalid)

// NewWriter writes the frame header for a payload of payloadLen bytes and
// returns a Writer for the payload. The caller writes exactly payloadLen
// bytes and then calls Close.
func NewWriter(w io.Writer, h *Header, payloadLen uint64) (*Writer, error) {
	if w == nil || h == nil {
		return nil, fmt.Errorf("%w: nil io.Writer or Header", ErrInvalid)
	}
	head, err := AppendHeader(make([]byte, 0, HeaderSize+len(h.Params)), h, payloadLen)
	if err != nil {
		return nil, err
	}
	fw := &Writer{w: w}
	_, _ = fw.Write(head) // a failure is kept in fw.err, returned below
	return fw, fw.err
}

// Write writes payload bytes.
func (fw *Writer) Write(p []byte) (int, error) {
	if fw.w == nil && fw.err == nil {
		fw.err = errZeroWriter
	}
	if fw.err != nil {
		return 0, fw.err
	}
	n, err := fw.w.Write(p)
	fw.crc = UpdateChecksum(fw.crc, p[:n])
	fw.n += int64(n)
	fw.err = err
	return n, err
}

// Close writes the checksum trailer. It does not close the underlying writer.
func (fw *Writer) Close() error {
	var t [TrailerSize]byte
	binary.LittleEndian.PutUint32(t[:], fw.crc)
	_, _ = fw.Write(t[:]) // a failure is kept in fw.err, returned below
	return fw.err
}

// Count returns the bytes written so far.
func (fw *Writer) Count() int64 { return fw.n }

// Read reads one frame from r and returns its header and payload. It reads
// exactly the frame's bytes and no more. The payload buffer grows as bytes
// arrive, so a lying length costs at most the bytes really sent.
// The returned count is the number of bytes consumed.
func Read(r io.Reader, lim Limits) (Header, []byte, int64, error) {
	head := make([]byte, HeaderSize, HeaderSize+64)
	n, err := io.ReadFull(r, head)
	if err != nil {
		return Header{}, nil, int64(n), truncated(err, "header")
	}
	f, err := parseFixed(head, lim)
	if err != nil {
		return Header{}, nil, int64(n), err
	}
	body, err := readn.Append(head, r, uint64(f.paramsLen)+f.payloadLen+TrailerSize)
	read := int64(len(body))
	if err != nil {
		return Header{}, nil, read, truncated(err, "body")
	}
	end := len(body) - TrailerSize
	if err := verify(body[:end], body[end:]); err != nil {
		return Header{}, nil, read, err
	}
	h := f.header
	h.Params = body[HeaderSize : HeaderSize+f.paramsLen]
	return h, body[HeaderSize+f.paramsLen : end], read, nil
}

func truncated(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s ends early", ErrTruncated, what)
	}
	return fmt.Errorf("envelope: reading %s: %w", what, err)
}
