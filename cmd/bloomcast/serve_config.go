package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/params"
)

// serveFlags are serve's flags, bound to a NodeConfig, with where each
// was set: errors about a value name the flag and, for one read from the
// config file, the file and line.
type serveFlags struct {
	cfg                       cache.NodeConfig
	memory, disk, obj, maxDig byteSize
	capacity                  countValue
	squidBits                 countValue
	codec, accessLog, level   string
	format, config            string
	peers                     peerList
	allowClients, allowPeers  prefixList
	connectPorts              portList
	checkConfig               bool

	source   string            // where the flags being parsed come from: "FILE:LINE", or "" for the command line
	from     map[string]string // flag name → source of its last setting
	raw      map[string]string // flag name → the text of its last setting
	peerFrom []string          // source of each --peer
}

// trackedValue records, for each flag set, where and how.
type trackedValue struct {
	flag.Value
	name string
	sf   *serveFlags
}

func (t *trackedValue) Set(s string) error {
	if err := t.Value.Set(s); err != nil {
		return err
	}
	t.sf.from[t.name], t.sf.raw[t.name] = t.sf.source, s
	if t.name == "peer" {
		t.sf.peerFrom = append(t.sf.peerFrom, t.sf.source)
	}
	return nil
}

func (t *trackedValue) IsBoolFlag() bool {
	b, ok := t.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseServeFlags reads the config file, if any, then the command line,
// and validates the result.
func parseServeFlags(args []string) (*serveFlags, error) {
	sf := &serveFlags{codec: "fast", level: "info", format: "text",
		memory: 256 << 20, disk: 1 << 30, obj: cache.DefaultMaxObjectBytes, maxDig: 64 << 20,
		capacity: 100000, squidBits: 5, connectPorts: portList{443},
		from: map[string]string{}, raw: map[string]string{}}
	fs := newFlagSet("serve")
	c := &sf.cfg
	fs.StringVar(&sf.config, "config", "", "")
	fs.BoolVar(&sf.checkConfig, "check-config", false, "")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:3128", "")
	fs.StringVar(&c.ICPListen, "icp", "", "")
	fs.StringVar(&c.Name, "name", "", "")
	fs.Var(&sf.memory, "memory", "")
	fs.StringVar(&c.DiskDir, "disk", "", "")
	fs.Var(&sf.disk, "disk-size", "")
	fs.Var(&sf.obj, "max-object", "")
	fs.Var(&sf.capacity, "capacity", "")
	fs.Float64Var(&c.BitsPerEntry, "bits-per-entry", 16, "")
	fs.IntVar(&c.HashFunctions, "hash-functions", 0, "")
	fs.Float64Var(&c.Threshold, "threshold", 0.01, "")
	fs.DurationVar(&c.MaxDigestAge, "max-digest-age", 5*time.Minute, "")
	fs.StringVar(&sf.codec, "codec", "fast", "")
	fs.Var(&sf.squidBits, "squid-bits", "")
	fs.Var(&sf.peers, "peer", "")
	fs.StringVar(&c.Route, "route", cache.RouteDigest, "")
	fs.DurationVar(&c.PollInterval, "poll", 30*time.Second, "")
	fs.DurationVar(&c.PeerExpiry, "peer-expiry", 0, "")
	fs.Var(&sf.maxDig, "max-digest", "")
	fs.BoolVar(&c.NoDelta, "no-delta", false, "")
	fs.StringVar(&c.PeerViews, "peer-views", cache.PeerViewsDecoded, "")
	fs.DurationVar(&c.PeerTimeout, "peer-timeout", 5*time.Second, "")
	fs.DurationVar(&c.ICPTimeout, "icp-timeout", 2*time.Second, "")
	fs.Var(&sf.allowClients, "allow-clients", "")
	fs.Var(&sf.allowPeers, "allow-peers", "")
	fs.Var(&sf.connectPorts, "connect-ports", "")
	fs.DurationVar(&c.TunnelIdle, "tunnel-idle-timeout", cache.DefaultTunnelIdle, "")
	fs.DurationVar(&c.TunnelLifetime, "tunnel-lifetime", cache.DefaultTunnelLifetime, "")
	fs.StringVar(&sf.accessLog, "access-log", "", "")
	fs.StringVar(&sf.level, "log-level", "info", "")
	fs.StringVar(&sf.format, "log-format", "text", "")
	fs.VisitAll(func(f *flag.Flag) { f.Value = &trackedValue{Value: f.Value, name: f.Name, sf: sf} })
	if path := configFlag(args); path != "" {
		if err := sf.readConfigFile(fs, path); err != nil {
			return nil, err
		}
	}
	sf.source = ""
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	if err := sf.check(); err != nil {
		return nil, err
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

// readConfigFile sets the flags named in a config file, one "name value"
// (or "name = value") a line, # comments. An unknown name or a bad value
// is an error naming the file and line.
func (sf *serveFlags) readConfigFile(fs *flag.FlagSet, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fileErr(path, err)
	}
	defer closeInput(f)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		name, value, hasValue := text, "", false
		if i := strings.IndexAny(text, " \t="); i >= 0 {
			name, value = text[:i], strings.TrimSpace(text[i:])
			value, hasValue = strings.TrimSpace(strings.TrimPrefix(value, "=")), true
		}
		where := fmt.Sprintf("%s:%d", path, line)
		fl := fs.Lookup(name)
		switch {
		case name == "config" || name == "check-config":
			return fmt.Errorf("%s: %s belongs on the command line, not in a config file", where, name)
		case fl == nil:
			return fmt.Errorf("%s: unknown key %q (see bloomcast serve -h)", where, name)
		case value == "" && !isBoolFlag(fl):
			return fmt.Errorf("%s: %s needs a value", where, name)
		case !hasValue:
			value = "true"
		}
		sf.source = where
		if err := fl.Value.Set(value); err != nil {
			return fmt.Errorf("%s: %s %s: %w", where, name, value, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fileErr(path, err)
	}
	return nil
}

// errf is an error about the value of the flag called name: "FILE:LINE:
// name value: ..." when the config file set it, "serve: --name value:
// ..." when the command line did.
func (sf *serveFlags) errf(name, format string, a ...any) error {
	return sf.errAt(sf.from[name], name, sf.raw[name], format, a...)
}

func (sf *serveFlags) errAt(where, name, value, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if value == "" {
		value = `""`
	}
	if where != "" {
		return fmt.Errorf("%s: %s %s: %s", where, name, value, msg)
	}
	return fmt.Errorf("serve: --%s %s: %s", name, value, msg)
}

func (sf *serveFlags) isSet(name string) bool {
	_, ok := sf.from[name]
	return ok
}

// check refuses values that mean nothing, or nothing sensible, and fills
// the NodeConfig from the parsed flags.
func (sf *serveFlags) check() error {
	c := &sf.cfg
	codec, err := digest.ParseCodec(sf.codec)
	if err != nil {
		return sf.errf("codec", "want fast, arith, raw or auto")
	}
	for _, s := range []struct {
		name string
		v    byteSize
	}{{"memory", sf.memory}, {"disk-size", sf.disk}, {"max-object", sf.obj}, {"max-digest", sf.maxDig}} {
		if s.v <= 0 {
			return sf.errf(s.name, "want a size above 0")
		}
	}
	budget, budgetName := sf.memory, "memory"
	if c.DiskDir != "" {
		budget, budgetName = sf.disk, "disk-size"
	}
	if sf.obj > budget {
		if !sf.isSet("max-object") {
			return sf.errf(budgetName, "smaller than the largest object stored (--max-object, %d bytes)", int64(sf.obj))
		}
		return sf.errf("max-object", "larger than the whole cache (--%s, %d bytes)", budgetName, int64(budget))
	}
	if sf.capacity < 1 || sf.capacity > 1<<32 {
		return sf.errf("capacity", "want a number of objects from 1 to 2^32")
	}
	if !(c.BitsPerEntry >= 1 && c.BitsPerEntry <= 4096) {
		return sf.errf("bits-per-entry", "want bits per object from 1 to 4096")
	}
	if sf.isSet("hash-functions") && (c.HashFunctions < 1 || c.HashFunctions > params.MaxK) {
		return sf.errf("hash-functions", "want a whole number from 1 to %d (leave it out for the best k)", params.MaxK)
	}
	if !(c.Threshold > 0 && c.Threshold <= 1) {
		return sf.errf("threshold", "want a fraction of the cache in (0, 1], such as 0.01")
	}
	if sf.squidBits < 1 || sf.squidBits > 255 {
		return sf.errf("squid-bits", "want bits per entry from 1 to 255")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"max-digest-age", c.MaxDigestAge}, {"poll", c.PollInterval}, {"peer-timeout", c.PeerTimeout},
		{"icp-timeout", c.ICPTimeout}, {"tunnel-idle-timeout", c.TunnelIdle}, {"tunnel-lifetime", c.TunnelLifetime}} {
		if d.v < cache.MinInterval {
			return sf.errf(d.name, "want a duration of at least %v, such as 30s", cache.MinInterval)
		}
	}
	if sf.isSet("peer-expiry") && c.PeerExpiry < c.PollInterval {
		return sf.errf("peer-expiry", "shorter than --poll (%v): every view would expire between polls", c.PollInterval)
	}
	if err := checkHostPort(c.Listen); err != nil {
		return sf.errf("listen", "%v", err)
	}
	if sf.isSet("icp") {
		if err := checkHostPort(c.ICPListen); err != nil {
			return sf.errf("icp", "%v", err)
		}
	}
	switch c.Route {
	case cache.RouteDigest, cache.RouteNone:
	case cache.RouteICP:
		if c.ICPListen == "" {
			return sf.errf("route", "routing by ICP needs --icp, the address to send queries from")
		}
	default:
		return sf.errf("route", "want digest, icp or none")
	}
	if c.PeerViews != cache.PeerViewsDecoded && c.PeerViews != cache.PeerViewsCompressed {
		return sf.errf("peer-views", "want compressed or decoded")
	}
	for _, name := range []string{"allow-clients", "allow-peers"} {
		if sf.isSet(name) && len(sf.allowList(name)) == 0 {
			return sf.errf(name, "want at least one range (leave it out for loopback only)")
		}
	}
	if sf.isSet("connect-ports") && len(sf.connectPorts) == 0 {
		return sf.errf("connect-ports", "want at least one port")
	}
	if sf.isSet("name") && !isToken(c.Name) {
		return sf.errf("name", "want letters, digits, dots or dashes (it goes in Via headers)")
	}
	if _, err := newLogger(io.Discard, new(slog.LevelVar), sf.level, sf.format); err != nil {
		name := "log-level"
		if strings.HasPrefix(err.Error(), "--log-format") {
			name = "log-format"
		}
		return sf.errf(name, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "--"+name), ": "))
	}
	c.Codec, c.Peers = codec, sf.peers
	c.MemoryBytes, c.DiskBytes, c.MaxObjectBytes, c.MaxDigestBytes = int64(sf.memory), int64(sf.disk), int64(sf.obj), int64(sf.maxDig)
	c.Capacity, c.SquidBitsPerEntry = uint64(sf.capacity), uint8(sf.squidBits)
	c.AllowClients, c.AllowPeers, c.ConnectPorts = sf.allowClients, sf.allowPeers, sf.connectPorts
	seen := map[string]string{}
	for i, p := range sf.peers {
		where := sf.peerFrom[i]
		if c.IsSelf(p) {
			return sf.errAt(where, "peer", p.Proxy, "this node itself (its --name or its --listen address)")
		}
		if _, dup := seen[p.Proxy]; dup {
			return sf.errAt(where, "peer", p.Proxy, "listed twice")
		}
		seen[p.Proxy] = where
	}
	return nil
}

func (sf *serveFlags) allowList(name string) prefixList {
	if name == "allow-clients" {
		return sf.allowClients
	}
	return sf.allowPeers
}

// checkHostPort checks a "host:port" listening address.
func checkHostPort(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("want host:port, such as 127.0.0.1:3128")
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || port == "" || n == 0 && port != "0" {
		return fmt.Errorf("want a port from 0 to 65535")
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token, as a Via pseudonym is.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// checkOnly is serve --check-config: the configuration parsed and
// checked, and the access log's directory present, without serving.
func checkOnly(e *env, sf *serveFlags) error {
	if sf.accessLog != "" && sf.accessLog != "-" {
		dir := filepath.Dir(sf.accessLog)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return sf.errf("access-log", "no directory %s", dir)
		}
	}
	if sf.config != "" {
		fprintf(e.stdout, "%s: configuration ok\n", sf.config)
	} else {
		fprintln(e.stdout, "configuration ok")
	}
	return nil
}

// portList is a comma-separated list of TCP ports.
type portList []uint16

func (p *portList) String() string {
	s := make([]string, len(*p))
	for i, v := range *p {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ",")
}

func (p *portList) Set(s string) error {
	*p = nil
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 16)
		if err != nil || v == 0 {
			return fmt.Errorf("%q is not a port from 1 to 65535", f)
		}
		*p = append(*p, uint16(v))
	}
	return nil
}
