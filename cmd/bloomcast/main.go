// Command bloomcast sizes, builds, queries, inspects and combines bloomcast
// Bloom filters, serves and simulates summary-cache nodes, and
// demonstrates them on built-in data.
//
// Usage:
//
//	bloomcast COMMAND [ARGS]
//
// Run "bloomcast help" for the commands and "bloomcast help COMMAND" for
// one command's flags. The commands live in package internal/cli; this
// command only runs them.
package main

import (
	"os"

	"github.com/bloomcast/bloomcast/internal/cli"
)

func main() { os.Exit(cli.Main()) }
