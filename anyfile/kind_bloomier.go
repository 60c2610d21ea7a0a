package anyfile

import "github.com/bloomcast/bloomcast/bloomier"

// bloomierKind is a Bloomier filter (envelope.TypeBloomier): a static
// function from keys to values.
type bloomierKind struct {
	none
	b *bloomier.Filter
}

func decodeBloomier(f *File, payload []byte, _ Options) error {
	b, err := bloomier.FromFrame(f.Header, payload)
	if err != nil {
		return err
	}
	f.k = &bloomierKind{b: b}
	return nil
}

func (*bloomierKind) Kind() Kind { return Bloomier }

// contains: the key has a value.
func (k *bloomierKind) contains(_ *File, key []byte) (bool, error) {
	_, ok := k.b.Get(key)
	return ok, nil
}

func (k *bloomierKind) structures() []any { return []any{k.b} }
