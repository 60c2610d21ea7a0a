package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/bloomcast/bloomcast/cache"
)

func runServe(e *env, args []string) (err error) {
	sf, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	if sf.checkConfig {
		return checkOnly(e, sf)
	}
	level := new(slog.LevelVar)
	logger, err := cache.NewLogger(e.stderr, level, sf.LogLevel, sf.LogFormat)
	if err != nil {
		return err
	}
	cfg := sf.cfg
	cfg.Logger = logger
	var alog *accessLogFile
	if sf.AccessLog != "" {
		alog = &accessLogFile{stdout: e.stdout, log: logger}
		if err := alog.open(sf.AccessLog); err != nil {
			return err
		}
		defer func() {
			if cerr := alog.close(); cerr != nil && err == nil {
				err = fmt.Errorf("access log: %w", cerr)
			}
		}()
		cfg.AccessLog = alog
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
		r := &reloader{args: args, sf: sf, level: level, log: logger, alog: alog, node: n}
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
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
	alog  *accessLogFile // nil without an access log
	node  *cache.Node
}

// restartFlags names the NodeConfig fields that Reconfigure cannot
// change by the flags that set them.
var restartFlags = map[string]string{
	"Listen": "listen", "ICPListen": "icp", "Name": "name", "MemoryBytes": "memory", "DiskDir": "disk",
	"DiskBytes": "disk-size", "MaxObjectBytes": "max-object", "Capacity": "capacity",
	"BitsPerEntry": "bits-per-entry", "HashFunctions": "hash-functions", "Codec": "codec",
	"SquidBitsPerEntry": "squid-bits", "Route": "route", "PollInterval": "poll", "PeerExpiry": "peer-expiry",
	"MaxDigestBytes": "max-digest", "NoDelta": "no-delta", "PeerViews": "peer-views", "PeerTimeout": "peer-timeout", "ICPTimeout": "icp-timeout",
	"ConnectPorts": "connect-ports", "TunnelIdle": "tunnel-idle-timeout", "TunnelLifetime": "tunnel-lifetime",
}

// reload re-reads the config file and the command line and applies what
// can change while serving: the peers, the allowed ranges, the digest
// threshold and age, the log level and the access log, which is reopened
// (after logrotate has moved it). A configuration with an error is
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
	var restart []string
	for _, f := range changed {
		restart = append(restart, "--"+restartFlags[f])
	}
	if sf.LogFormat != r.sf.LogFormat {
		restart = append(restart, "--log-format")
	}
	var l slog.Level
	_ = l.UnmarshalText([]byte(sf.LogLevel)) // checked by parseServeFlags
	r.level.Set(l)
	switch {
	case r.alog != nil:
		if err := r.alog.open(sf.AccessLog); err != nil {
			r.log.Error("access log not reopened: writing to the old one", "err", message(err))
		}
	case sf.AccessLog != "":
		restart = append(restart, "--access-log")
	}
	r.log.Info("configuration reloaded", "peers", len(cfg.Peers), "log_level", l.String(), "access_log", sf.AccessLog)
	if len(restart) > 0 {
		r.log.Warn("these settings change only when the node starts again; their running values are kept", "flags", restart)
	}
}

// accessLogFile is the access log: a file opened for appending ("-":
// standard output; "": nowhere), which open replaces by the file now at
// a path, as logrotate expects of a daemon told to reopen its logs.
type accessLogFile struct {
	stdout io.Writer
	log    *slog.Logger // where a failed close of a replaced file is reported

	mu sync.Mutex
	w  io.Writer
	f  *os.File // nil for standard output or nowhere
}

func (l *accessLogFile) open(path string) error {
	var w io.Writer
	var f *os.File
	switch path {
	case "":
		w = io.Discard
	case "-":
		w = l.stdout
	default:
		var err error
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return fileErr(path, err)
		}
		w = f
	}
	l.mu.Lock()
	old := l.f
	l.w, l.f = w, f
	l.mu.Unlock()
	if old != nil {
		// Lines already written may be lost; the new file is in place,
		// so this is reported, not returned.
		if err := old.Close(); err != nil {
			l.log.Error("closing the previous access log", "err", err)
		}
	}
	return nil
}

func (l *accessLogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// close closes the file, if any, and returns the error of closing it:
// lines already written may be lost.
func (l *accessLogFile) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.f != nil {
		err = l.f.Close()
		l.f = nil
	}
	l.w = io.Discard
	return err
}
