package anyfile

import "github.com/bloomcast/bloomcast/fpset"

// fpsetKind is a fingerprint set (envelope.TypeFPSet), in its sorted
// form (File.FPSet) or Golomb–Rice coded (File.FPSetRice, parameter 2).
type fpsetKind struct{ none }

func (fpsetKind) structures(f *File) []any {
	if f.FPSet != nil {
		return []any{f.FPSet}
	}
	return []any{f.FPSetRice}
}

func decodeFPSet(f *File, payload []byte, _ Options) (err error) {
	if h := f.Header; len(h.Params) > 0 && h.Params[0] == 2 {
		f.FPSetRice, err = fpset.CompressedFromFrame(h, payload)
	} else {
		f.FPSet, err = fpset.FromFrame(h, payload)
	}
	return err
}

// contains: the key's fingerprint is in the set.
func (fpsetKind) contains(f *File, key []byte) (bool, error) {
	if f.FPSet != nil {
		return f.FPSet.Contains(key), nil
	}
	return f.FPSetRice.Contains(key), nil
}
