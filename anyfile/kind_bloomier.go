package anyfile

import "github.com/bloomcast/bloomcast/bloomier"

// bloomierKind is a Bloomier filter (envelope.TypeBloomier): a static
// function from keys to values.
type bloomierKind struct{ none }

func (bloomierKind) structures(f *File) []any { return []any{f.Bloomier} }

func decodeBloomier(f *File, payload []byte, _ Options) (err error) {
	f.Bloomier, err = bloomier.FromFrame(f.Header, payload)
	return err
}

// contains: the key has a value.
func (bloomierKind) contains(f *File, key []byte) (bool, error) {
	_, ok := f.Bloomier.Get(key)
	return ok, nil
}
