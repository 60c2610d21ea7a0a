package cache

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

func TestAccessLogConcurrentLines(t *testing.T) {
	var b bytes.Buffer
	l := newAccessLog(&b)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Log(Record{Time: time.UnixMilli(int64(g*1000 + i)), Client: "10.0.0.1", Code: squidlog.CodeMiss, Status: 200,
					Method: "GET", URL: "http://a b/\x01", Hierarchy: squidlog.HierDirect, From: "a"})
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
	if got := string(r.appendSquid(nil)); got != "5.007 123456 - -/005 0 - - - -/- -\n" {
		t.Fatalf("%q", got)
	}
}

// TestAccessLogLineBounded: however long and however odd what a client
// or origin sent, a line is at most MaxAccessLogLine bytes, splits into
// ten fields, and shows no userinfo.
func TestAccessLogLineBounded(t *testing.T) {
	long := strings.Repeat("\x01 x", 100<<10)
	r := Record{Time: time.Unix(1, 0), Client: long, Code: long, Status: 200, Method: long,
		URL: "http://alice:secret@example.com/" + long, User: long, Hierarchy: long, From: long, ContentType: long}
	line := string(r.appendSquid(nil))
	if len(line) > MaxAccessLogLine {
		t.Fatalf("line of %d bytes", len(line))
	}
	f := strings.Fields(line)
	if len(f) != 10 || !strings.HasPrefix(f[6], "http://example.com/%01%20x") || strings.Contains(line, "secret") {
		t.Fatalf("%d fields, URL %.60q", len(f), f[6])
	}
	for _, c := range []struct{ in, want string }{
		{"http://u:p@h/x@y", "http://h/x@y"},
		{"http://u@h:80", "http://h:80"},
		{"http://h/?a=b@c", "http://h/?a=b@c"},
		{"/metrics", "/metrics"},
		{"h:443", "h:443"},
	} {
		if got := httpx.WithoutUserinfo(c.in); got != c.want {
			t.Errorf("httpx.WithoutUserinfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzAccessLogLine: whatever the fields hold, a line is at most
// MaxAccessLogLine bytes, one line of ten fields, and the authority of its
// URL field holds no userinfo.
func FuzzAccessLogLine(f *testing.F) {
	f.Add("GET", "http://alice:secret@example.com/x", "text/html", "10.0.0.1")
	f.Add("\x00 \n", "http://a b@c/\x7f", "", "")
	f.Fuzz(func(t *testing.T, method, url, ctype, client string) {
		r := Record{Time: time.Unix(1, 0), Client: client, Code: squidlog.CodeMiss, Status: 200, Method: method,
			URL: url, Hierarchy: squidlog.HierDirect, From: client, ContentType: ctype}
		line := string(r.appendSquid(nil))
		if len(line) > MaxAccessLogLine || strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("line of %d bytes: %.100q", len(line), line)
		}
		if n := len(strings.Fields(line)); n != 10 {
			t.Fatalf("%d fields: %q", n, line)
		}
		logged := strings.Fields(line)[6]
		if i := strings.Index(logged, "://"); i >= 0 {
			authority := logged[i+3:]
			if end := strings.IndexAny(authority, "/?#"); end >= 0 {
				authority = authority[:end]
			}
			if strings.Contains(authority, "@") {
				t.Fatalf("userinfo in %q", logged)
			}
		}
	})
}

// TestAppendSquidLine pins the access log line of a hit and of a peer
// hit, the Content-Type's space escaped.
func TestAppendSquidLine(t *testing.T) {
	r := Record{
		Time:        time.UnixMilli(1700000000123),
		Elapsed:     12 * time.Millisecond,
		Client:      "127.0.0.1",
		Code:        "TCP_HIT",
		Status:      200,
		Bytes:       1234,
		Method:      "GET",
		URL:         "http://x/",
		Hierarchy:   "HIER_NONE",
		ContentType: "text/html",
	}
	got := string(r.appendSquid(nil))
	r.Code, r.Hierarchy, r.From, r.ContentType = "TCP_MISS", "CD_SIBLING_HIT", "peer1", "text/html; charset=utf-8"
	got += string(r.appendSquid(nil))
	want := "1700000000.123     12 127.0.0.1 TCP_HIT/200 1234 GET http://x/ - HIER_NONE/- text/html\n" +
		"1700000000.123     12 127.0.0.1 TCP_MISS/200 1234 GET http://x/ - CD_SIBLING_HIT/peer1 text/html;%20charset=utf-8\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
