package bloomier_test

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/hashing"
)

// Map four keys to 8-bit values; an 8-bit check rejects all but about
// 1/256 of other keys.
func ExampleBuild() {
	keys := []string{"a", "b", "c", "http://www.example.com/"}
	f, err := bloomier.BuildStrings(bloomier.Config{ValueBits: 8, CheckBits: 8}, keys, []uint64{1, 2, 3, 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.GetString("http://www.example.com/"))
	_, ok := f.GetString("d")
	fmt.Println(ok, f.FalsePositiveRate())
	// Output:
	// 200 true
	// false 0.00390625
}

// With ValueBits 0 the values are as wide as the widest; with ValueBits
// given, a wider value is refused with the entry that holds it.
func ExampleValueError() {
	keys := []string{"red", "green", "blue"}
	f, err := bloomier.BuildStrings(bloomier.Config{CheckBits: 8}, keys, []uint64{5, 300, 17})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.ValueBits(), "bits per value")
	_, err = bloomier.BuildStrings(bloomier.Config{ValueBits: 8, CheckBits: 8}, keys, []uint64{5, 300, 17})
	var ve *bloomier.ValueError
	if errors.As(err, &ve) {
		fmt.Printf("%s: %d needs %d bits\n", keys[ve.Index], ve.Value, ve.Bits)
	}
	fmt.Println(err)
	// Output:
	// 9 bits per value
	// green: 300 needs 9 bits
	// bloomier: value does not fit: value 300 of entry 1 has 9 bits, more than 8
}

// An updatable filter changes a key's value in place.
func ExampleFilter_Update() {
	c := bloomier.Config{ValueBits: 16, CheckBits: 16, Updatable: true}
	keys := []string{"alpha", "beta", "gamma"}
	f, _ := bloomier.BuildStrings(c, keys, []uint64{10, 20, 30})
	fmt.Println(f.UpdateString("beta", 2024))
	var values []uint64
	for _, k := range keys {
		v, _ := f.GetString(k)
		values = append(values, v)
	}
	fmt.Println(values)
	fmt.Println(errors.Is(f.UpdateString("delta", 1), bloomier.ErrAbsent))
	// Output:
	// <nil>
	// [10 2024 30]
	// true
}

// Several keys change together, or none does: one key outside the set
// refuses the batch.
func ExampleFilter_UpdateHashes() {
	c := bloomier.Config{ValueBits: 16, CheckBits: 16, Updatable: true}
	f, _ := bloomier.BuildStrings(c, []string{"alpha", "beta", "gamma"}, []uint64{10, 20, 30})
	hs := []hashing.Hash128{f.HashString("alpha"), f.HashString("delta")}
	absent, err := f.UpdateHashes(hs, []uint64{11, 40})
	fmt.Println(absent, errors.Is(err, bloomier.ErrAbsent))
	v, _ := f.GetString("alpha")
	fmt.Println(v)
	hs[1] = f.HashString("gamma")
	_, err = f.UpdateHashes(hs, []uint64{11, 33})
	fmt.Println(err)
	v, _ = f.GetString("gamma")
	fmt.Println(v)
	// Output:
	// [1] true
	// 10
	// <nil>
	// 33
}

// The table has about 1.13 to 1.23 cells per key, each of ValueBits +
// CheckBits bits.
func ExampleFilter_BitsPerKey() {
	keys := make([]string, 100_000)
	values := make([]uint64, len(keys))
	for i := range keys {
		keys[i], values[i] = fmt.Sprint("key-", i), uint64(i%1000)
	}
	f, _ := bloomier.BuildStrings(bloomier.Config{ValueBits: 10, CheckBits: 6}, keys, values)
	fmt.Printf("%d cells, %.2f bits per key (1.23·16 = %.2f)\n", f.Cells(), f.BitsPerKey(), 1.23*16)
	// Output:
	// 118784 cells, 19.01 bits per key (1.23·16 = 19.68)
}
