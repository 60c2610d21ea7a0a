package anyfile

import "github.com/bloomcast/bloomcast/digest"

// deltaKind is a delta digest (envelope.TypeDelta): the change from one
// version of a filter to the next, which answers nothing by itself.
type deltaKind struct{ none }

func (deltaKind) structures(f *File) []any { return []any{f.Delta} }

func decodeDelta(f *File, payload []byte, opt Options) (err error) {
	f.Delta, err = digest.DeltaFromFrame(f.Header, payload, opt.Limits)
	return err
}

func (deltaKind) contains(*File, []byte) (bool, error) {
	return false, errorf("a delta digest answers no queries: apply it to its base")
}
