package cache

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAccessLogConcurrentLines(t *testing.T) {
	var b bytes.Buffer
	l := NewAccessLog(&b)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Log(Record{Time: time.UnixMilli(int64(g*1000 + i)), Client: "10.0.0.1", Code: CodeMiss, Status: 200,
					Method: "GET", URL: "http://a b/\x01", Hierarchy: HierDirect, From: "a"})
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 10 || f[6] != "http://a%20b/%01" || f[7] != "-" || f[9] != "-" || f[8] != "HIER_DIRECT/a" {
			t.Fatalf("line %q", l)
		}
	}
	r := Record{Time: time.Unix(5, 7e6), Elapsed: 123456 * time.Millisecond, Status: 5}
	if got := string(r.AppendSquid(nil)); got != "5.007 123456 - -/005 0 - - - -/- -\n" {
		t.Fatalf("%q", got)
	}
}
