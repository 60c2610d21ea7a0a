package anyfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/counting"
)

// Read a file without knowing what it holds, add a key to it in place,
// and ask it about keys.
func Example() {
	dir, err := os.MkdirTemp("", "anyfile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cache.bf")
	cf := counting.MustNew(counting.Config{N: 1000, P: 0.01})
	cf.AddString("http://example.com/")
	b, err := cf.MarshalBinary()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		fmt.Println(err)
		return
	}

	// Under the file's lock: read, change, write back as a counting filter.
	err = anyfile.Update(path, anyfile.Options{}, func(f *anyfile.File) error {
		return f.Add([]byte("http://example.com/new"))
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	f, err := anyfile.ReadFile(path, anyfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("holds a", f.Kind())
	for _, key := range []string{"http://example.com/new", "http://example.com/other"} {
		in, _ := f.Contains([]byte(key))
		fmt.Println(key, in)
	}
	// Output:
	// holds a counting filter
	// http://example.com/new true
	// http://example.com/other false
}
