package params

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every error this package returns, so callers can
// test for bad parameters with errors.Is without parsing messages.
var ErrInvalid = errors.New("params: invalid parameters")

// invalidError says what is wrong and unwraps to ErrInvalid. It prints as
// "params: <detail>: invalid parameters", without repeating the package
// prefix that wrapping ErrInvalid with fmt.Errorf would add.
type invalidError struct{ detail string }

func (e *invalidError) Error() string { return "params: " + e.detail + ": invalid parameters" }

func (e *invalidError) Unwrap() error { return ErrInvalid }

// invalidf returns an error wrapping ErrInvalid with a formatted detail.
func invalidf(format string, args ...any) error {
	return &invalidError{detail: fmt.Sprintf(format, args...)}
}

// Layout says how a filter places a key's k probes.
// The zero value is no layout: Valid reports false and a Shape with it is
// invalid; in a Query or bloom.Config a zero Layout means "any" or Classic,
// as their docs say.
type Layout uint8

// The layouts. Their numeric values are stable: formats may record them.
const (
	// Classic spreads the k probes over the whole array (Bloom 1970).
	Classic Layout = 1
	// Partitioned splits the array into k equal slices of m/k bits and
	// probes each slice once (Kirsch–Mitzenmacher 2006).
	Partitioned Layout = 2
	// Blocked sends each key to one 512-bit block, a 64-byte cache line, and
	// probes k bits inside it (Putze–Sanders–Singler 2007): one cache miss
	// per query at the price of a slightly higher rate.
	Blocked Layout = 3
	// Paged sends each key to one block of Shape.BlockBits bits, for example
	// a 4 KiB page of 32768 bits, and probes k bits inside it: one page
	// read per query for filters kept on disk or in external memory.
	Paged Layout = 4
)

// BlockedBits is the block size of the Blocked layout: one 64-byte cache
// line, the unit Putze, Sanders and Singler (2007) recommend.
const BlockedBits = 512

// DefaultPageBits is the default block size of the Paged layout: a 4 KiB
// page.
const DefaultPageBits = 32768

// MaxK is the largest number of probes per key this package supports. The
// optimum k is about log2(1/p), so 64 covers rates down to about 1e−19.
const MaxK = 64

var layoutNames = [...]string{
	Classic:     "classic",
	Partitioned: "partitioned",
	Blocked:     "blocked",
	Paged:       "paged",
}

// Valid reports whether l is one of the defined layouts.
func (l Layout) Valid() bool { return l >= Classic && l <= Paged }

// String returns the layout's lower-case name ("classic", "partitioned",
// "blocked" or "paged"), or "layout(N)" for an undefined value.
func (l Layout) String() string {
	if !l.Valid() {
		return "layout(" + strconv.Itoa(int(l)) + ")"
	}
	return layoutNames[l]
}

// ParseLayout is the inverse of [Layout.String] for the defined layouts,
// ignoring case and surrounding space. Unknown names give an error wrapping
// [ErrInvalid].
func ParseLayout(s string) (Layout, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for l := Classic; l <= Paged; l++ {
		if layoutNames[l] == name {
			return l, nil
		}
	}
	return 0, invalidf("unknown layout %q (want classic, partitioned, blocked or paged)", s)
}

// MarshalText implements encoding.TextMarshaler, so a Layout can be used
// with flag.TextVar and in JSON. Undefined layouts are an error.
func (l Layout) MarshalText() ([]byte, error) {
	if !l.Valid() {
		return nil, invalidf("cannot marshal %v", l)
	}
	return []byte(l.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with [ParseLayout].
func (l *Layout) UnmarshalText(b []byte) error {
	v, err := ParseLayout(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
