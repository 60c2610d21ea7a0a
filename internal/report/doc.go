// Package report holds what bloomcast's commands print of the library's
// answers: the JSON forms "--json" writes (a stable interface for
// scripts), their text tables and their charts. The library packages
// (params, sim, sim/replay) return plain values; this package sets them
// out for a reader, so that their APIs carry the numbers and not the
// presentation.
package report

import (
	"fmt"

	"github.com/bloomcast/bloomcast/params"
)

// invalidError is params' error for invalid parameters, for the checks a
// report makes before asking params: it prints as params' own do and
// unwraps to [params.ErrInvalid].
type invalidError struct{ detail string }

func (e *invalidError) Error() string { return "params: " + e.detail + ": invalid parameters" }

func (e *invalidError) Unwrap() error { return params.ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{detail: fmt.Sprintf(format, args...)}
}
