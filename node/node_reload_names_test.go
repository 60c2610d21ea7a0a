package node_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/node"
)

// The flags a reload names for the fields it could not change.
func ExampleFlagNames() {
	fmt.Println(node.FlagNames([]string{"Listen", "PollInterval"}))
	// Output:
	// [--listen --poll]
}

func TestFlagNamesKeepsUnknownField(t *testing.T) {
	if got := node.FlagNames([]string{"Odd"}); !strings.HasPrefix(got[0], "--Odd") {
		t.Error(got)
	}
}
