package keyfile_test

import (
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
)

// Read keys, one per line (the input could as well be gzip or zstd
// compressed), count the distinct ones, and report where reading stopped.
func Example() {
	in := "http://a/\r\nhttp://b/\n\nhttp://a/\n" + strings.Repeat("x", 40) + "\n"
	s, err := keyfile.NewScanner(strings.NewReader(in), keyfile.Options{MaxKeyBytes: 32})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	d := keyfile.NewDistinct(1 << 20)
	for s.Scan() {
		d.Add(hashing.Default.Sum(s.Key(), 0))
	}
	n, _ := d.Count()
	fmt.Printf("%d keys, %d distinct\n", d.Seen(), n)
	fmt.Println(s.Err())
	// Output:
	// 3 keys, 2 distinct
	// line 5: keyfile: line longer than 32 bytes
}
