package cli

import (
	"flag"

	"github.com/bloomcast/bloomcast/keyfile"
)

// Key input (package keyfile): files and standard input compressed with
// gzip or zstd are recognised by their first bytes and read decompressed;
// a line longer than --max-key-bytes is an error; NUL bytes near the
// start, which text does not have, get a warning.

// keyInputHelp ends the usage of the commands that read keys from
// standard input.
const keyInputHelp = `
Keys read from standard input may be compressed with gzip or zstd (seen
by their first bytes, read decompressed); a line longer than
--max-key-bytes is an error, and NUL bytes in the first 4 KiB get a
warning (not a key file?).

key input flags:
  --max-key-bytes N   longest key line (default 1048576, 1 MiB)
  -q, --quiet         no warnings
`

// keyFlags registers --max-key-bytes on fs.
func (e *env) keyFlags(fs *flag.FlagSet) {
	e.maxKeyBytes = keyfile.DefaultMaxKeyBytes
	fs.Var(&e.maxKeyBytes, "max-key-bytes", "")
}
