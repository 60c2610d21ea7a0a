// Package flagvalue holds flag.Value types that both the bloomcast command
// and internal/nodeflags (serve's node flags) parse their flags with, so
// that a flag such as --capacity reads the same text the same way
// everywhere.
package flagvalue

import (
	"errors"
	"math"
	"strconv"
)

// Count is a whole number ≥ 0 as a flag.Value: decimal, 0x-hex or 0o-octal,
// with underscores (1_000_000) as strconv.ParseUint reads them with base 0,
// or in exponent form (1e6) when the value is whole. The zero value is 0.
type Count uint64

// String returns the count in decimal.
func (c *Count) String() string { return strconv.FormatUint(uint64(*c), 10) }

// Set parses s, refusing a negative, fractional or too large number.
func (c *Count) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err == nil {
		*c = Count(v)
		return nil
	}
	f, ferr := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || f >= 1<<64:
		// Said apart from a malformed number: the user wrote a count, of
		// more than a count holds.
		return errTooLarge
	case ferr != nil || f < 0 || f != math.Trunc(f):
		return errors.New("want a whole number ≥ 0")
	}
	*c = Count(f)
	return nil
}

// errTooLarge refuses a count above what a Count holds.
var errTooLarge = errors.New("too large: the largest is 18446744073709551615 (2^64 - 1)")
