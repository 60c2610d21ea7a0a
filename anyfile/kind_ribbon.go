package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/ribbon"
)

// ribbonKind is a ribbon filter (envelope.TypeRibbon): static, near the
// information bound, written back raw.
type ribbonKind struct {
	none
	r *ribbon.Filter
}

func decodeRibbon(f *File, payload []byte, _ Options) error {
	r, err := ribbon.FromFrame(f.Header, payload)
	if err != nil {
		return err
	}
	f.k = &ribbonKind{r: r}
	return nil
}

func (*ribbonKind) Kind() Kind { return Ribbon }

// contains: the key's row gives its fingerprint.
func (k *ribbonKind) contains(_ *File, key []byte) (bool, error) { return k.r.Contains(key), nil }

func (k *ribbonKind) encoding(*File, digest.Codec) (io.WriterTo, error) { return k.r, nil }

func (k *ribbonKind) convertFrame(_ *File, codec digest.Codec) (io.WriterTo, error) {
	if codec != digest.Raw && codec != digest.Auto {
		return nil, errorf("a ribbon filter is written raw only, not %v: its solution is as dense as random bits", codec)
	}
	return k.r, nil
}

func (k *ribbonKind) structures() []any { return []any{k.r} }
