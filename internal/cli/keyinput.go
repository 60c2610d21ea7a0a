package cli

import (
	"flag"

	"github.com/bloomcast/bloomcast/keyfile"
)

// Key input (package keyfile): files and standard input compressed with
// gzip or zstd are recognised by their first bytes and read decompressed;
// a line longer than --max-key-bytes is an error; NUL bytes near the
// start, which text does not have, get a warning.

// keyFlags registers --max-key-bytes on fs.
func (e *env) keyFlags(fs *flag.FlagSet) {
	e.maxKeyBytes = keyfile.DefaultMaxKeyBytes
	fs.Var(&e.maxKeyBytes, "max-key-bytes", "")
}
