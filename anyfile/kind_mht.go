package anyfile

import "github.com/bloomcast/bloomcast/mht"

// tableKind is a multilevel hash table (envelope.TypeMHT).
type tableKind struct{ none }

func (tableKind) structures(f *File) []any { return []any{f.Table} }

func decodeTable(f *File, payload []byte, _ Options) (err error) {
	f.Table, err = mht.FromFrame(f.Header, payload)
	return err
}

// contains: the key has a value.
func (tableKind) contains(f *File, key []byte) (bool, error) {
	_, ok := f.Table.Get(f.Table.Hash(key))
	return ok, nil
}
