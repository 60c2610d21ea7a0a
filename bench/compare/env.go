package compare

import (
	"bufio"
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
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}
