package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
)

var serveCommand = &command{
	name:    "serve",
	summary: "run a summary-cache node: a caching proxy sharing digests with its peers",
	usage: `usage: bloomcast serve [--config FILE] [flags]

Run a caching HTTP forward proxy that publishes a compressed digest of its
contents (a Bloom filter, kept exact by a counting filter) and fetches its
peers' digests, so that a miss goes only to a peer that probably holds the
object (Fan, Cao, Almeida and Broder, "Summary cache"). It speaks Squid's
Cache Digests too, as server and client, and ICP. With no flags it is a
single node on 127.0.0.1:3128 with a 256 MiB memory cache.

The proxy port also serves, to allowed peers and locally:
  /bloomcast/digest                      the digest (?since=SEQ for a delta;
                                         ETag and If-None-Match)
  /squid-internal-periodic/store_digest  a Squid Cache Digest (version 5)
  /metrics                               Prometheus metrics
  /healthz                               "ok"
SIGINT or SIGTERM stops it gracefully: requests in flight finish first.

The config FILE holds one flag per line, "name value" (or "name = value"),
# comments; flags on the command line come after it and win (a --peer on
the command line adds a peer).

flags:
  --listen ADDR          proxy address (default 127.0.0.1:3128)
  --icp ADDR             ICP (UDP) address, e.g. 127.0.0.1:3130 (default none)
  --name NAME            pseudonym in Via headers (default bloomcast)
  --memory SIZE          memory cache budget (default 256MiB)
  --disk DIR             keep the cache on disk in DIR instead (survives
                         restarts)
  --disk-size SIZE       disk cache budget (default 1GiB)
  --max-object SIZE      largest object stored (default 4MiB)
  --capacity N           objects the digests are sized for (default 100000)
  --bits-per-entry X     digest bits per object, m/n (default 16)
  --hash-functions K     the digest's k (default: the best for
                         --bits-per-entry; "bloomcast calc --compressed"
                         gives a larger m/n and a smaller k that code
                         smaller at the same rate)
  --threshold F          fraction of the cache changed that publishes a new
                         digest (default 0.01)
  --max-digest-age DUR   publish at least this often when anything changed
                         (default 5m)
  --codec C              digest codec: fast, arith, raw or auto (default fast)
  --squid-bits N         bits per entry of the Squid digest (default 5)
  --peer SPEC            a peer; repeat for more. SPEC is the peer's proxy URL,
                         or comma-separated key=value pairs: proxy=URL,
                         name=NAME, protocol=bloomcast|squid, digest=URL,
                         icp=IP:PORT
  --route R              how misses are routed: digest, icp or none
                         (default digest)
  --poll DUR             how often peers' digests are fetched (default 30s)
  --peer-expiry DUR      drop a silent peer's digest after (default 4 polls)
  --max-digest SIZE      largest digest accepted from a peer (default 64MiB)
  --no-delta             always fetch peers' full digests, never deltas
  --peer-timeout DUR     wait for a peer's response headers (default 5s)
  --icp-timeout DUR      wait for ICP replies (default 2s)
  --allow-clients CIDRS  comma-separated ranges allowed to use the proxy
                         (default loopback)
  --allow-peers CIDRS    ranges allowed to fetch digests and query ICP
                         (default loopback)
  --access-log FILE      Squid-format access log ("-": standard output)
  --log-level L          debug, info, warn or error (default info)
  --log-format F         text or json (default text), on standard error
`,
	run: runServe,
}

// byteSize is a size flag: a number with an optional K, M, G (powers of
// 1024, with or without "iB"/"B").
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

// peerList collects --peer flags.
type peerList []cache.PeerConfig

func (p *peerList) String() string { return fmt.Sprint(len(*p)) }

func (p *peerList) Set(s string) error {
	var pc cache.PeerConfig
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
				proto, err := cache.ParseProtocol(v)
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

// serveFlags are serve's flags, bound to a NodeConfig.
type serveFlags struct {
	cfg                       cache.NodeConfig
	memory, disk, obj, maxDig byteSize
	capacity                  countValue
	squidBits                 countValue
	codec, accessLog, level   string
	format, config            string
	peers                     peerList
	allowClients, allowPeers  prefixList
}

func runServe(e *env, args []string) error {
	sf, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	logger, err := newLogger(e.stderr, sf.level, sf.format)
	if err != nil {
		return usagef("%v", err)
	}
	cfg := sf.cfg
	cfg.Logger = logger
	if sf.accessLog != "" {
		w, closeLog, err := openAppend(e, sf.accessLog)
		if err != nil {
			return err
		}
		defer closeLog()
		cfg.AccessLog = w
	}
	n, err := cache.NewNode(cfg)
	if err != nil {
		return err
	}
	ctx := e.ctx
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return n.ListenAndServe(ctx)
}

// parseServeFlags reads the config file, if any, then the command line.
func parseServeFlags(args []string) (*serveFlags, error) {
	sf := &serveFlags{codec: "fast", level: "info", format: "text"}
	fs := newFlagSet("serve")
	c := &sf.cfg
	fs.StringVar(&sf.config, "config", "", "")
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
	fs.DurationVar(&c.PeerTimeout, "peer-timeout", 5*time.Second, "")
	fs.DurationVar(&c.ICPTimeout, "icp-timeout", 2*time.Second, "")
	fs.Var(&sf.allowClients, "allow-clients", "")
	fs.Var(&sf.allowPeers, "allow-peers", "")
	fs.StringVar(&sf.accessLog, "access-log", "", "")
	fs.StringVar(&sf.level, "log-level", "info", "")
	fs.StringVar(&sf.format, "log-format", "text", "")
	if path := configFlag(args); path != "" {
		fileArgs, err := readConfigFile(path)
		if err != nil {
			return nil, err
		}
		args = append(fileArgs, args...)
	}
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	codec, err := digest.ParseCodec(sf.codec)
	if err != nil {
		return nil, usagef("--codec: %v", err)
	}
	if sf.squidBits > 255 {
		return nil, usagef("--squid-bits: at most 255")
	}
	c.Codec, c.Peers = codec, sf.peers
	c.MemoryBytes, c.DiskBytes, c.MaxObjectBytes, c.MaxDigestBytes = int64(sf.memory), int64(sf.disk), int64(sf.obj), int64(sf.maxDig)
	c.Capacity, c.SquidBitsPerEntry = uint64(sf.capacity), uint8(sf.squidBits)
	c.AllowClients, c.AllowPeers = sf.allowClients, sf.allowPeers
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

// readConfigFile turns "name value" lines into flags.
func readConfigFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	var args []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		name, value := text, ""
		if i := strings.IndexAny(text, " \t="); i >= 0 {
			name, value = text[:i], strings.TrimSpace(text[i:])
			value = strings.TrimSpace(strings.TrimPrefix(value, "="))
		}
		if name == "config" {
			return nil, fileErr(path, fmt.Errorf("line %d: a config file cannot include another", line))
		}
		if value == "" {
			args = append(args, "--"+name)
		} else {
			args = append(args, "--"+name, value)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fileErr(path, err)
	}
	return args, nil
}

// newLogger builds the node's slog logger on w.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: want debug, info, warn or error")
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: want text or json")
}

// openAppend opens an access log for appending ("-": standard output).
func openAppend(e *env, path string) (io.Writer, func(), error) {
	if path == "-" {
		return e.stdout, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fileErr(path, err)
	}
	return f, func() { f.Close() }, nil
}
