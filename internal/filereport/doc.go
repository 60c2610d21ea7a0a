// Package filereport holds what "bloomcast inspect" prints about a file
// package anyfile read: one report per kind of file, with the text form
// the command writes and the JSON form of --json (a stable interface for
// scripts: its field names and tags do not change). Package anyfile keeps
// the structures and their numbers; the presentation lives here, beside
// the command, so that the library's API stays the numbers a Go user
// needs.
package filereport

import (
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
)

// errorf is an error of asking a file for a report of another kind's.
func errorf(format string, a ...any) error {
	return fmt.Errorf("filereport: "+format, a...)
}

// article is "a " and the name of the kind f holds.
func article(f *anyfile.File) string { return "a " + f.Kind().String() }
