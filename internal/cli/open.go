package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/scalable"
)

// loadedFilter is a file read by package anyfile (what it holds, with
// what its frame said), and where it was read from. Every command that
// reads a filter goes through open, so a new encoding or structure type
// plugs in at one place: package anyfile.
type loadedFilter struct {
	*anyfile.File
	path string // as given; "-" is standard input
	// other is set for a structure that is not a Bloom, counting,
	// scalable or Squid filter, a delta or another program's filter: a
	// deletion filter, a fingerprint set, a Bloomier or ribbon filter, a
	// multilevel hash table or summary (structs.go; openFilter refuses
	// those).
	other bool
}

// openFilter reads the filter at path ("-": standard input): a Bloom or
// counting filter or a Squid digest, raw or compressed. A delta digest is
// refused with a pointer to patch, and so are the other structures and
// other programs' filters (see openCombinable).
func (e *env) openFilter(path string) (*loadedFilter, error) {
	lf, err := e.openCombinable(path)
	if err == nil && lf.Foreign() {
		err = fileErr(path, fmt.Errorf("holds %s: only inspect, query, add, union, intersect, fold and convert read it", lf.kind()))
	}
	if err != nil {
		return nil, err
	}
	return lf, nil
}

// openCombinable is openFilter for union, intersect and fold, which also
// take other programs' filters.
func (e *env) openCombinable(path string) (*loadedFilter, error) {
	lf, err := e.openAny(path)
	if err == nil && lf.other {
		err = refuseStructure(lf)
	}
	if err != nil {
		return nil, err
	}
	return lf, nil
}

// open reads a file of any kind at path (anyfile.Read), delta digests
// included. The payload limit is the envelope's default, raised to the
// file's own size for a larger regular file.
func (e *env) open(path string) (*loadedFilter, error) { return e.openWith(path, false) }

// openWith is open; with lazyPieces a digest coded in pieces is kept as a
// digest.Pieces, not decoded (query).
func (e *env) openWith(path string, lazyPieces bool) (*loadedFilter, error) {
	var r io.Reader = e.stdin
	opt := anyfile.Options{LazyPieces: lazyPieces, Format: anyfile.Format(e.format), Keys: anyfile.KeyType(e.keyType)}
	if path != "-" {
		f, fi, closeFile, err := e.openInput(path)
		if err != nil {
			return nil, err
		}
		defer closeFile()
		opt, r = anyfile.RaiseLimit(opt, fi), f
	}
	f, err := anyfile.Read(r, opt)
	if err != nil {
		return nil, fileErr(path, err)
	}
	return &loadedFilter{File: f, path: path, other: isStructure(f)}, nil
}

// isStructure reports whether f holds a structure that only some
// commands read (loadedFilter.other): what is not a Bloom, counting or
// scalable filter, a Squid digest, a delta or another program's filter.
func isStructure(f *anyfile.File) bool {
	_, bits := anyfile.As[*bloom.Filter](f)
	_, pieces := anyfile.As[*digest.Pieces](f)
	_, layers := anyfile.As[*scalable.Filter](f)
	_, delta := anyfile.As[*digest.Delta](f)
	return !bits && !pieces && !layers && !delta && !f.Foreign()
}

// openAny reads the file at path as open does, and refuses a delta
// digest: query and inspect take every structure.
func (e *env) openAny(path string) (*loadedFilter, error) { return e.openAnyWith(path, false) }

// openAnyWith is openAny, with openWith's lazyPieces.
func (e *env) openAnyWith(path string, lazyPieces bool) (*loadedFilter, error) {
	lf, err := e.openWith(path, lazyPieces)
	if err != nil {
		return nil, err
	}
	if d, ok := anyfile.As[*digest.Delta](lf.File); ok {
		return nil, fileErr(path, fmt.Errorf("a delta digest (sequence %d to %d), not a filter: apply it to its base with \"bloomcast patch\"",
			d.BaseSequence, d.Sequence))
	}
	return lf, nil
}

// errTerminal refuses binary output to a terminal.
var errTerminal = errors.New("is a terminal: binary output refused (redirect it, or add --force)")

// writeFilter writes f, a bloom or counting filter, to path ("-":
// standard output, refused if it is a terminal unless --force). A file is
// written atomically by writeFile: readers see the old filter or the new
// one, never a part.
func (e *env) writeFilter(path string, f io.WriterTo) error {
	if path != "-" {
		return e.writeFile(path, f)
	}
	if isTerminal(e.stdout) && !e.force {
		return fileErr(outputName(path), errTerminal)
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	_, err := f.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fileErr(outputName(path), err)
	}
	return nil
}
