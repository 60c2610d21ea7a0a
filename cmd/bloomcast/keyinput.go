package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Key input: files and standard input compressed with gzip or zstd are
// recognised by their first bytes and read decompressed; a line longer
// than --max-key-bytes is an error; NUL bytes near the start, which text
// does not have, get a warning.

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

// defaultMaxKeyBytes is the longest key line read unless --max-key-bytes
// says otherwise.
const defaultMaxKeyBytes = 1 << 20

// nulWindow is how much of an input's start is checked for NUL bytes.
const nulWindow = 4 << 10

// Magic numbers: gzip (RFC 1952) and a zstd frame (RFC 8878).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// keyFlags registers --max-key-bytes on fs.
func (e *env) keyFlags(fs *flag.FlagSet) {
	e.maxKeyBytes = defaultMaxKeyBytes
	fs.Var(&e.maxKeyBytes, "max-key-bytes", "")
}

// maxKey is the longest key line accepted.
func (e *env) maxKey() int {
	if e.maxKeyBytes == 0 {
		return defaultMaxKeyBytes
	}
	return int(min(uint64(e.maxKeyBytes), 1<<40))
}

// keyInput returns the text of the input r, named name: decompressed if
// it starts with gzip's or zstd's magic number. It warns (once per input)
// when the text's first 4 KiB hold a NUL byte. The returned function
// releases the decompressor.
func (e *env) keyInput(name string, r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(len(zstdMagic))
	var text io.Reader = br
	release := func() {}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fileErr(name, err)
		}
		text = zr
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fileErr(name, err)
		}
		text, release = zr, zr.Close
	}
	if text != io.Reader(br) {
		br = bufio.NewReaderSize(text, 64<<10)
		text = br
	}
	if start, _ := br.Peek(nulWindow); bytes.IndexByte(start, 0) >= 0 {
		e.warnf("%s: NUL bytes in the first 4 KiB: binary data read as keys (one per line)?", displayName(name))
	}
	return text, release, nil
}
