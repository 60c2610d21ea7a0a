package keyfile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/hashing"
)

// Entries are key-value pairs read from KEY<TAB>VALUE lines, as
// "bloomcast bloomier build" and "mht build" read them: the key is
// everything before the last tab (hashed with hashing.SumSeed and Seed),
// the value an unsigned decimal integer. Each entry keeps where it was
// read, so that a caller can name the line of an entry its structure
// refuses. The zero value is usable: no entries, seed 0, no limit.
type Entries struct {
	Seed uint64
	// Max, if not 0, is the most entries Add takes.
	Max uint64

	Hashes []hashing.Hash128
	Values []uint64
	at     []Position
}

// A Position is where an entry was read: the index of its input among
// the caller's and its line number, from 1. The zero value is line 0 of
// the first input.
type Position struct {
	Input, Line int
}

// Add parses one KEY<TAB>VALUE line read at at (a Scanner's Key, without
// the line ending).
func (e *Entries) Add(line []byte, at Position) error {
	tab := bytes.LastIndexByte(line, '\t')
	if tab < 0 {
		return errors.New("want KEY<TAB>VALUE")
	}
	v, err := strconv.ParseUint(string(line[tab+1:]), 10, 64)
	if err != nil {
		return fmt.Errorf("value %q is not an unsigned decimal integer (0 to 18446744073709551615): the values stored are numbers; map other values to numbers first", line[tab+1:])
	}
	if e.Max != 0 && uint64(len(e.Values)) >= e.Max {
		return fmt.Errorf("more than %d entries", e.Max)
	}
	e.Hashes = append(e.Hashes, hashing.SumSeed(line[:tab], e.Seed))
	e.Values = append(e.Values, v)
	e.at = append(e.at, at)
	return nil
}

// Len is the number of entries.
func (e *Entries) Len() int { return len(e.Values) }

// Position says where entry i was read.
func (e *Entries) Position(i int) Position { return e.at[i] }
