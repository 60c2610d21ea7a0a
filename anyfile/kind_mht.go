package anyfile

import "github.com/bloomcast/bloomcast/mht"

// tableKind is a multilevel hash table (envelope.TypeMHT).
type tableKind struct {
	none
	t *mht.Table
}

func decodeTable(f *File, payload []byte, _ Options) error {
	t, err := mht.FromFrame(f.Header, payload)
	if err != nil {
		return err
	}
	f.k = &tableKind{t: t}
	return nil
}

func (*tableKind) Kind() Kind { return MHT }

// contains: the key has a value.
func (k *tableKind) contains(_ *File, key []byte) (bool, error) {
	_, ok := k.t.Get(k.t.Hash(key))
	return ok, nil
}

func (k *tableKind) structures() []any { return []any{k.t} }
