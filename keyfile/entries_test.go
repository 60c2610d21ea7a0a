package keyfile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
)

// Read KEY<TAB>VALUE lines and say where an entry was read.
func ExampleEntries() {
	sc, err := keyfile.NewScanner(strings.NewReader("a\t1\nb c\t300\n\nd\t7\n"), keyfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sc.Close()
	var in keyfile.Entries
	for sc.Scan() {
		if err := in.Add(sc.Key(), keyfile.Position{Line: sc.Line()}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(in.Len(), "entries; value", in.Values[2], "on line", in.Position(2).Line)
	// Output:
	// 3 entries; value 7 on line 4
}

func TestEntries(t *testing.T) {
	in := keyfile.Entries{Seed: 9, Max: 2}
	if err := in.Add([]byte("k\tv\t5"), keyfile.Position{Input: 1, Line: 4}); err != nil {
		t.Fatal(err)
	}
	if in.Hashes[0] != hashing.SumSeed([]byte("k\tv"), 9) || in.Values[0] != 5 || in.Position(0) != (keyfile.Position{Input: 1, Line: 4}) {
		t.Errorf("entry %v %v %v", in.Hashes[0], in.Values[0], in.Position(0))
	}
	for _, line := range []string{"no tab", "k\t-1", "k\tx"} {
		if err := in.Add([]byte(line), keyfile.Position{}); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
	if err := in.Add([]byte("a\t0"), keyfile.Position{}); err != nil {
		t.Fatal(err)
	}
	if err := in.Add([]byte("b\t1"), keyfile.Position{}); err == nil {
		t.Error("more than Max entries")
	}
}
