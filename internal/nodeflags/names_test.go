package nodeflags_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/nodeflags"
)

// The flags a reload names for the fields it could not change.
func ExampleFlagNames() {
	fmt.Println(nodeflags.FlagNames([]string{"Listen", "PollInterval"}))
	// Output:
	// [--listen --poll]
}

func TestFlagNamesKeepsUnknownField(t *testing.T) {
	if got := nodeflags.FlagNames([]string{"Odd"}); !strings.HasPrefix(got[0], "--Odd") {
		t.Error(got)
	}
}
