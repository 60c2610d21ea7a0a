package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/internal/textfmt"
)

var statusCommand = &command{
	name:    "status",
	summary: "show a running node's status: peers, digest, hit ratios",
	usage:   usageText("status"),
	run:     runStatus,
}

// defaultWatch is --watch's interval when none is given.
const defaultWatch = 2 * time.Second

// watchValue is --watch [INTERVAL]: a flag that may stand alone.
type watchValue time.Duration

func (w *watchValue) String() string   { return time.Duration(*w).String() }
func (w *watchValue) IsBoolFlag() bool { return true }

func (w *watchValue) Set(s string) error {
	if s == "true" {
		*w = watchValue(defaultWatch)
		return nil
	}
	d, err := parseInterval(s)
	if err != nil {
		return err
	}
	*w = watchValue(d)
	return nil
}

// parseInterval reads an interval of at least 100 ms: a Go duration
// ("2s", "500ms") or whole seconds ("5").
func parseInterval(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.Atoi(s)
		if nerr != nil {
			return 0, errors.New("want an interval such as 2s, 500ms or 5")
		}
		d = time.Duration(n) * time.Second
	}
	if d < 100*time.Millisecond {
		return 0, errors.New("want an interval of at least 100ms")
	}
	return d, nil
}

// watchArgs joins "--watch INTERVAL" into "--watch=INTERVAL", so that
// --watch may stand alone or take a value: an argument after it that
// starts with a digit and has no colon is its interval (a node's URL
// has a colon before its port).
func watchArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--watch" || a == "-watch") && i+1 < len(args) {
			if next := args[i+1]; next != "" && next[0] >= '0' && next[0] <= '9' && !strings.Contains(next, ":") {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func runStatus(e *env, args []string) error {
	fs := newFlagSet("status")
	asJSON := fs.Bool("json", false, "")
	var watch watchValue
	fs.Var(&watch, "watch", "")
	timeout := fs.Duration("timeout", 10*time.Second, "")
	rest, err := parseFlags(fs, watchArgs(args))
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want one node URL, such as http://127.0.0.1:3128")
	}
	target, err := statusURL(rest[0])
	if err != nil {
		return err
	}
	if *timeout <= 0 {
		return usagef("--timeout: want a positive duration")
	}
	// The node's status page answers only requests made directly (one
	// through a proxy carries Via, and is refused), and a node never
	// redirects: no environment proxy, no redirect followed.
	client := &http.Client{Timeout: *timeout, Transport: &http.Transport{Proxy: nil},
		CheckRedirect: httpx.NoRedirect}
	show := func(ctx context.Context) error {
		raw, st, err := fetchStatus(ctx, client, target)
		if err != nil {
			return err
		}
		if *asJSON {
			_, err = e.stdout.Write(raw)
			return err
		}
		return writeStatus(e.stdout, st)
	}
	if watch == 0 {
		return show(context.Background())
	}
	ctx := e.ctx
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return watchStatus(ctx, e, time.Duration(watch), *asJSON, show)
}

// watchStatus calls show every interval until ctx ends, which also ends
// the request under way: a signal stops the watch at once, even while a
// node takes its time to answer. A node that does not answer is reported
// and asked again; a write to standard output that fails ends the watch
// with that error, as nothing more can be shown.
func watchStatus(ctx context.Context, e *env, interval time.Duration, asJSON bool, show func(context.Context) error) error {
	clear := !asJSON && isTerminal(e.stdout)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for ctx.Err() == nil {
		if clear {
			fprint(e.stdout, "\x1b[H\x1b[2J") // home, erase the screen
		}
		err := show(ctx)
		if werr := stdoutErr(e); werr != nil {
			return fileErr(outputName("-"), werr)
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && asJSON:
			// Standard output carries only the node's JSON documents.
			fprintf(e.stderr, "bloomcast: %s: %s\n", time.Now().Format(time.TimeOnly), message(err))
		case err != nil:
			// A node that does not answer for a moment is what a watch
			// is for: say so, in place of the tables, and go on.
			fprintf(e.stdout, "%s: %v\n", time.Now().Format(time.TimeOnly), err)
		}
		if !clear && !asJSON {
			fprint(e.stdout, "\n")
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	return nil
}

// stdoutErr returns the first write error of the command's standard
// output, when run's errWriter keeps it.
func stdoutErr(e *env) error {
	if w, ok := e.stdout.(*errWriter); ok {
		return w.err
	}
	return nil
}

// statusURL returns the status JSON's URL of the node at s: its base
// URL, or the status page's or JSON's own URL.
func statusURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", usagef("bad node URL %q: want http://HOST:PORT", s)
	}
	switch strings.TrimSuffix(u.Path, "/") {
	case "", nodestatus.Path, nodestatus.JSONPath:
		u.Path = nodestatus.JSONPath
	default:
		return "", usagef("bad node URL %q: want http://HOST:PORT, without a path", s)
	}
	return u.String(), nil
}

// fetchStatus reads a node's status JSON.
func fetchStatus(ctx context.Context, c *http.Client, target string) ([]byte, nodestatus.Status, error) {
	var st nodestatus.Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, st, fmt.Errorf("status: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, st, fmt.Errorf("status: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // read only
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, st, fmt.Errorf("status: %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, st, fmt.Errorf("status: %s: %s: %s", target, printable(resp.Status), printable(strings.TrimSpace(firstLine(string(raw)))))
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, st, fmt.Errorf("status: %s: not a node's status: %w", target, err)
	}
	return raw, st, nil
}

// printable returns s with every rune that is not printable (controls,
// C1 controls, format characters such as bidirectional overrides) and
// every tab written as a Go escape ("\x1b", "\u202e"). What a node
// reports is partly what its peers sent it (a reason phrase, an error),
// and a peer's escape sequence printed raw would drive the terminal:
// retitle it, clear it, hide or forge lines of the table.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == '\t' || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r != '\t' && unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r) // "'\x1b'", "'\u202e'", "'\ufffd'" for a bad byte
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// printableStatus returns st with its text fields printable: the
// node's, its transport's and its peers'.
func printableStatus(st nodestatus.Status) nodestatus.Status {
	n := &st.Node
	n.Name, n.Version, n.Listen, n.Route, n.Unhealthy = printable(n.Name), printable(n.Version), printable(n.Listen), printable(n.Route), printable(n.Unhealthy)
	st.Digest.Codec = printable(st.Digest.Codec)
	if st.Transport != nil {
		t := *st.Transport
		t.Name = printable(t.Name)
		st.Transport = &t
	}
	peers := make([]nodestatus.Peer, len(st.Peers))
	for i, p := range st.Peers {
		p.Name, p.State, p.Protocol, p.Transport, p.LastError = printable(p.Name), printable(p.State), printable(p.Protocol), printable(p.Transport), printable(p.LastError)
		peers[i] = p
	}
	st.Peers = peers
	return st
}

// writeStatus prints a node's status as the tables of its status page.
// A failed write shows in the error of the tables' Flush, or in the
// command's output writer, which keeps the first.
func writeStatus(w io.Writer, st nodestatus.Status) error {
	st = printableStatus(st)
	n := st.Node
	health := "ok"
	if !n.Healthy {
		health = "UNHEALTHY: " + n.Unhealthy
	}
	fprintf(w, "node %s  %s  up %s  listen %s  route %s  %s\n", n.Name, n.Version,
		textfmt.Seconds(n.UptimeSeconds), n.Listen, n.Route, health)
	fill := 0.0
	if n.BudgetBytes > 0 {
		fill = float64(n.Bytes) / float64(n.BudgetBytes)
	}
	fprintf(w, "cache %d objects, %s of %s (%s)\n", n.Objects, textfmt.Bytes(n.Bytes), textfmt.Bytes(n.BudgetBytes), textfmt.Share(fill))
	if t := st.Transport; t != nil {
		state := "connected"
		if !t.Connected {
			state = "DISCONNECTED"
		}
		fprintf(w, "transport %s %s, %d sent, %d received, %d dropped\n", t.Name, state, t.Sent, t.Received, t.Dropped)
	}

	fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fprintln(tw, "requests\tlocal hits\tpeer hits\tmisses\tother\tfalse hits\ttotal\t")
	h, r := st.Requests.LastHour, st.Requests.LastHourRatio
	fprintf(tw, "last hour\t%d %s\t%d %s\t%d %s\t%d\t%d %s\t%d\t\n", h.LocalHits, textfmt.Share(r.Local), h.PeerHits, textfmt.Share(r.Peer),
		h.Misses, textfmt.Share(r.Miss), h.Other, h.FalseHits, textfmt.Share(r.FalseHits), h.Total())
	t := st.Requests.Total
	fprintf(tw, "since start\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.LocalHits, t.PeerHits, t.Misses, t.Other, t.FalseHits, t.Total())
	if err := tw.Flush(); err != nil {
		return err
	}

	d := st.Digest
	full := ""
	if d.Full {
		full = " FULL"
	}
	fprintf(w, "\ndigest #%d %s, %s on the wire, %d keys of %d%s, %.4g bits/entry, fp %s predicted (target %s), published %s ago (max %s), %d pending, %d resizes\n",
		d.Sequence, d.Codec, textfmt.Bytes(int64(d.WireBytes)), d.Keys, d.Capacity, full, d.BitsPerEntry,
		textfmt.Share(d.PredictedFalsePos), textfmt.Share(d.TargetFalsePos), textfmt.Seconds(d.AgeSeconds), textfmt.Seconds(d.MaxAgeSeconds), d.Pending, d.Resizes)

	fprintln(w)
	if len(st.Peers) == 0 {
		fprintln(w, "no peers")
		return nil
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fprintln(tw, "PEER\tSTATE\tPROTOCOL\tAGE\tSIZE\tFP PREDICTED\tHITS\tFALSE HITS\tTRANSPORT\tLAST FETCH")
	for _, p := range st.Peers {
		state := p.State
		if state != nodestatus.PeerStateOK {
			state = strings.ToUpper(state)
		}
		age, size, fp := "-", "-", "-"
		if p.HasView {
			age, size, fp = textfmt.Seconds(p.AgeSeconds), textfmt.Bytes(int64(p.WireBytes)), textfmt.Share(p.FalsePos)
		}
		falseHits := strconv.FormatUint(p.FalseHits, 10) + " (" + textfmt.Share(p.MeasuredFalseHitRate) + ")"
		last := "ok"
		switch {
		case p.LastError != "":
			last = fmt.Sprintf("failed %d×: %s", p.Failures, p.LastError)
		case !p.HasView:
			last = "none yet"
		}
		fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p.Name, state, p.Protocol, age, size, fp, p.Hits, falseHits, p.Transport, last)
	}
	return tw.Flush()
}
