package hits

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WakeFIFO marks a round of a server built with FIFOOverlay: a Go
// runtime whose network poller hands out the goroutines it finds ready
// in the order epoll reported them.
const WakeFIFO = "FIFO wake"

// netpollTail is how the runtime's netpoll (runtime/netpoll_epoll.go)
// ends: toRun is a gList built by push, the last goroutine made ready
// at its head, and the scheduler runs it first and the rest in list
// order (findRunnable, injectglist). The goroutines of one poll run in
// the reverse of the order their connections became ready.
const netpollTail = "\treturn toRun, delta\n}\n"

// netpollFIFOTail returns the same goroutines in the order epoll
// reported them.
const netpollFIFOTail = `	// bench/hits: the goroutines in the order epoll reported them.
	var fifo gList
	for !toRun.empty() {
		fifo.push(toRun.pop())
	}
	return fifo, delta
}
`

// FIFOOverlay writes into dir a copy of this Go's
// runtime/netpoll_epoll.go whose netpoll returns the goroutines it made
// ready in the order epoll reported them, and the go build -overlay file
// that puts the copy in place of the original. It returns the overlay
// file's path. The change is one reversal of a list; it fails, saying
// so, where the runtime's netpoll does not end as netpollTail.
func FIFOOverlay(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("hits: go env GOROOT: %w", err)
	}
	return fifoOverlayOf(filepath.Join(strings.TrimSpace(string(out)), "src", "runtime", "netpoll_epoll.go"), dir)
}

// fifoOverlayOf is FIFOOverlay for the poller's source file orig.
func fifoOverlayOf(orig, dir string) (string, error) {
	src, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("hits: FIFO wake: %w", err)
	}
	if strings.Count(string(src), netpollTail) != 1 {
		return "", fmt.Errorf("hits: FIFO wake: %s does not end netpoll with %q once; this Go's poller is not the one the overlay edits", orig, netpollTail)
	}
	patched := filepath.Join(dir, "netpoll_epoll_fifo.go")
	if err := os.WriteFile(patched, []byte(strings.Replace(string(src), netpollTail, netpollFIFOTail, 1)), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {orig: patched}})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay-fifo.json")
	return path, os.WriteFile(path, overlay, 0o644)
}

// fifoName reports whether a summary's name is a FIFOOverlay server's:
// its CPU is compared with the floor built the same way.
func fifoName(name string) bool { return strings.HasSuffix(name, wakeSuffix(WakeFIFO)) }

// startFloorFor starts the floor of the run's kind (a pair for peer
// hits) from the binary floor.
func startFloorFor(ctx context.Context, cfg Config, floor string) (*target, error) {
	if cfg.Peer {
		return startFloorPair(ctx, cfg.proxyCPUs, floor, cfg.ObjectBytes)
	}
	return startFloor(ctx, cfg.proxyCPUs, floor, cfg.ObjectBytes)
}

// startNodeFor starts the node of the run's kind (a pair for peer hits)
// from the binary bin, at GOMAXPROCS procs.
func startNodeFor(ctx context.Context, cfg Config, bin string, procs int, rep *Report, o *origin) (*target, error) {
	if cfg.Peer {
		return startNodePair(ctx, cfg, bin, procs, rep, o)
	}
	return startNode(ctx, cfg.proxyCPUs, bin, procs, rep.NodeArguments)
}

// startFIFO builds the floor (with Floor) and bloomcast with FIFOOverlay
// and starts them as the run's other servers are started, marked
// WakeFIFO. It returns what it started, also on error.
func startFIFO(ctx context.Context, cfg Config, dir string, rep *Report, o *origin, progress func(string, ...any)) ([]*target, error) {
	progress("building the floor and bloomcast with the poller's goroutines in epoll's order")
	overlay, err := FIFOOverlay(ctx, dir)
	if err != nil {
		return nil, err
	}
	flag := "-overlay=" + overlay
	var targets []*target
	add := func(t *target, err error) error {
		if t != nil {
			t.wake = WakeFIFO
			if t.back != nil {
				t.back.wake = WakeFIFO
			}
			targets = append(targets, t)
		}
		return err
	}
	if cfg.Floor {
		floor := filepath.Join(dir, "hitfloor-fifo")
		if err := buildFloor(ctx, floor, flag); err != nil {
			return nil, err
		}
		if err := add(startFloorFor(ctx, cfg, floor)); err != nil {
			return targets, err
		}
	}
	bin := filepath.Join(dir, "bloomcast-fifo")
	if err := buildBloomcast(ctx, bin, flag); err != nil {
		return targets, err
	}
	for _, procs := range cfg.Procs {
		if err := add(startNodeFor(ctx, cfg, bin, procs, rep, o)); err != nil {
			return targets, err
		}
	}
	return targets, nil
}
