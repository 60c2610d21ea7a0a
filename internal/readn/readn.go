// Package readn reads a length that the input itself declares, a frame's
// payload or a digest's mask, allocating as the bytes arrive: a header
// that claims a large length before a short stream costs what the stream
// holds, not what it claims.
package readn

import "io"

// Chunk is how many bytes Append reads, and allocates, at a time.
const Chunk = 1 << 20

// Append appends exactly n bytes read from r to dst, Chunk at a time, so
// that dst grows with what has arrived. If r ends early, it returns dst
// with the whole chunks read before and io.ErrUnexpectedEOF: the input
// promised more. Other read errors are returned as they are.
func Append(dst []byte, r io.Reader, n uint64) ([]byte, error) {
	for n > 0 {
		step := min(n, Chunk)
		start := len(dst)
		dst = append(dst, make([]byte, step)...)
		if _, err := io.ReadFull(r, dst[start:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return dst[:start], err
		}
		n -= step
	}
	return dst, nil
}
