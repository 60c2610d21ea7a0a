package hits

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestSquidInfo(t *testing.T) {
	report := "Squid Object Cache: Version 5.7\n" +
		"Memory accounted for:\n\tTotal accounted:        13919 KB\n" +
		"\tStorage Mem size:\t8228 KB\n\tStorage Mem capacity:\t 3.1% used, 96.9% free\n" +
		"Internal Data Structures:\n\t  2010 StoreEntries\n\t  2010 StoreEntries with MemObjects\n\t  2000 Hot Object Cache Items\n"
	held, mem, total, err := SquidInfo(report)
	if err != nil || held != 2000 || mem != 8228<<10 || total != 13919<<10 {
		t.Errorf("SquidInfo = %d, %d, %d, %v", held, mem, total, err)
	}
	if _, _, _, err := SquidInfo("Squid Object Cache: Version 5.7\n"); err == nil {
		t.Error("a report without the counts accepted")
	}
}

func TestResidentMemory(t *testing.T) {
	rss, peak, err := residentMemory(os.Getpid())
	if err != nil {
		t.Skip(err) // no /proc
	}
	if rss < 1<<20 || peak < rss {
		t.Errorf("VmRSS %d, VmHWM %d", rss, peak)
	}
}

func TestMetricValues(t *testing.T) {
	m := metricValues("# HELP x y\nbloomcast_cache_objects 12\nbloomcast_cache_bytes 3.5e+06\nbloomcast_requests_total{outcome=\"miss\"} 4\n")
	if len(m) != 2 || m["bloomcast_cache_objects"] != 12 || m["bloomcast_cache_bytes"] != 3.5e6 {
		t.Errorf("%v", m)
	}
}

// TestFillShort fills a node and Squid with 500 small objects and reads
// what each holds from its own counters.
func TestFillShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bloomcast and runs squid")
	}
	if _, err := os.Stat("/usr/sbin/squid"); err != nil {
		if os.Getenv(requireSquidEnv) != "" {
			t.Fatalf("%s is set but %v", requireSquidEnv, err)
		}
		t.Skip(err)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build bloomcast with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := RunFill(ctx, FillConfig{MemoryMiB: 64, Sets: []FillSet{{Objects: 500, Bytes: 100}}, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Fills) != 2 {
		t.Fatalf("fills %+v", rep.Fills)
	}
	for _, f := range rep.Fills {
		if f.Held != 500 || f.Accounted < 500*100 || f.RSS < 1<<20 || f.Peak < f.RSS {
			t.Errorf("%s: %+v", f.Proxy, f)
		}
	}
	if rep.Fills[0].MemoryLimit <= 64<<20 {
		t.Errorf("node's memory limit %d", rep.Fills[0].MemoryLimit)
	}
	var md bytes.Buffer
	if err := WriteFillMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 500 × 100 B | bloomcast | 500 |", "| 500 × 100 B | squid | 500 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
}
