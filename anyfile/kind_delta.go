package anyfile

import "github.com/bloomcast/bloomcast/digest"

// deltaKind is a delta digest (envelope.TypeDelta): the change from one
// version of a filter to the next, which answers nothing by itself.
type deltaKind struct {
	none
	d *digest.Delta
}

func decodeDelta(f *File, payload []byte, opt Options) error {
	d, err := digest.DeltaFromFrame(f.Header, payload, opt.Limits)
	if err != nil {
		return err
	}
	f.k = &deltaKind{d: d}
	return nil
}

func (*deltaKind) Kind() Kind { return Delta }

func (*deltaKind) contains(*File, []byte) (bool, error) {
	return false, errorf("a delta digest answers no queries: apply it to its base")
}

func (k *deltaKind) structures() []any { return []any{k.d} }
