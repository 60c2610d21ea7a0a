package keyfile_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/keyfile"
)

// Read keys from a file and from standard input in turn, with where each
// was read.
func ExampleInputs() {
	dir, err := os.MkdirTemp("", "keyfile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(path, []byte("a\r\n\nb\n"), 0o644); err != nil {
		panic(err)
	}
	in := keyfile.Inputs{Names: []string{path, "-"}, Stdin: strings.NewReader("c\n")}
	err = in.Each(func(key []byte, input, line int) error {
		fmt.Printf("%s from input %d, line %d\n", key, input, line)
		return nil
	})
	fmt.Println(err)
	// Output:
	// a from input 0, line 1
	// b from input 0, line 3
	// c from input 1, line 1
	// <nil>
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte("z\x00\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	packed := filepath.Join(dir, "packed.gz")
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	var binary []string
	read := 0
	in := keyfile.Inputs{Names: []string{plain, packed}, Binary: func(n string) { binary = append(binary, n) }, Read: func(n int) { read += n }}
	var keys []string
	if err := in.Each(func(k []byte, _, _ int) error { keys = append(keys, string(k)); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "x,y,z\x00" || len(binary) != 1 || binary[0] != packed || read != 4+gz.Len() {
		t.Errorf("keys %q, binary %v, read %d", keys, binary, read)
	}
	if got := in.Size(); got != int64(4+gz.Len()) {
		t.Errorf("Size %d", got)
	}
	if got := (keyfile.Inputs{Stdin: strings.NewReader("")}).Size(); got != -1 {
		t.Errorf("Size of a reader %d, want -1", got)
	}

	// The zero value reads an empty standard input.
	if err := (keyfile.Inputs{}).Each(func([]byte, int, int) error { t.Error("a key"); return nil }); err != nil {
		t.Error(err)
	}

	var ie *keyfile.InputError
	missing := filepath.Join(dir, "missing")
	err := keyfile.Inputs{Names: []string{plain, missing}}.Each(func([]byte, int, int) error { return nil })
	if !errors.As(err, &ie) || ie.Name != missing || ie.Line != 0 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	refused := errors.New("refused")
	err = keyfile.Inputs{Stdin: strings.NewReader("a\nb\n")}.Each(func(k []byte, _, _ int) error {
		if string(k) == "b" {
			return refused
		}
		return nil
	})
	if !errors.As(err, &ie) || ie.Line != 2 || !errors.Is(err, refused) || err.Error() != "stdin:2: refused" {
		t.Errorf("refused key: %v", err)
	}
	var tl *keyfile.TooLongError
	err = keyfile.Inputs{Stdin: strings.NewReader("ok\ntoo long\n"), Options: keyfile.Options{MaxKeyBytes: 4}}.Each(func([]byte, int, int) error { return nil })
	if !errors.As(err, &ie) || ie.Line != 2 || !errors.As(err, &tl) || tl.Max != 4 {
		t.Errorf("long line: %v", err)
	}
}
