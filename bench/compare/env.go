package compare

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Env records where a report was measured.
type Env struct {
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPU       string `json:"cpu"`
	NumCPU    int    `json:"num_cpu"`
}

// CurrentEnv describes this machine and toolchain now.
func CurrentEnv() Env {
	return Env{
		Date:      time.Now().UTC().Format("2006-01-02"),
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPU:       cpuModel(),
		NumCPU:    runtime.NumCPU(),
	}
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown"
// where there is none (not Linux, or not x86).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer func() { _ = f.Close() }() // read only; what was read is all that matters
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}

// RunEnv is Env with what a long run on a shared machine should also
// record: GOMAXPROCS and the load averages before and after it.
type RunEnv struct {
	Env
	GOMAXPROCS int `json:"gomaxprocs"`
	// LoadStart and LoadEnd are the first three fields of /proc/loadavg
	// (1, 5 and 15 minutes) before and after the run; "unknown" where
	// there is no such file.
	LoadStart string `json:"loadavg_start"`
	LoadEnd   string `json:"loadavg_end"`
}

// StartRunEnv describes this machine now, the load average included; the
// caller sets LoadEnd to LoadAvg() when the run is over.
func StartRunEnv() RunEnv {
	return RunEnv{Env: CurrentEnv(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadStart: LoadAvg()}
}

// LoadAvg returns the 1, 5 and 15 minute load averages, or "unknown".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Measured is the sentence a report opens with, without its full stop:
// "Measured DATE with GO on OS/ARCH, CPU (N CPUs, GOMAXPROCS P), load
// average L at the start and L at the end". With gomaxprocs false it
// leaves GOMAXPROCS out, for a report whose measured processes each set
// their own.
func (e RunEnv) Measured(gomaxprocs bool) string {
	procs := ""
	if gomaxprocs {
		procs = fmt.Sprintf(", GOMAXPROCS %d", e.GOMAXPROCS)
	}
	return fmt.Sprintf("Measured %s with %s on %s/%s, %s (%d CPUs%s), load average %s at the start and %s at the end",
		e.Date, e.GoVersion, e.OS, e.Arch, e.CPU, e.NumCPU, procs, e.LoadStart, e.LoadEnd)
}
