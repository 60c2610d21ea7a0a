package hits

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// FillSet is one fill: Objects distinct objects of Bytes bytes each.
type FillSet struct {
	Objects int `json:"objects"`
	Bytes   int `json:"object_bytes"`
}

// FillConfig configures a fill run. Zero fields take the defaults noted.
type FillConfig struct {
	Bloomcast string    // the bloomcast binary; "" builds ./cmd/bloomcast of the module
	Squid     string    // "" means /usr/sbin/squid
	MemoryMiB int64     // the node's --memory and Squid's cache_mem, in MiB; 0 means 256
	Sets      []FillSet // nil means 10^5 objects of 100 B, then 10^4 of 64 KiB
	Workers   int       // concurrent requests of the fill; 0 means 8
	Proxies   []string  // ProxyNode, ProxySquid or both; nil means both
	Progress  io.Writer // progress lines; nil for none
}

func (c *FillConfig) defaults() error {
	if c.Squid == "" {
		c.Squid = "/usr/sbin/squid"
	}
	if c.MemoryMiB == 0 {
		c.MemoryMiB = 256
	}
	if c.Sets == nil {
		c.Sets = []FillSet{{Objects: 100000, Bytes: 100}, {Objects: 10000, Bytes: 64 << 10}}
	}
	if c.Workers == 0 {
		c.Workers = 8
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Proxies == nil {
		c.Proxies = []string{ProxyNode, ProxySquid}
	}
	for _, p := range c.Proxies {
		if p != ProxyNode && p != ProxySquid {
			return fmt.Errorf("hits: proxy %q (want %s or %s)", p, ProxyNode, ProxySquid)
		}
	}
	if c.MemoryMiB < 0 || c.Workers < 0 {
		return errors.New("hits: negative memory or workers")
	}
	for _, s := range c.Sets {
		if s.Objects <= 0 || s.Bytes < 0 {
			return fmt.Errorf("hits: fill set of %d objects of %d bytes", s.Objects, s.Bytes)
		}
	}
	if _, err := os.Stat(c.Squid); err != nil {
		return fmt.Errorf("hits: %w", err)
	}
	return nil
}

// Fill is one proxy filled with one set.
type Fill struct {
	Proxy   string  `json:"proxy"`
	Set     FillSet `json:"set"`
	Seconds float64 `json:"seconds"` // the fill's length
	// Held is the objects the proxy holds after the fill (the node's
	// bloomcast_cache_objects; Squid's "Hot Object Cache Items").
	Held int64 `json:"objects_held"`
	// Accounted is the bytes the proxy says its cache holds (the node's
	// bloomcast_cache_bytes; Squid's "Storage Mem size", its memory
	// cache's pages); SquidTotalAccounted is Squid's "Total accounted",
	// all the memory it knows of.
	Accounted           int64 `json:"accounted_bytes"`
	SquidTotalAccounted int64 `json:"squid_total_accounted_bytes,omitempty"`
	// RSSBefore and RSS are the proxy's resident memory before and after
	// the fill (VmRSS), Peak its peak (VmHWM).
	RSSBefore int64 `json:"rss_before_bytes"`
	RSS       int64 `json:"rss_bytes"`
	Peak      int64 `json:"rss_peak_bytes"`
	// MemoryLimit is the node's soft memory limit (bloomcast_memory_limit_bytes).
	MemoryLimit int64 `json:"memory_limit_bytes,omitempty"`
}

// AccountedPerObject and RSSPerObject are the accounted bytes and the
// growth of resident memory per object held.
func (f Fill) AccountedPerObject() float64 { return float64(f.Accounted) / float64(max(f.Held, 1)) }
func (f Fill) RSSPerObject() float64       { return float64(f.RSS-f.RSSBefore) / float64(max(f.Held, 1)) }

// FillReport is a whole fill run.
type FillReport struct {
	Env           compare.RunEnv `json:"env"`
	SquidVersion  string         `json:"squid_version"`
	MemoryMiB     int64          `json:"memory_mib"`
	Workers       int            `json:"workers"`
	Fills         []Fill         `json:"fills"`
	SquidConfig   string         `json:"squid_conf"`
	NodeArguments []string       `json:"node_arguments"`
}

// RunFill fills, for each set, a fresh node and a fresh Squid (memory
// cache only, cache_mem equal to the node's --memory) with the set's
// objects, each requested once through the proxy from a loopback origin,
// and reads what each holds, accounts and takes in resident memory.
func RunFill(ctx context.Context, cfg FillConfig) (rep *FillReport, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bloomcast-fill-")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	// Squid, dropped to its own user, writes its log in a directory
	// below this one.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	rep = &FillReport{Env: compare.StartRunEnv(), MemoryMiB: cfg.MemoryMiB, Workers: cfg.Workers}
	rep.SquidVersion = firstLine(exec.Command(cfg.Squid, "-v").Output())
	progress := func(format string, a ...any) {
		_, _ = fmt.Fprintf(cfg.Progress, format+"\n", a...) // progress is informational
	}
	bin, err := bloomcastBinary(ctx, cfg.Bloomcast, dir, progress)
	if err != nil {
		return nil, err
	}
	rep.NodeArguments = []string{"serve", "--listen", "127.0.0.1:PORT", "--name", "bench",
		"--memory", strconv.FormatInt(cfg.MemoryMiB, 10) + "MiB", "--log-level", "warn"}
	for _, set := range cfg.Sets {
		origin, err := startOrigin(set.Bytes)
		if err != nil {
			return nil, err
		}
		for _, proxy := range cfg.Proxies {
			var t *target
			if proxy == ProxyNode {
				t, err = startNode(ctx, "", bin, 2, rep.NodeArguments)
			} else {
				sqDir := filepath.Join(dir, "squid-"+strconv.Itoa(set.Bytes))
				if err = os.MkdirAll(sqDir, 0o755); err == nil {
					t, rep.SquidConfig, err = startSquidMem(ctx, "", cfg.Squid, sqDir, cfg.MemoryMiB)
				}
			}
			if err == nil {
				progress("filling %s with %d objects of %d B", proxy, set.Objects, set.Bytes)
				var f Fill
				f, err = fill(ctx, cfg, t, origin, set)
				if err == nil {
					progress("%s: %d held, %d B accounted (%.0f B/object), RSS %d → %d B (%.0f B/object)",
						proxy, f.Held, f.Accounted, f.AccountedPerObject(), f.RSSBefore, f.RSS, f.RSSPerObject())
					rep.Fills = append(rep.Fills, f)
				}
			}
			if t != nil {
				err = errors.Join(err, t.stop())
			}
			if err != nil {
				return nil, errors.Join(err, origin.srv.Close())
			}
		}
		if err := origin.srv.Close(); err != nil {
			return nil, err
		}
	}
	rep.Env.LoadEnd = compare.LoadAvg()
	return rep, nil
}

// fill requests every object of set through t once and reads t's state.
func fill(ctx context.Context, cfg FillConfig, t *target, origin *origin, set FillSet) (Fill, error) {
	f := Fill{Proxy: t.proxy, Set: set}
	pid := t.cmd.Process.Pid
	var err error
	if f.RSSBefore, _, err = residentMemory(pid); err != nil {
		return f, err
	}
	pu, _ := url.Parse("http://" + t.addr) // an address from net.Listen parses
	tr := &http.Transport{Proxy: http.ProxyURL(pu), MaxIdleConnsPerHost: cfg.Workers}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, cfg.Workers)
	for w := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(set.Objects) || ctx.Err() != nil {
					return
				}
				if err := fetch(ctx, c, fmt.Sprintf("http://%s/fill-%d-%d", origin.addr, set.Bytes, i), set.Bytes); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return f, err
	}
	f.Seconds = time.Since(start).Seconds()
	time.Sleep(2 * time.Second) // let the proxy finish storing the last responses and its collector settle
	if f.RSS, f.Peak, err = residentMemory(pid); err != nil {
		return f, err
	}
	if t.proxy == ProxyNode {
		text, err := t.get(ctx, "/metrics")
		if err != nil {
			return f, err
		}
		m := metricValues(text)
		f.Held, f.Accounted, f.MemoryLimit = int64(m["bloomcast_cache_objects"]), int64(m["bloomcast_cache_bytes"]), int64(m["bloomcast_memory_limit_bytes"])
		return f, nil
	}
	text, err := t.get(ctx, "/squid-internal-mgr/info")
	if err != nil {
		return f, err
	}
	f.Held, f.Accounted, f.SquidTotalAccounted, err = SquidInfo(text)
	return f, err
}

// fetch gets u through the client and checks that all of it came.
func fetch(ctx context.Context, c *http.Client, u string, size int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	err = errors.Join(err, resp.Body.Close())
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK || n != int64(size):
		return fmt.Errorf("%s: %s, %d bytes", u, resp.Status, n)
	}
	return nil
}

// get fetches one of the proxy's own pages.
func (t *target) get(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+t.addr+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(resp.Body)
	err = errors.Join(err, resp.Body.Close())
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", path, resp.Status)
	}
	return string(b), err
}

// metricValues reads the unlabelled samples of a /metrics text.
func metricValues(text string) map[string]float64 {
	m := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			m[name] = v
		}
	}
	return m
}

// SquidInfo reads from Squid's cache manager info report the objects in
// its memory cache ("Hot Object Cache Items"), the memory cache's size
// ("Storage Mem size") and all the memory it accounts for ("Total
// accounted"), in bytes.
func SquidInfo(report string) (held, memBytes, totalAccounted int64, err error) {
	got := 0
	for _, line := range strings.Split(report, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasSuffix(line, " Hot Object Cache Items"):
			held, err = strconv.ParseInt(strings.Fields(line)[0], 10, 64)
			got++
		case strings.HasPrefix(line, "Storage Mem size:"):
			memBytes, err = sizeWithUnit(strings.TrimPrefix(line, "Storage Mem size:"))
			got++
		case strings.HasPrefix(line, "Total accounted:"):
			totalAccounted, err = sizeWithUnit(strings.TrimPrefix(line, "Total accounted:"))
			got++
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("hits: info line %q: %w", line, err)
		}
	}
	if got != 3 {
		return 0, 0, 0, errors.New("hits: no Hot Object Cache Items, Storage Mem size and Total accounted in Squid's info report")
	}
	return held, memBytes, totalAccounted, nil
}

// sizeWithUnit parses "409600 KB" (KB, MB or bytes).
func sizeWithUnit(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, errors.New("no size")
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, err
	}
	if len(f) > 1 {
		switch f[1] {
		case "KB":
			n <<= 10
		case "MB":
			n <<= 20
		}
	}
	return n, nil
}

// residentMemory reads a process's VmRSS and VmHWM from /proc, in bytes.
func residentMemory(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || name != "VmRSS" && name != "VmHWM" {
			continue
		}
		v, err := sizeWithUnit(strings.Replace(value, "kB", "KB", 1))
		if err != nil {
			return 0, 0, fmt.Errorf("hits: /proc/%d/status line %q: %w", pid, line, err)
		}
		if name == "VmRSS" {
			rss = v
		} else {
			peak = v
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("hits: no VmRSS in /proc/%d/status", pid)
	}
	return rss, peak, nil
}
