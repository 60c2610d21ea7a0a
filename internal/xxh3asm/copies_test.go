package xxh3asm

import (
	"bytes"
	"os"
	"testing"
)

// TestHeaderCopies checks that the packages whose assembly includes the
// macro hold what genheader writes: a first line naming the source, then
// this package's xxh3_amd64.h. Rewrite them with go generate ./bloom
// ./counting.
func TestHeaderCopies(t *testing.T) {
	src, err := os.ReadFile("xxh3_amd64.h")
	if err != nil {
		t.Fatal(err)
	}
	const line = "// Code generated from internal/xxh3asm/xxh3_amd64.h by internal/xxh3asm/genheader (go generate); DO NOT EDIT.\n"
	want := append([]byte(line), src...)
	for _, copy := range []string{"../../bloom/xxh3_amd64.h", "../../counting/xxh3_amd64.h"} {
		got, err := os.ReadFile(copy)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not internal/xxh3asm/xxh3_amd64.h with its generated line: run go generate ./bloom ./counting", copy)
		}
	}
}
