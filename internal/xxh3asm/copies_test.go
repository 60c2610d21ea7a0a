package xxh3asm

import (
	"bytes"
	"os"
	"testing"
)

// TestHeaderCopies checks that the packages whose assembly includes the
// macro hold the same file as this package (go generate copies it).
func TestHeaderCopies(t *testing.T) {
	want, err := os.ReadFile("xxh3_amd64.h")
	if err != nil {
		t.Fatal(err)
	}
	for _, copy := range []string{"../../bloom/xxh3_amd64.h", "../../counting/xxh3_amd64.h"} {
		got, err := os.ReadFile(copy)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from internal/xxh3asm/xxh3_amd64.h: run go generate ./bloom ./counting", copy)
		}
	}
}
