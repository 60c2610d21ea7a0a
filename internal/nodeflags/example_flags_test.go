package nodeflags_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bloomcast/bloomcast/internal/nodeflags"
)

// A node configured as "bloomcast serve" is: its flags, a config file of
// the same flags (one a line), then the command line, which wins; every
// value is checked, and an error names the flag and, for the file, the
// line.
func ExampleNodeFlags() {
	dir, err := os.MkdirTemp("", "node")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	conf := filepath.Join(dir, "node.conf")
	body := "# this node\nmemory 64MiB\npeer http://10.0.0.2:3128\nthreshold 0\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	nf := nodeflags.NewNodeFlags()
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	if err := nf.Register(fs); err != nil {
		fmt.Println(err)
		return
	}
	if err := nf.ReadConfigFile(conf); err != nil {
		fmt.Println(err)
		return
	}
	if err := fs.Parse([]string{"-listen", "127.0.0.1:3200"}); err != nil {
		fmt.Println(err)
		return
	}
	if err := nf.Check(); err != nil {
		fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))
	}
	if err := fs.Parse([]string{"-threshold", "0.05"}); err != nil {
		fmt.Println(err)
		return
	}
	if err := nf.Check(); err != nil {
		fmt.Println(err)
		return
	}
	c := nf.Config
	fmt.Println(c.Listen, c.MemoryBytes>>20, "MiB,", len(c.Peers), "peer, threshold", c.Threshold)
	// Output:
	// node.conf:4: threshold 0: want a fraction of the cache in (0, 1], such as 0.01
	// 127.0.0.1:3200 64 MiB, 1 peer, threshold 0.05
}
