// Package cli is the bloomcast command: its subcommands' flags, input,
// output and printing. Everything it computes comes from the library
// packages. It is a package, not package main, so that other builds of
// the command in this repository's modules can run the same commands;
// cmd/bloomcast calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/inplace"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/params"
)

// Main runs bloomcast with the process's arguments and standard streams
// and returns its exit status (see run).
func Main() int { return MainWith(Options{}) }

// Options are what another build of the command adds to the commands:
// the clients that the main module leaves out so that the library stays
// free of them (cluster/cmd/bloomcast passes a NATS client).
//
// The zero Options are the plain command: serve --nats and simulate
// --transport nats then exit with status 2, naming the build that has
// NATS.
type Options struct {
	// NATS, if set, returns a digest transport to a NATS server (serve
	// --nats URL, simulate --transport nats).
	NATS func(NATSConfig) (node.DigestTransport, error)
	// StartNATS, if set, starts a NATS server with JetStream for
	// simulate --transport nats when no --nats URL is given, and returns
	// its URL and how to stop it.
	StartNATS func() (url string, stop func(), err error)
}

// NATSConfig is what Options.NATS makes a transport with.
//
// The zero NATSConfig names no server.
type NATSConfig struct {
	// URL is the server's (nats://host:port).
	URL string
	// Namespace, unless empty, keeps the transport's stream and subjects
	// apart from the default ones and from other namespaces' (each
	// replay of simulate has its own).
	Namespace string
	// MaxDigestBytes is the largest digest the node takes from a peer
	// (serve --max-digest), which bounds the digests the transport joins
	// from chunks; 0 is the transport's default.
	MaxDigestBytes int64
	// Logger receives the transport's log.
	Logger *slog.Logger
}

// MainWith runs bloomcast, as Main does, with the options of another
// build.
func MainWith(o Options) int {
	return runWith(o, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// errNoNATS is what serve --nats and simulate --transport nats answer in
// a build without a NATS client.
var errNoNATS = errors.New("this build of bloomcast has no NATS client; build the one that has, from the repository's root: go -C cluster build -o ../bloomcast ./cmd/bloomcast")

// env is what a command may use of the process: its standard streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// ctx, when set (by tests), ends long-running commands such as serve;
	// otherwise they stop on SIGINT or SIGTERM.
	ctx context.Context
	// quiet silences warnings (see warnf); set by -q or --quiet.
	quiet bool
	// force lets binary output go to a terminal; set by --force.
	force bool
	// strict makes warnings errors (see writeWarned); set by --strict.
	strict bool
	// target is -p of a command that changes a filter (targetFlag); 0:
	// not given.
	target rateValue
	// locked is the file an in-place command holds locked, at lockedPath
	// (see lockInPlace).
	locked     *inplace.File
	lockedPath string
	// maxKeyBytes is the longest key line (see keyFlags); 0 is the default.
	maxKeyBytes countValue
	// opts are another build's additions (MainWith).
	opts Options
	// format forces the format of the files read (--format; 0 detects
	// it), keyType how keys go into Guava filters (--key-type); see
	// formatFlag.
	format  formatValue
	keyType keyTypeValue
}

// A command is one subcommand of bloomcast.
type command struct {
	name    string
	summary string // one line for the command list
	usage   string // the full usage text, printed by -h
	run     func(e *env, args []string) error
}

// commands lists the subcommands in the order "bloomcast help" shows them.
// It is filled in by init because the help command refers to it.
var commands []*command

func init() {
	commands = []*command{
		buildCommand,
		queryCommand,
		addCommand,
		removeCommand,
		countCommand,
		inspectCommand,
		calcCommand,
		tableCommand,
		unionCommand,
		intersectCommand,
		foldCommand,
		convertCommand,
		compressCommand,
		decompressCommand,
		diffCommand,
		patchCommand,
		serveCommand,
		statusCommand,
		bloomierCommand,
		mhtCommand,
		demoCommand,
		simulateCommand,
		simCommand,
		versionCommand,
		helpCommand,
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run runs bloomcast with the arguments after the program name and
// returns the exit status: 0 on success, 1 for a "no" (query, bloomier
// get or mht get finds a key absent; remove or bloomier update refuses
// one), 130 or 143 when a signal stops a write, 2 on any error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(Options{}, args, stdin, stdout, stderr)
}

// runWith is run with another build's options.
func runWith(o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	e := &env{stdin: stdin, stdout: out, stderr: stderr, opts: o}
	status := e.run(args)
	if out.err != nil && status != 2 {
		fprintf(stderr, "bloomcast: %s\n", message(fileErr(outputName("-"), out.err)))
		status = 2
	}
	return status
}

// run runs the command named by args[0] and returns the exit status.
func (e *env) run(args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		fprintf(stderr, "bloomcast: missing COMMAND, one of: %s (bloomcast -h for usage)\n", commandNames())
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fprint(stdout, mainUsage())
		return 0
	case "-version", "--version":
		args = append([]string{versionCommand.name}, args[1:]...)
	}
	c := lookup(args[0])
	if c == nil {
		fprintf(stderr, "bloomcast: unknown command %q; the commands: %s (bloomcast -h for usage)\n", args[0], commandNames())
		return 2
	}
	return e.finish(c, c.run(e, args[1:]))
}

// finish reports err, the result of command c, and returns the exit
// status.
func (e *env) finish(c *command, err error) int {
	var usage *usageError
	var status exitStatus
	var stopped *interrupted
	if werr := stdoutErr(e); werr != nil && err != nil && errors.Is(err, werr) {
		// A command that returns its failed write to standard output
		// names it as the others do, "stdout: ...", not by the file
		// (/dev/stdout) the write error carries.
		err = fileErr(outputName("-"), werr)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		fprint(e.stdout, c.usage)
		return 0
	case errors.As(err, &usage):
		fprintf(e.stderr, "bloomcast: %s: %s (bloomcast %s -h for usage)\n", c.name, withoutPackages(oneLine(usage.msg), 0), c.name)
		return 2
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &stopped):
		fprintf(e.stderr, "bloomcast: %s\n", stopped)
		return stopped.status()
	}
	fprintf(e.stderr, "bloomcast: %s\n", message(err))
	return 2
}

// errHelp asks for the command's usage on standard output.
var errHelp = errors.New("help requested")

// usageError is a mistake in the command line: run prints it on one line
// with a pointer to the command's usage.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// oneFileToOut checks the arguments of a command that turns one FILE
// into -o OUT.
func oneFileToOut(out string, args []string) error {
	if out == "" {
		return usagef("missing -o OUT")
	}
	if len(args) != 1 {
		return usagef("want one FILE, got %d arguments", len(args))
	}
	return notAnInput(out, args)
}

// exitStatus ends the command with that status and no message.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// fileError is a problem with one file; it prints as "FILE: problem".
type fileError struct {
	path string
	err  error
}

func (f *fileError) Error() string { return displayName(f.path) + ": " + f.err.Error() }
func (f *fileError) Unwrap() error { return f.err }

// fileErr attributes err to the file at path. An *fs.PathError already
// names the file, so only its cause is kept; so is an *anyfile.Error's,
// a problem with the file that the file's name now introduces.
func fileErr(path string, err error) error {
	// A reader's error may come wrapped once more ("read F: read F: is
	// a directory" from a scanner over the file): every layer goes.
	var pe *os.PathError
	for errors.As(err, &pe) {
		err = pe.Err
	}
	var ae *anyfile.Error
	if errors.As(err, &ae) {
		err = ae.Err
	}
	return &fileError{path: path, err: err}
}

// displayName is how messages name an input path; "-" is standard input.
func displayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// outputName is how messages name an output path; "-" is standard output.
func outputName(path string) string {
	if path == "-" {
		return "stdout"
	}
	return path
}

// message renders err on one line. The params package ends every message
// with ": invalid parameters"; the details before it already say what is
// wrong. The library's errors begin with their package's name
// ("bloom: cannot fold"), which means something to a Go programmer, not
// to the user of the command: withoutPackages takes those names out.
func message(err error) string {
	s := err.Error()
	if errors.Is(err, params.ErrInvalid) {
		s = strings.TrimSuffix(strings.TrimSuffix(s, ": "+params.ErrInvalid.Error()), ": invalid parameters")
	}
	skip := 0 // a file's name that begins the message is kept as it is
	// Only a fileError that is the error itself begins the message with
	// its name; one wrapped deeper stands later in it.
	if fe, ok := err.(*fileError); ok { //nolint:errorlint // see above
		skip = strings.Count(displayName(fe.path), ": ") + 1
	}
	return withoutPackages(oneLine(s), skip)
}

// libraryPackages are the names of the module's packages whose errors
// the commands print; each begins its errors with "NAME: ".
var libraryPackages = []string{"anyfile", "bitsandblooms", "bloom", "bloomier", "cache", "counting", "digest",
	"entropy", "envelope", "fpset", "guava", "hashing", "icp", "inplace", "keyfile", "mht", "node", "params",
	"parquet", "plot", "replay", "ribbon", "scalable", "sim", "squid", "flagvalue"}

// withoutPackages drops a package's name where it begins the message or
// one of its ": "-separated parts after the first skip ("f.bf: bloom:
// cannot fold: …" becomes "f.bf: cannot fold: …").
func withoutPackages(s string, skip int) string {
	parts := strings.Split(s, ": ")
	kept := parts[:0]
	for i, p := range parts {
		if i >= skip && i < len(parts)-1 && slices.Contains(libraryPackages, p) {
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, ": ")
}

// oneLine joins the lines of a message with spaces.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", " ")
}

// commandNames lists the commands' names, comma-separated.
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// mainUsage is bloomcast's own usage: the commands and the conventions
// they share.
func mainUsage() string {
	type entry struct{ Name, Summary string }
	list := make([]entry, len(commands))
	for i, c := range commands {
		list[i] = entry{c.name, c.summary}
	}
	return executeUsage("main", list)
}

var helpCommand = &command{
	name:    "help",
	summary: "show help for bloomcast or one command",
	usage:   usageText("help"),
	run: func(e *env, args []string) error {
		fs := newFlagSet("help")
		args, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		switch len(args) {
		case 0:
			fprint(e.stdout, mainUsage())
			return nil
		case 1:
			c := lookup(args[0])
			if c == nil {
				return usagef("unknown command %q", args[0])
			}
			fprint(e.stdout, c.usage)
			return nil
		}
		return usagef("too many arguments")
	},
}
