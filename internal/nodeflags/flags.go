// Package nodeflags is a summary-cache node's settings (node.NodeConfig)
// as the command-line flags and config file of `bloomcast serve`: their
// names, defaults and checks, the errors that name the flag and where it
// was set, the names a reload reports, and the node's logger. The command
// (internal/cli) is its one user; a Go program embedding a node fills a
// node.NodeConfig itself.
package nodeflags

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/internal/flagvalue"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/params"
)

// NodeFlags are a node.Node's settings as command-line flags, the ones
// "bloomcast serve" takes, and a config file of the same flags, one a
// line. Register binds them to a flag.FlagSet, ReadConfigFile sets
// them from a file, the FlagSet's Parse from a command line (which comes
// after the file and wins), and Check refuses values that mean nothing
// and fills Config. An error about a value names the flag and, for a
// value from a config file, the file and line (*ConfigError).
//
// Make one with NewNodeFlags; the zero value is not usable (Register and
// Check return an error).
type NodeFlags struct {
	// Config is the node's configuration, filled in by Check.
	Config node.NodeConfig
	// AccessLog is the access log's path ("-": standard output; "":
	// none); LogLevel (debug, info, warn, error) and LogFormat (text,
	// json) configure NewLogger. Check checks the last two.
	AccessLog, LogLevel, LogFormat string
	// Help says where the flags are described, for the error about an
	// unknown key in a config file ("see Help").
	Help string

	memory, disk, obj, maxDig byteSize
	maxHead                   byteSize
	capacity, squidBits       uint64
	codec                     string
	peers                     peerList
	allowClients, allowPeers  prefixList
	allowHosts                hostList
	denyTo                    denyList
	connectPorts              portList

	fs       *flag.FlagSet
	own      map[string]bool   // the flags Register defined, and those AllowInConfig adds
	source   string            // where the flags being set come from: "FILE:LINE", or "" for the command line
	from     map[string]string // flag name → source of its last setting
	raw      map[string]string // flag name → the text of its last setting
	peerFrom []string          // source of each peer
}

// NewNodeFlags returns the flags at their defaults: a single node on
// 127.0.0.1:3128 with a 256 MiB memory cache.
func NewNodeFlags() *NodeFlags {
	return &NodeFlags{LogLevel: "info", LogFormat: "text", codec: "fast",
		memory: 256 << 20, disk: 1 << 30, obj: cache.DefaultMaxObjectBytes, maxDig: 64 << 20, maxHead: node.DefaultMaxRequestHeaderBytes,
		capacity: 100000, squidBits: 5, connectPorts: portList{443},
		own: map[string]bool{}, from: map[string]string{}, raw: map[string]string{}}
}

// A ConfigError is a value a node's flag may not take: Where is
// "FILE:LINE" for a value from a config file, "" for one from the
// command line. The zero value is usable: it prints an empty message
// about flag "".
type ConfigError struct {
	Where, Name, Value string
	Err                error
}

func (e *ConfigError) Error() string {
	v := e.Value
	if v == "" {
		v = `""`
	}
	if e.Where != "" {
		return fmt.Sprintf("%s: %s %s: %v", e.Where, e.Name, v, e.Err)
	}
	return fmt.Sprintf("--%s %s: %v", e.Name, v, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// errNotMade is the error of NodeFlags not made by NewNodeFlags.
var errNotMade = fmt.Errorf("%w: NodeFlags not made by NewNodeFlags", cache.ErrConfig)

// Register defines the node's flags on fs (listen, icp, name, memory,
// disk, disk-size, max-object, capacity, bits-per-entry,
// hash-functions, threshold, max-digest-age, codec, squid-bits, peer,
// route, poll, push-interval, peer-expiry, max-digest, no-delta, peer-views,
// full-digests, peer-timeout,
// icp-timeout, icp-replies, max-connections, allow-clients, allow-peers, allow-host, deny-to, max-request-header, connect-ports,
// tunnel-idle-timeout, tunnel-lifetime, read-timeout, access-log, log-level,
// log-format), with empty usage strings: the program documents them.
// Call it once, before ReadConfigFile and Parse.
func (nf *NodeFlags) Register(fs *flag.FlagSet) error {
	if nf == nil || nf.own == nil {
		return errNotMade
	}
	c := &nf.Config
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:3128", "")
	fs.StringVar(&c.ICPListen, "icp", "", "")
	fs.StringVar(&c.Name, "name", "", "")
	fs.Var(&nf.memory, "memory", "")
	fs.StringVar(&c.DiskDir, "disk", "", "")
	fs.Var(&nf.disk, "disk-size", "")
	fs.Var(&nf.obj, "max-object", "")
	fs.Var((*flagvalue.Count)(&nf.capacity), "capacity", "")
	fs.Float64Var(&c.BitsPerEntry, "bits-per-entry", 16, "")
	fs.IntVar(&c.HashFunctions, "hash-functions", 0, "")
	fs.Float64Var(&c.Threshold, "threshold", node.DefaultThreshold, "")
	fs.DurationVar(&c.MaxDigestAge, "max-digest-age", 5*time.Minute, "")
	fs.StringVar(&nf.codec, "codec", "fast", "")
	fs.Var((*flagvalue.Count)(&nf.squidBits), "squid-bits", "")
	fs.Var(&nf.peers, "peer", "")
	fs.StringVar((*string)(&c.Route), "route", string(node.RouteDigest), "")
	fs.DurationVar(&c.PollInterval, "poll", 30*time.Second, "")
	fs.DurationVar(&c.PushInterval, "push-interval", 0, "")
	fs.DurationVar(&c.PeerExpiry, "peer-expiry", 0, "")
	fs.Var(&nf.maxDig, "max-digest", "")
	fs.BoolVar(&c.NoDelta, "no-delta", false, "")
	fs.StringVar((*string)(&c.PeerViews), "peer-views", string(node.PeerViewsDecoded), "")
	fs.StringVar((*string)(&c.FullDigests), "full-digests", string(node.FullDigestsBloom), "")
	fs.DurationVar(&c.PeerTimeout, "peer-timeout", 5*time.Second, "")
	fs.DurationVar(&c.ICPTimeout, "icp-timeout", 2*time.Second, "")
	fs.IntVar(&c.ICPReplies, "icp-replies", icp.DefaultReplies, "")
	fs.IntVar(&c.MaxConnections, "max-connections", node.DefaultMaxConnections, "")
	fs.Var(&nf.allowClients, "allow-clients", "")
	fs.Var(&nf.allowPeers, "allow-peers", "")
	fs.Var(&nf.allowHosts, "allow-host", "")
	nf.denyTo = denyList(node.DefaultDenyDestinations())
	fs.Var(&nf.denyTo, "deny-to", "")
	fs.Var(&nf.maxHead, "max-request-header", "")
	fs.Var(&nf.connectPorts, "connect-ports", "")
	fs.DurationVar(&c.TunnelIdle, "tunnel-idle-timeout", node.DefaultTunnelIdle, "")
	fs.DurationVar(&c.TunnelLifetime, "tunnel-lifetime", node.DefaultTunnelLifetime, "")
	fs.DurationVar(&c.ReadTimeout, "read-timeout", cache.DefaultReadTimeout, "")
	fs.StringVar(&nf.AccessLog, "access-log", "", "")
	fs.StringVar(&nf.LogLevel, "log-level", "info", "")
	fs.StringVar(&nf.LogFormat, "log-format", "text", "")
	fs.VisitAll(func(f *flag.Flag) {
		if !before[f.Name] {
			nf.own[f.Name] = true
		}
		f.Value = &trackedValue{Value: f.Value, name: f.Name, nf: nf}
	})
	nf.fs = fs
	return nil
}

// trackedValue records, for each flag set, where and how.
type trackedValue struct {
	flag.Value
	name string
	nf   *NodeFlags
}

func (t *trackedValue) Set(s string) error {
	if err := t.Value.Set(s); err != nil {
		return err
	}
	t.nf.from[t.name], t.nf.raw[t.name] = t.nf.source, s
	if t.name == "peer" {
		t.nf.peerFrom = append(t.nf.peerFrom, t.nf.source)
	}
	return nil
}

func (t *trackedValue) IsBoolFlag() bool {
	b, ok := t.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// AllowInConfig lets the config file set the flags called names, which
// the program defined on the FlagSet besides Register's own (a flag of
// its own build, such as serve's --nats). Call it after Register; a name
// the FlagSet lacks is an error.
func (nf *NodeFlags) AllowInConfig(names ...string) error {
	if nf == nil || nf.fs == nil {
		return errNotMade
	}
	for _, name := range names {
		f := nf.fs.Lookup(name)
		if f == nil {
			return fmt.Errorf("cache: AllowInConfig: no flag %q", name)
		}
		if _, tracked := f.Value.(*trackedValue); !tracked {
			f.Value = &trackedValue{Value: f.Value, name: name, nf: nf}
		}
		nf.own[name] = true
	}
	return nil
}

// IsSet reports whether the flag called name was set, by the config file
// or the command line.
func (nf *NodeFlags) IsSet(name string) bool {
	_, ok := nf.from[name]
	return ok
}

// ReadConfigFile sets the flags named in the config file at path, one
// "name value" (or "name = value") a line, # comments; a boolean flag
// alone is set true. An unknown name, a flag of fs that Register did not
// define (it belongs on the command line), a missing value or a bad one
// is an error naming the file and line.
func (nf *NodeFlags) ReadConfigFile(path string) error {
	if nf == nil || nf.fs == nil {
		return errNotMade
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: what was read is checked
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
		fl := nf.fs.Lookup(name)
		switch {
		case fl != nil && !nf.own[name]:
			return fmt.Errorf("%s: %s belongs on the command line, not in a config file", where, name)
		case fl == nil:
			return fmt.Errorf("%s: unknown key %q (see %s)", where, name, nf.Help)
		case value == "" && !isBoolFlag(fl):
			return fmt.Errorf("%s: %s needs a value", where, name)
		case !hasValue:
			value = "true"
		}
		nf.source = where
		err := fl.Value.Set(value)
		nf.source = ""
		if err != nil {
			return fmt.Errorf("%s: %s %s: %w", where, name, value, err)
		}
	}
	if err := sc.Err(); err != nil {
		return &os.PathError{Op: "read", Path: path, Err: err}
	}
	return nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// errf is a *ConfigError about the value of the flag called name.
func (nf *NodeFlags) errf(name, format string, a ...any) error {
	return &ConfigError{Where: nf.from[name], Name: name, Value: nf.raw[name], Err: fmt.Errorf(format, a...)}
}

// Check refuses values that mean nothing, or nothing sensible (a size,
// count, duration or threshold of 0, a negative duration, an empty list,
// a peer that is this node or is listed twice), with a *ConfigError, and
// fills Config from the flags.
func (nf *NodeFlags) Check() error {
	if nf == nil || nf.fs == nil {
		return errNotMade
	}
	c := &nf.Config
	codec, err := digest.ParseCodec(nf.codec)
	if err != nil {
		return nf.errf("codec", "want fast, arith, raw or auto")
	}
	for _, s := range []struct {
		name string
		v    byteSize
	}{{"memory", nf.memory}, {"disk-size", nf.disk}, {"max-object", nf.obj}, {"max-digest", nf.maxDig}} {
		if s.v <= 0 {
			return nf.errf(s.name, "want a size above 0")
		}
	}
	budget, budgetName := nf.memory, "memory"
	if c.DiskDir != "" {
		budget, budgetName = nf.disk, "disk-size"
	}
	if nf.obj > budget {
		if !nf.IsSet("max-object") {
			return nf.errf(budgetName, "smaller than the largest object stored (--max-object, %d bytes)", int64(nf.obj))
		}
		return nf.errf("max-object", "larger than the whole cache (--%s, %d bytes)", budgetName, int64(budget))
	}
	if nf.capacity < 1 || nf.capacity > 1<<32 {
		return nf.errf("capacity", "want a number of objects from 1 to 2^32")
	}
	if !(c.BitsPerEntry >= 1 && c.BitsPerEntry <= 4096) {
		return nf.errf("bits-per-entry", "want bits per object from 1 to 4096")
	}
	if nf.IsSet("hash-functions") && (c.HashFunctions < 1 || c.HashFunctions > params.MaxK) {
		return nf.errf("hash-functions", "want a whole number from 1 to %d (leave it out for the best k)", params.MaxK)
	}
	if !(c.Threshold > 0 && c.Threshold <= 1) {
		return nf.errf("threshold", "want a fraction of the cache in (0, 1], such as 0.01")
	}
	if nf.squidBits < 1 || nf.squidBits > 255 {
		return nf.errf("squid-bits", "want bits per entry from 1 to 255")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"max-digest-age", c.MaxDigestAge}, {"poll", c.PollInterval}, {"peer-timeout", c.PeerTimeout},
		{"icp-timeout", c.ICPTimeout}, {"tunnel-idle-timeout", c.TunnelIdle}, {"tunnel-lifetime", c.TunnelLifetime},
		{"read-timeout", c.ReadTimeout}} {
		if d.v < cache.MinInterval {
			return nf.errf(d.name, "want a duration of at least %v, such as 30s", cache.MinInterval)
		}
	}
	if c.PushInterval < 0 || c.PushInterval > 0 && c.PushInterval < cache.MinInterval {
		return nf.errf("push-interval", "want 0 (push every publication) or a duration of at least %v, such as 30s", cache.MinInterval)
	}
	if nf.IsSet("peer-expiry") && c.PeerExpiry < c.PollInterval {
		return nf.errf("peer-expiry", "shorter than --poll (%v): every view would expire between polls", c.PollInterval)
	}
	if c.MaxConnections < 1 {
		return nf.errf("max-connections", "want a number of client connections of at least 1, such as %d", node.DefaultMaxConnections)
	}
	if c.ICPReplies < 1 {
		return nf.errf("icp-replies", "want a number of ICP replies a second of at least 1, such as %d", icp.DefaultReplies)
	}
	if err := checkHostPort(c.Listen); err != nil {
		return nf.errf("listen", "%v", err)
	}
	if nf.IsSet("icp") {
		if err := checkHostPort(c.ICPListen); err != nil {
			return nf.errf("icp", "%v", err)
		}
	}
	route, err := node.ParseRoute(string(c.Route))
	if err != nil || c.Route == "" {
		return nf.errf("route", "want digest, icp or none")
	}
	if route == node.RouteICP && c.ICPListen == "" {
		return nf.errf("route", "routing by ICP needs --icp, the address to send queries from")
	}
	if views, err := node.ParsePeerViews(string(c.PeerViews)); err != nil || views != c.PeerViews {
		return nf.errf("peer-views", "want compressed or decoded")
	}
	if full, err := node.ParseFullDigests(string(c.FullDigests)); err != nil || full != c.FullDigests {
		return nf.errf("full-digests", "want bloom, static or static-xor")
	}
	for _, a := range []struct {
		name string
		list prefixList
	}{{"allow-clients", nf.allowClients}, {"allow-peers", nf.allowPeers}} {
		if nf.IsSet(a.name) && len(a.list) == 0 {
			return nf.errf(a.name, "want at least one range (leave it out for loopback only)")
		}
	}
	if nf.maxHead < node.MinRequestHeaderBytes || nf.maxHead > 1<<30 {
		return nf.errf("max-request-header", "want a size from %d bytes to 1GiB, such as 64KiB", node.MinRequestHeaderBytes)
	}
	if nf.IsSet("connect-ports") && len(nf.connectPorts) == 0 {
		return nf.errf("connect-ports", "want at least one port")
	}
	if nf.IsSet("name") && !httpx.IsToken(c.Name) {
		return nf.errf("name", "want letters, digits, dots or dashes (it goes in Via headers)")
	}
	if _, err := NewLogger(io.Discard, new(slog.LevelVar), nf.LogLevel, "text"); err != nil {
		return nf.errf("log-level", "want debug, info, warn or error")
	}
	if _, err := NewLogger(io.Discard, new(slog.LevelVar), "info", nf.LogFormat); err != nil {
		return nf.errf("log-format", "want text or json")
	}
	c.Codec, c.Peers = codec, nf.peers
	c.MemoryBytes, c.DiskBytes, c.MaxObjectBytes, c.MaxDigestBytes = int64(nf.memory), int64(nf.disk), int64(nf.obj), int64(nf.maxDig)
	c.Capacity, c.SquidBitsPerEntry = nf.capacity, uint8(nf.squidBits)
	c.MaxRequestHeaderBytes = int(nf.maxHead)
	c.AllowClients, c.AllowPeers, c.ConnectPorts = nf.allowClients, nf.allowPeers, nf.connectPorts
	c.AllowHosts = nf.allowHosts
	c.DenyDestinations = append([]netip.Prefix{}, nf.denyTo...) // non-nil: "none" denies nothing
	seen, named := map[string]bool{}, map[string]bool{}
	for i, p := range nf.peers {
		where := nf.peerFrom[i]
		if c.IsSelf(p) {
			return &ConfigError{Where: where, Name: "peer", Value: p.Proxy, Err: errors.New("this node itself (its --name or its --listen address)")}
		}
		if seen[p.Proxy] {
			return &ConfigError{Where: where, Name: "peer", Value: p.Proxy, Err: errors.New("listed twice")}
		}
		seen[p.Proxy] = true
		name := p.NameOrHost()
		if named[name] {
			return &ConfigError{Where: where, Name: "peer", Value: p.Proxy, Err: fmt.Errorf("another peer is named %q", name)}
		}
		named[name] = true
	}
	return nil
}

// restartFlags names the flag of each node.NodeConfig field that
// node.Node.Reconfigure cannot change while serving.
var restartFlags = map[string]string{
	"Listen": "listen", "ICPListen": "icp", "Name": "name", "MemoryBytes": "memory", "DiskDir": "disk",
	"DiskBytes": "disk-size", "MaxObjectBytes": "max-object", "Capacity": "capacity",
	"BitsPerEntry": "bits-per-entry", "HashFunctions": "hash-functions", "Codec": "codec",
	"SquidBitsPerEntry": "squid-bits", "Route": "route", "PollInterval": "poll", "PeerExpiry": "peer-expiry", "PushInterval": "push-interval",
	"MaxDigestBytes": "max-digest", "NoDelta": "no-delta", "PeerViews": "peer-views", "FullDigests": "full-digests", "PeerTimeout": "peer-timeout", "ICPTimeout": "icp-timeout",
	"ICPReplies": "icp-replies", "MaxConnections": "max-connections",
	"ConnectPorts": "connect-ports", "TunnelIdle": "tunnel-idle-timeout", "TunnelLifetime": "tunnel-lifetime",
	"MaxRequestHeaderBytes": "max-request-header",
}

// FlagNames returns the flags ("--listen", …) of node.NodeConfig fields,
// as node.Node.Reconfigure names those it kept: what a reload must tell the
// operator changes only when the node starts again. A field without a
// flag keeps its own name.
func FlagNames(fields []string) []string {
	var out []string
	for _, f := range fields {
		name, ok := restartFlags[f]
		if !ok {
			name = f
		}
		out = append(out, "--"+name)
	}
	return out
}

// NewLogger returns a slog logger on w at level (debug, info, warn or
// error; lv holds it, so that it can change while the node runs) in
// format (text or json).
func NewLogger(w io.Writer, lv *slog.LevelVar, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("%w: log level %q: want debug, info, warn or error", cache.ErrConfig, level)
	}
	lv.Set(l)
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("%w: log format %q: want text or json", cache.ErrConfig, format)
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

// byteSize is a size flag: a number with an optional K, M, G or T
// (powers of 1024, with or without "iB"/"B").
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return errors.New("want a size such as 4096, 64KiB, 256MiB or 2GiB")
	}
	*b = byteSize(v * mult)
	return nil
}

// peerList collects peer flags: a proxy URL, or comma-separated
// key=value pairs.
type peerList []node.PeerConfig

func (p *peerList) String() string { return fmt.Sprint(len(*p)) }

func (p *peerList) Set(s string) error {
	var pc node.PeerConfig
	if !strings.Contains(s, "=") {
		pc.Proxy = s
	} else {
		for _, kv := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return fmt.Errorf("%q: want key=value", kv)
			}
			switch k {
			case "proxy":
				pc.Proxy = v
			case "name":
				pc.Name = v
			case "digest":
				pc.DigestURL = v
			case "icp":
				pc.ICP = v
			case "protocol":
				proto, err := node.ParseProtocol(v)
				if err != nil {
					return err
				}
				pc.Protocol = proto
			default:
				return fmt.Errorf("unknown peer key %q (want proxy, name, protocol, digest or icp)", k)
			}
		}
	}
	if pc.Proxy == "" {
		return errors.New("a peer needs proxy=URL")
	}
	*p = append(*p, pc)
	return nil
}

// prefixList is a comma-separated list of CIDR ranges (or addresses).
type prefixList []netip.Prefix

func (p *prefixList) String() string { return fmt.Sprint(*p) }

func (p *prefixList) Set(s string) error {
	*p = nil
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		pr, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return fmt.Errorf("%q is not a CIDR range or an address", f)
			}
			pr = netip.PrefixFrom(a, a.BitLen())
		}
		*p = append(*p, pr)
	}
	return nil
}

// hostList collects --allow-host names: the flag repeats, one name
// each.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(s string) error {
	s = strings.TrimSpace(s)
	if !httpx.IsHostName(s) {
		return errors.New("want a host name without a port, such as node1.example.com")
	}
	*h = append(*h, s)
	return nil
}

// denyList is --deny-to: a prefixList, or "none".
type denyList prefixList

func (d *denyList) String() string {
	if len(*d) == 0 {
		return "none"
	}
	return (*prefixList)(d).String()
}

func (d *denyList) Set(s string) error {
	if strings.TrimSpace(s) == "none" {
		*d = denyList{}
		return nil
	}
	if err := (*prefixList)(d).Set(s); err != nil {
		return err
	}
	if len(*d) == 0 {
		return errors.New(`want at least one range, or "none"`)
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
