package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/inplace"
)

// Update changes the file at path in place: it takes the exclusive lock
// on it (inplace.Open, which first refuses a file the user may not
// write), reads it through the lock, calls change, and unless change
// fails writes the File back as the kind, codec and sequence it was read
// with (File.WriteTo), atomically, keeping the file's mode, owner and
// group (File.Replace of package inplace). Concurrent Updates of one
// file take turns, and none loses another's change. On any error the
// file is left as it was.
func Update(path string, opt Options, change func(f *File) error) error {
	lf, err := inplace.Open(path)
	if err != nil {
		return err
	}
	f, err := Read(lf, RaiseLimit(opt, lf.Info()))
	if err == nil {
		err = change(f)
	}
	if err == nil {
		err = lf.Replace(func(w io.Writer) error {
			_, err := f.WriteTo(w)
			return err
		})
	}
	if cerr := lf.Close(); err == nil {
		err = cerr
	}
	return err
}
