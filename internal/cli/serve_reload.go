package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/bloomcast/bloomcast/internal/logfile"
	"github.com/bloomcast/bloomcast/internal/nodeflags"
	"github.com/bloomcast/bloomcast/node"
)

func runServe(e *env, args []string) (err error) {
	sf, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	if sf.nats != "" && e.opts.NATS == nil {
		return fmt.Errorf("serve --nats: %w", errNoNATS)
	}
	if sf.checkConfig {
		return checkOnly(e, sf)
	}
	var hup chan os.Signal
	if e.ctx == nil {
		// Caught from the start: SIGHUP's default action ends the
		// process, and a reload (logrotate's, systemctl's) may come
		// while the node still opens its disk cache or access log. One
		// that comes then is applied once the node runs.
		hup = make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		// Ignored, not restored to its default, once serve returns: a
		// reload that comes while the process exits (logrotate during
		// a stop) would otherwise end it, with status 129 for 0.
		defer signal.Ignore(syscall.SIGHUP)
	}
	level := new(slog.LevelVar)
	logger, err := nodeflags.NewLogger(e.stderr, level, sf.LogLevel, sf.LogFormat)
	if err != nil {
		return err
	}
	cfg := sf.cfg
	cfg.Logger = logger
	warnSharedName(logger, cfg)
	var alog *logfile.File
	if sf.AccessLog != "" {
		if alog, err = logfile.Open(sf.AccessLog, e.stdout, logger); err != nil {
			return fileErr(sf.AccessLog, err)
		}
		defer func() {
			if cerr := alog.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("access log: %w", cerr)
			}
		}()
		cfg.AccessLog = alog
	}
	if sf.nats != "" {
		if cfg.Transport, err = e.opts.NATS(NATSConfig{URL: sf.nats, MaxDigestBytes: cfg.MaxDigestBytes, Logger: logger}); err != nil {
			return fmt.Errorf("serve: --nats %s: %w", sf.nats, err)
		}
	}
	n, err := node.NewNode(cfg)
	if err != nil {
		return err
	}
	defer setMemoryLimit(n, logger)()
	ctx := e.ctx
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		// The first signal stops the node after the requests in flight;
		// with the handler gone, a second one ends the process at once,
		// which the disk cache survives as it survives SIGKILL.
		go func() {
			<-ctx.Done()
			stop()
		}()
		r := &reloader{args: args, sf: sf, level: level, log: logger, alog: alog, alogPath: sf.AccessLog, node: n}
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					r.reload()
				}
			}
		}()
	}
	if err := n.ListenAndServe(ctx); err != nil {
		if lerr := listenError(err); lerr != nil {
			return lerr // one line: the node never served
		}
		logger.Error("bloomcast node failed", "err", err)
		return err
	}
	return nil
}

// reloader applies a re-read configuration to a running node (SIGHUP).
type reloader struct {
	args  []string    // the command line, read again with the file
	sf    *serveFlags // the configuration the node started with
	level *slog.LevelVar
	log   *slog.Logger
	alog  *logfile.File // nil without an access log
	// alogPath is where alog writes: a reopen that failed left it at
	// the path before.
	alogPath string
	node     *node.Node
}

// reload re-reads the config file and the command line and applies what
// can change while serving: the peers, the allowed ranges and host
// names, the digest threshold and age, the log level and the access log,
// which is reopened (after logrotate has moved it). A configuration with an error is
// logged and the running one kept.
func (r *reloader) reload() {
	sf, err := parseServeFlags(r.args)
	if err != nil {
		r.log.Error("configuration not reloaded: the running one is kept", "err", message(err))
		return
	}
	cfg := sf.cfg
	cfg.Logger = r.log
	changed, err := r.node.Reconfigure(cfg)
	if err != nil {
		r.log.Error("configuration not reloaded: the running one is kept", "err", message(err))
		return
	}
	restart := nodeflags.FlagNames(changed)
	if sf.LogFormat != r.sf.LogFormat {
		restart = append(restart, "--log-format")
	}
	if sf.nats != r.sf.nats {
		restart = append(restart, "--nats")
	}
	var l slog.Level
	_ = l.UnmarshalText([]byte(sf.LogLevel)) // checked by parseServeFlags
	r.level.Set(l)
	switch {
	case r.alog != nil:
		if err := r.alog.Reopen(sf.AccessLog); err != nil {
			r.log.Error("access log not reopened: writing to the old one", "err", message(fileErr(sf.AccessLog, err)))
		} else {
			r.alogPath = sf.AccessLog
		}
	case sf.AccessLog != "":
		restart = append(restart, "--access-log")
	}
	r.log.Info("configuration reloaded", "peers", len(cfg.Peers), "log_level", l.String(), "access_log", r.alogPath)
	if len(restart) > 0 {
		r.log.Warn("these settings change only when the node starts again; their running values are kept", "flags", restart)
	}
}

// setMemoryLimit gives the process the soft memory limit that suits the
// node (node.Node.MemoryLimit: --memory plus the digests and peers'
// views, plus headroom that grows with the objects held), and sets it
// again every memoryLimitEvery while the cache fills, so that the
// collector keeps the heap near what the node accounts, unless
// GOMEMLIMIT set one. It returns the function that stops that and
// restores the limit before (for a serve run inside a test). It logs at
// debug level: the node's "serving" line says the limit in force, after
// the listener is open, so that a failed listen stays one line.
func setMemoryLimit(n *node.Node, log *slog.Logger) (restore func()) {
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		log.Debug("memory limit from GOMEMLIMIT", "GOMEMLIMIT", env, "suggested", n.MemoryLimit())
		return func() {}
	}
	limit := n.MemoryLimit()
	prev := debug.SetMemoryLimit(limit)
	log.Debug("memory limit set", "bytes", limit)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(memoryLimitEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if l := n.MemoryLimit(); l != limit {
					limit = l
					debug.SetMemoryLimit(l)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetMemoryLimit(prev)
	}
}

// memoryLimitEvery is how often serve sets the memory limit again as the
// cache fills.
const memoryLimitEvery = 2 * time.Second

// listenError is err in the user's words if it is a failure to open a
// listening socket (the port taken, an address not on this host, a port
// below 1024 without the right), or nil.
func listenError(err error) error {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "listen" {
		return nil
	}
	addr := ""
	if op.Addr != nil {
		addr = op.Addr.String()
	}
	why := op.Err.Error()
	var se *os.SyscallError
	if errors.As(op.Err, &se) {
		why = se.Err.Error()
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("serve: cannot listen on %s: another program holds the port; stop it, or give another --listen (or --icp)", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("serve: cannot listen on %s: no such address on this host; give one of its own, such as 127.0.0.1", addr)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("serve: cannot listen on %s: permission denied (ports below 1024 need privileges); give a port of 1024 or more", addr)
	}
	return fmt.Errorf("serve: cannot listen on %s: %s", addr, why)
}

// warnSharedName warns, at start, when the node has no --name and a peer
// runs on this host: both then call themselves by the host's name in Via
// and X-Cache ("HIT from vm", "MISS from vm"), and no one can tell which
// node answered.
func warnSharedName(log *slog.Logger, cfg node.NodeConfig) {
	if cfg.Name != "" {
		return
	}
	host, _ := os.Hostname()
	for _, p := range cfg.Peers {
		u, err := url.Parse(p.Proxy)
		if err != nil {
			continue
		}
		h := u.Hostname()
		ip, ipErr := netip.ParseAddr(h)
		if strings.EqualFold(h, "localhost") || ipErr == nil && ip.IsLoopback() || host != "" && strings.EqualFold(h, host) {
			log.Warn("no --name, and a peer runs on this host: both nodes call themselves "+host+" in Via and X-Cache, so a HIT from one reads as from the other; give each node its own --name",
				"peer", p.Proxy)
			return
		}
	}
}
