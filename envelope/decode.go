package envelope

import (
	"fmt"
	"io"
)

// DecodeFrame parses data, which must hold exactly one frame, and builds
// the structure with from (a package's FromFrame). A parse error is
// prefixed with pkg ("bloom: envelope: checksum mismatch: …"); from's
// errors are returned as they are.
func DecodeFrame[T any](data []byte, lim Limits, pkg string, from func(Header, []byte) (T, error)) (T, error) {
	h, payload, err := Parse(data, lim)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", pkg, err)
	}
	return from(h, payload)
}

// ReadFrame reads one frame from r, builds the structure with from, and
// returns it with the number of bytes consumed. Errors as for DecodeFrame.
func ReadFrame[T any](r io.Reader, lim Limits, pkg string, from func(Header, []byte) (T, error)) (T, int64, error) {
	h, payload, n, err := Read(r, lim)
	if err != nil {
		var zero T
		return zero, n, fmt.Errorf("%s: %w", pkg, err)
	}
	v, err := from(h, payload)
	return v, n, err
}
