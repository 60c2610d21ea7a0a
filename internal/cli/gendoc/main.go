// Command gendoc writes docs/CLI.md, the reference of bloomcast's
// commands, from their usage texts (cli.WriteReference). Run it through
// go generate in internal/cli:
//
//	//go:generate go run ./gendoc -o ../../docs/CLI.md
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/bloomcast/bloomcast/internal/cli"
)

func main() {
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gendoc -o OUT")
		os.Exit(2)
	}
	var b bytes.Buffer
	if err := cli.WriteReference(&b); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}
