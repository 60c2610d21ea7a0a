package logfile_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bloomcast/bloomcast/internal/logfile"
)

// Reopen an access log after it was rotated away.
func ExampleFile() {
	dir, err := os.MkdirTemp("", "logfile")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "access.log")
	l, err := logfile.Open(path, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprintln(l, "first")
	if err := os.Rename(path, path+".1"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprintln(l, "second") // still the rotated file
	if err := l.Reopen(path); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprintln(l, "third")
	if err := l.Close(); err != nil {
		fmt.Println(err)
		return
	}
	old, _ := os.ReadFile(path + ".1")
	cur, _ := os.ReadFile(path)
	fmt.Printf("%q %q\n", old, cur)
	// Output:
	// "first\nsecond\n" "third\n"
}

func TestLogFileDestinations(t *testing.T) {
	var out bytes.Buffer
	l, err := logfile.Open("-", &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(l, "a")
	if err := l.Reopen(""); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(l, "b")
	if err := l.Reopen(filepath.Join(t.TempDir(), "no", "such", "dir")); err == nil {
		t.Error("opened a file in a missing directory")
	}
	fmt.Fprint(l, "c")
	if out.String() != "a" {
		t.Errorf("stdout got %q", out.String())
	}
	var zero logfile.File
	if n, err := zero.Write([]byte("x")); n != 1 || err != nil {
		t.Errorf("zero File wrote %d, %v", n, err)
	}
	if err := zero.Close(); err != nil {
		t.Error(err)
	}
}
