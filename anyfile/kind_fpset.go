package anyfile

import "github.com/bloomcast/bloomcast/fpset"

// fpsetKind is a fingerprint set (envelope.TypeFPSet), in its sorted
// form or Golomb–Rice coded (parameter 2): exactly one of the two is set.
type fpsetKind struct {
	none
	sorted *fpset.Sorted
	rice   *fpset.Compressed
}

func decodeFPSet(f *File, payload []byte, _ Options) (err error) {
	k := &fpsetKind{}
	if h := f.Header; len(h.Params) > 0 && h.Params[0] == 2 {
		k.rice, err = fpset.CompressedFromFrame(h, payload)
	} else {
		k.sorted, err = fpset.FromFrame(h, payload)
	}
	if err != nil {
		return err
	}
	f.k = k
	return nil
}

func (*fpsetKind) Kind() Kind { return FPSet }

// contains: the key's fingerprint is in the set.
func (k *fpsetKind) contains(_ *File, key []byte) (bool, error) {
	if k.sorted != nil {
		return k.sorted.Contains(key), nil
	}
	return k.rice.Contains(key), nil
}

func (k *fpsetKind) structures() []any {
	if k.sorted != nil {
		return []any{k.sorted}
	}
	return []any{k.rice}
}
