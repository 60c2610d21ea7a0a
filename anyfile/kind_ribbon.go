package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/ribbon"
)

// ribbonKind is a ribbon filter (envelope.TypeRibbon): static, near the
// information bound, written back raw.
type ribbonKind struct{ none }

func (ribbonKind) structures(f *File) []any { return []any{f.Ribbon} }

func decodeRibbon(f *File, payload []byte, _ Options) (err error) {
	f.Ribbon, err = ribbon.FromFrame(f.Header, payload)
	return err
}

// contains: the key's row gives its fingerprint.
func (ribbonKind) contains(f *File, key []byte) (bool, error) { return f.Ribbon.Contains(key), nil }

func (ribbonKind) encoding(f *File, _ digest.Codec) (io.WriterTo, error) { return f.Ribbon, nil }

func (ribbonKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec != digest.Raw && codec != digest.Auto {
		return nil, errorf("a ribbon filter is written raw only, not %v: its solution is as dense as random bits", codec)
	}
	return f.Ribbon, nil
}
