package nodeflags_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/nodeflags"
	"github.com/bloomcast/bloomcast/node"
)

// parse registers the node's flags and a command-line-only "check" flag
// on a new FlagSet, reads the config file (if body is not empty) and
// args, and checks.
func parse(t *testing.T, body string, args ...string) (*nodeflags.NodeFlags, string, error) {
	t.Helper()
	nf := nodeflags.NewNodeFlags()
	nf.Help = "the docs"
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("check", false, "")
	if err := nf.Register(fs); err != nil {
		t.Fatal(err)
	}
	path := ""
	if body != "" {
		path = filepath.Join(t.TempDir(), "node.conf")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := nf.ReadConfigFile(path); err != nil {
			return nf, path, err
		}
	}
	if err := fs.Parse(args); err != nil {
		return nf, path, err
	}
	return nf, path, nf.Check()
}

// TestNodeFlagsDefaults: no flags is a single node on 127.0.0.1:3128
// with a 256 MiB memory cache.
func TestNodeFlagsDefaults(t *testing.T) {
	nf, _, err := parse(t, "")
	if err != nil {
		t.Fatal(err)
	}
	c := nf.Config
	if c.Listen != "127.0.0.1:3128" || c.MemoryBytes != 256<<20 || c.Capacity != 100000 || c.PollInterval != 30*time.Second ||
		len(c.ConnectPorts) != 1 || c.ConnectPorts[0] != 443 || nf.LogLevel != "info" || nf.LogFormat != "text" {
		t.Errorf("defaults: %+v", c)
	}
	if _, err := node.NewNode(c); err != nil {
		t.Errorf("NewNode of the defaults: %v", err)
	}
}

// TestNodeFlagsFileAndCommandLine: the file sets, the command line wins,
// and each error names where its value came from.
func TestNodeFlagsFileAndCommandLine(t *testing.T) {
	nf, _, err := parse(t, "# a node\nmemory = 64MiB\npeer http://10.0.0.2:3128\nno-delta\n", "-memory", "128MiB", "-peer", "name=b,proxy=http://10.0.0.3:3128")
	if err != nil {
		t.Fatal(err)
	}
	if c := nf.Config; c.MemoryBytes != 128<<20 || len(c.Peers) != 2 || c.Peers[1].Name != "b" || !c.NoDelta || !nf.IsSet("no-delta") {
		t.Errorf("config %+v", c)
	}
	for _, c := range []struct {
		body  string
		args  []string
		where string // "" for the command line
		name  string
		msg   string
	}{
		{"\n\nmemory 0\n", nil, ":3", "memory", "want a size above 0"},
		{"", []string{"-threshold", "0"}, "", "threshold", "want a fraction"},
		{"listen 127.0.0.1:3999\n", []string{"-peer", "http://127.0.0.1:3999"}, "", "peer", "this node itself"},
		{"peer http://10.1.1.1:3128\npeer http://10.1.1.1:3128\n", nil, ":2", "peer", "listed twice"},
		{"peer name=x,proxy=http://10.1.1.1:3128\npeer name=x,proxy=http://10.1.1.2:3128\n", nil, ":2", "peer", `another peer is named "x"`},
		{"peer name=10.1.1.2:3128,proxy=http://10.1.1.1:3128\n", []string{"-peer", "http://10.1.1.2:3128"}, "", "peer", "another peer is named"},
		{"route icp\n", nil, ":1", "route", "routing by ICP needs --icp"},
		{"log-format xml\n", nil, ":1", "log-format", "want text or json"},
	} {
		_, path, err := parse(t, c.body, c.args...)
		var ce *nodeflags.ConfigError
		if !errors.As(err, &ce) || ce.Name != c.name || !strings.Contains(ce.Err.Error(), c.msg) ||
			(c.where == "") != (ce.Where == "") || c.where != "" && ce.Where != path+c.where {
			t.Errorf("%q %q: %v; want %s at %q: %s", c.body, c.args, err, c.name, c.where, c.msg)
		}
	}
	for body, want := range map[string]string{
		"memroy 1\n":        `:1: unknown key "memroy" (see the docs)`,
		"check\n":           ":1: check belongs on the command line",
		"listen\n":          ":1: listen needs a value",
		"memory = lots\n":   ":1: memory lots: want a size",
		"peer name=x\n":     ":1: peer name=x: a peer needs proxy=URL",
		"allow-peers 1.2\n": `:1: allow-peers 1.2: "1.2" is not a CIDR range`,
	} {
		_, path, err := parse(t, body)
		if err == nil || !strings.HasPrefix(err.Error(), path+want) {
			t.Errorf("%q: %v, want %q", body, err, path+want)
		}
	}
}

// TestNodeFlagsZero: NodeFlags not made by NewNodeFlags refuse to work.
func TestNodeFlagsZero(t *testing.T) {
	var nf nodeflags.NodeFlags
	if nf.Register(flag.NewFlagSet("x", flag.ContinueOnError)) == nil || nf.Check() == nil || nf.ReadConfigFile("x") == nil {
		t.Error("zero NodeFlags worked")
	}
	var ce nodeflags.ConfigError
	if ce.Error() != `-- "": <nil>` {
		t.Errorf("zero ConfigError: %q", ce.Error())
	}
}

func TestNewLogger(t *testing.T) {
	var b strings.Builder
	lv := new(slog.LevelVar)
	l, err := nodeflags.NewLogger(&b, lv, "warn", "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown")
	if strings.Contains(b.String(), "hidden") || !strings.Contains(b.String(), `"msg":"shown"`) {
		t.Errorf("logged %q", b.String())
	}
	for _, c := range [][2]string{{"loud", "text"}, {"info", "xml"}} {
		if _, err := nodeflags.NewLogger(io.Discard, lv, c[0], c[1]); !errors.Is(err, cache.ErrConfig) {
			t.Errorf("level %q, format %q: %v", c[0], c[1], err)
		}
	}
}

// TestNodeFlagsAllowInConfig: a flag of the program's own may go in the
// config file once allowed, is tracked like the node's, and the command
// line still wins.
func TestNodeFlagsAllowInConfig(t *testing.T) {
	nf := nodeflags.NewNodeFlags()
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	transport := fs.String("transport", "", "")
	if err := nf.Register(fs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "node.conf")
	if err := os.WriteFile(path, []byte("memory 64MiB\ntransport nats://10.0.0.1:4222\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := nf.ReadConfigFile(path); err == nil || !strings.HasSuffix(err.Error(), ":2: transport belongs on the command line, not in a config file") {
		t.Fatalf("before AllowInConfig: %v", err)
	}
	if err := nf.AllowInConfig("transport"); err != nil {
		t.Fatal(err)
	}
	if err := nf.AllowInConfig("no-such-flag"); err == nil || !strings.Contains(err.Error(), `no flag "no-such-flag"`) {
		t.Errorf("unknown flag: %v", err)
	}
	if err := nf.ReadConfigFile(path); err != nil {
		t.Fatal(err)
	}
	if *transport != "nats://10.0.0.1:4222" || !nf.IsSet("transport") {
		t.Errorf("from the file: %q, set %v", *transport, nf.IsSet("transport"))
	}
	if err := fs.Parse([]string{"-transport", "nats://10.0.0.2:4222"}); err != nil {
		t.Fatal(err)
	}
	if *transport != "nats://10.0.0.2:4222" {
		t.Errorf("the command line does not win: %q", *transport)
	}
	if err := new(nodeflags.NodeFlags).AllowInConfig("transport"); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero NodeFlags: %v", err)
	}
}

// TestNodeFlagsDenyTo: --deny-to defaults to the link-local ranges, takes
// a list (in the file too), and "none" is an empty list, which the node
// takes as denying nothing; an empty value is refused.
func TestNodeFlagsDenyTo(t *testing.T) {
	for _, c := range []struct {
		body string
		args []string
		want string
	}{
		{"", nil, "[169.254.0.0/16 fe80::/10]"},
		{"", []string{"--deny-to", "10.0.0.0/8,169.254.169.254"}, "[10.0.0.0/8 169.254.169.254/32]"},
		{"deny-to 192.168.0.0/16\n", nil, "[192.168.0.0/16]"},
		{"", []string{"--deny-to", "none"}, "[]"},
	} {
		nf, _, err := parse(t, c.body, c.args...)
		if err != nil {
			t.Errorf("%q %q: %v", c.body, c.args, err)
			continue
		}
		d := nf.Config.DenyDestinations
		if got := fmt.Sprint(d); got != c.want || d == nil {
			t.Errorf("%q %q: %v (nil %v), want %s and not nil", c.body, c.args, d, d == nil, c.want)
		}
	}
	if _, _, err := parse(t, "", "--deny-to", ""); err == nil {
		t.Error(`--deny-to "": no error`)
	}
}
