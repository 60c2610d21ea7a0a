package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/bloomcast/bloomcast/internal/nodeflags"
	"github.com/bloomcast/bloomcast/node"
)

// serveFlags are serve's flags: the node's (nodeflags.NodeFlags, which
// also reads the config file and checks the values) and the command
// line's own.
type serveFlags struct {
	*nodeflags.NodeFlags
	cfg         node.NodeConfig // the checked configuration
	config      string          // --config FILE
	checkConfig bool
	nats        string // --nats URL (also in the config file)
}

// parseServeFlags reads the config file, if any, then the command line,
// and validates the result. An error about a value from the command
// line starts "serve: --name value:"; one from the file names the file
// and line.
func parseServeFlags(args []string) (*serveFlags, error) {
	sf := &serveFlags{NodeFlags: nodeflags.NewNodeFlags()}
	sf.Help = "bloomcast serve -h"
	fs := newFlagSet("serve")
	fs.StringVar(&sf.config, "config", "", "")
	fs.BoolVar(&sf.checkConfig, "check-config", false, "")
	fs.StringVar(&sf.nats, "nats", "", "")
	if err := sf.Register(fs); err != nil {
		return nil, err
	}
	if err := sf.AllowInConfig("nats"); err != nil {
		return nil, err
	}
	if path := configFlag(args); path != "" {
		if err := sf.ReadConfigFile(path); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return nil, fileErr(path, err)
			}
			return nil, err
		}
	}
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	if err := sf.Check(); err != nil {
		var ce *nodeflags.ConfigError
		if errors.As(err, &ce) && ce.Where == "" {
			err = fmt.Errorf("serve: %w", err)
		}
		return nil, err
	}
	sf.cfg = sf.Config
	info, _ := debug.ReadBuildInfo()
	sf.cfg.Version = releaseVersion(info)
	if sf.nats != "" {
		for _, p := range sf.cfg.Peers {
			if p.Protocol == node.Bloomcast && p.Name == "" {
				return nil, usagef("--nats: peer %s needs name=, its --name: the nodes know each other's digests by name", p.Proxy)
			}
		}
	}
	return sf, nil
}

// configFlag finds --config on the command line.
func configFlag(args []string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		name := strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(name, "config="); ok && strings.HasPrefix(a, "-") {
			return v
		}
		if name == "config" && strings.HasPrefix(a, "-") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// checkOnly is serve --check-config: the configuration parsed and
// checked, and the access log's directory present, without serving.
func checkOnly(e *env, sf *serveFlags) error {
	if sf.AccessLog != "" && sf.AccessLog != "-" {
		dir := filepath.Dir(sf.AccessLog)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("serve: --access-log %s: no directory %s", sf.AccessLog, dir)
		}
	}
	if sf.config != "" {
		fprintf(e.stdout, "%s: configuration ok\n", sf.config)
	} else {
		fprintln(e.stdout, "configuration ok")
	}
	return nil
}
