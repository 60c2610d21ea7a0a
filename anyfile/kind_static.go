package anyfile

import (
	"errors"
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// staticKind is a static digest's whole frame (envelope.TypeStatic,
// digest.StaticPublisher): a ribbon filter of the set and Bloom filters
// of the keys added and removed since, read into a digest.StaticView and
// written back as it was read. A static delta, which changes a view, is
// refused: it answers nothing without the frame it follows.
type staticKind struct {
	none
	v     *digest.StaticView
	frame Frame
}

// decodeStatic applies the frame, put back together from its header and
// payload, to an empty view: digest.StaticView reads frames whole.
func decodeStatic(f *File, payload []byte, opt Options) error {
	frame, err := envelope.AppendHeader(nil, &f.Header, uint64(len(payload)))
	if err != nil {
		return err
	}
	frame = envelope.AppendTrailer(append(frame, payload...), 0)
	v, err := new(digest.StaticView).Apply(frame, opt.Limits)
	if errors.Is(err, digest.ErrStatic) {
		return &Error{staticDeltaError{err}}
	}
	if err != nil {
		return err
	}
	f.k = &staticKind{v: v, frame: frame}
	return nil
}

// staticDeltaError is the error of reading a static delta as a file; it
// wraps digest.ErrStatic.
type staticDeltaError struct{ err error }

func (staticDeltaError) Error() string {
	return "a static digest's delta, which answers nothing without the frame it follows: apply it to that frame's view (digest.StaticView.Apply)"
}

func (e staticDeltaError) Unwrap() error { return e.err }

func (*staticKind) Kind() Kind { return Static }

// contains: in the ribbon or the added filter, and not in the removed
// one.
func (k *staticKind) contains(_ *File, key []byte) (bool, error) { return k.v.Contains(key), nil }

func (k *staticKind) encoding(*File, digest.Codec) (io.WriterTo, error) { return k.frame, nil }

func (k *staticKind) convertFrame(_ *File, codec digest.Codec) (io.WriterTo, error) {
	if codec != digest.Raw && codec != digest.Auto {
		return nil, errorf("a static digest is written as it was built, not recoded %v: its parts carry their own codecs", codec)
	}
	return k.frame, nil
}

func (k *staticKind) structures() []any { return []any{k.v} }
