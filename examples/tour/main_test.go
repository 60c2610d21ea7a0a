package main

import (
	"os"
	"strings"
	"testing"
)

// The README quotes this program; keep the two identical.
func TestREADMEQuotesTour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
		t.Fatal("README.md's library tour differs from examples/tour/main.go; paste the file into the README")
	}
}

func Example_main() {
	main()
	// Output:
	// true
	// false
	// [true false]
	// true true
	// 1048576 true
	// m=15661056 k=8 p=0.001000
}
