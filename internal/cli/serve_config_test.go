package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesNonsense: a value that means nothing is refused with one
// line naming the flag, instead of silently meaning a default.
func TestServeRefusesNonsense(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--memory", "0"}, "serve: --memory 0: want a size above 0"},
		{[]string{"--disk-size", "0"}, "serve: --disk-size 0: want a size above 0"},
		{[]string{"--max-object", "0"}, "serve: --max-object 0: want a size above 0"},
		{[]string{"--max-digest", "0"}, "serve: --max-digest 0: want a size above 0"},
		{[]string{"--memory", "1MiB"}, "serve: --memory 1MiB: smaller than the largest object stored"},
		{[]string{"--memory", "1MiB", "--max-object", "2MiB"}, "serve: --max-object 2MiB: larger than the whole cache (--memory, 1048576 bytes)"},
		{[]string{"--capacity", "0"}, "serve: --capacity 0: want a number of objects from 1 to 2^32"},
		{[]string{"--bits-per-entry", "0"}, "serve: --bits-per-entry 0: want bits per object from 1 to 4096"},
		{[]string{"--hash-functions", "0"}, "serve: --hash-functions 0: want a whole number from 1 to 64"},
		{[]string{"--threshold", "0"}, "serve: --threshold 0: want a fraction of the cache in (0, 1]"},
		{[]string{"--threshold", "1.5"}, "serve: --threshold 1.5: want a fraction"},
		{[]string{"--squid-bits", "0"}, "serve: --squid-bits 0: want bits per entry from 1 to 255"},
		{[]string{"--poll", "0"}, "serve: --poll 0: want a duration of at least 1ms"},
		{[]string{"--poll", "-1s"}, "serve: --poll -1s: want a duration of at least 1ms"},
		{[]string{"--max-digest-age", "0s"}, "serve: --max-digest-age 0s: want a duration"},
		{[]string{"--peer-timeout", "-5s"}, "serve: --peer-timeout -5s: want a duration"},
		{[]string{"--icp-timeout", "0"}, "serve: --icp-timeout 0: want a duration"},
		{[]string{"--poll", "10s", "--peer-expiry", "5s"}, "serve: --peer-expiry 5s: shorter than --poll (10s)"},
		{[]string{"--listen", "3128"}, "serve: --listen 3128: want host:port"},
		{[]string{"--listen", "127.0.0.1:99999"}, "serve: --listen 127.0.0.1:99999: want a port"},
		{[]string{"--icp", "nowhere"}, "serve: --icp nowhere: want host:port"},
		{[]string{"--route", "icp"}, "serve: --route icp: routing by ICP needs --icp"},
		{[]string{"--allow-clients", ""}, `serve: --allow-clients "": want at least one range`},
		{[]string{"--allow-peers", " , "}, "serve: --allow-peers  , : want at least one range"},
		{[]string{"--name", "my node"}, "serve: --name my node: want letters, digits"},
		{[]string{"--allow-host", "node1.example:3128"}, `serve: --allow-host "node1.example:3128": want a host name without a port`},
		{[]string{"--allow-host", "http://node1.example"}, `serve: --allow-host "http://node1.example": want a host name without a port`},
		{[]string{"--log-format", "xml"}, "serve: --log-format xml: want text or json"},
		{[]string{"--connect-ports", ""}, `serve: --connect-ports "": want at least one port`},
		{[]string{"--tunnel-idle-timeout", "0"}, "serve: --tunnel-idle-timeout 0: want a duration of at least 1ms"},
		{[]string{"--tunnel-lifetime", "-1h"}, "serve: --tunnel-lifetime -1h: want a duration of at least 1ms"},
		{[]string{"--read-timeout", "0s"}, "serve: --read-timeout 0s: want a duration of at least 1ms"},
		{[]string{"--push-interval", "-1s"}, "serve: --push-interval -1s: want 0 (push every publication) or a duration of at least 1ms"},
		{[]string{"--listen", "127.0.0.1:3999", "--peer", "http://127.0.0.1:3999"}, "serve: --peer http://127.0.0.1:3999: this node itself"},
		{[]string{"--listen", "0.0.0.0:3999", "--peer", "http://localhost:3999"}, "serve: --peer http://localhost:3999: this node itself"},
		{[]string{"--name", "n1", "--peer", "name=n1,proxy=http://10.1.1.1:3128"}, "serve: --peer http://10.1.1.1:3128: this node itself"},
		{[]string{"--peer", "http://10.1.1.1:3128", "--peer", "http://10.1.1.1:3128"}, "serve: --peer http://10.1.1.1:3128: listed twice"},
	} {
		failsWith(t, c.want, append([]string{"serve", "--check-config"}, c.args...)...)
	}
	// Another node on this host, or the same port elsewhere, is a peer.
	for _, args := range [][]string{
		{"--listen", "127.0.0.1:3999", "--peer", "http://127.0.0.1:4000"},
		{"--listen", "127.0.0.1:3999", "--peer", "http://127.0.0.2:3999"},
		{"--name", "n1", "--peer", "name=n2,proxy=http://10.1.1.1:3128"},
		{"--peer-expiry", "30s"},
	} {
		if out := ok(t, "", append([]string{"serve", "--check-config"}, args...)...); out != "configuration ok\n" {
			t.Errorf("%q: %q", args, out)
		}
	}
}

func TestServeConnectPorts(t *testing.T) {
	sf, err := parseServeFlags([]string{"--connect-ports", "443, 8443", "--tunnel-idle-timeout", "1m"})
	if err != nil {
		t.Fatal(err)
	}
	if c := sf.cfg; len(c.ConnectPorts) != 2 || c.ConnectPorts[1] != 8443 || c.TunnelIdle != time.Minute || c.TunnelLifetime != 24*time.Hour {
		t.Fatalf("ports %v, idle %v, lifetime %v", c.ConnectPorts, c.TunnelIdle, c.TunnelLifetime)
	}
	if sf, _ := parseServeFlags(nil); len(sf.cfg.ConnectPorts) != 1 || sf.cfg.ConnectPorts[0] != 443 {
		t.Fatalf("default ports %v", sf.cfg.ConnectPorts)
	}
	if sf, _ := parseServeFlags(nil); sf.cfg.ReadTimeout != 15*time.Minute {
		t.Fatalf("default read timeout %v, want Squid's 15m", sf.cfg.ReadTimeout)
	}
	if sf, _ := parseServeFlags([]string{"--read-timeout", "90s"}); sf.cfg.ReadTimeout != 90*time.Second {
		t.Fatalf("--read-timeout 90s: %v", sf.cfg.ReadTimeout)
	}
	usageFails(t, `serve: --connect-ports "0": `, "serve", "--connect-ports", "0")
	usageFails(t, `serve: --connect-ports "https": `, "serve", "--connect-ports", "https")
}

// TestServeConfigErrorsNameTheLine: a mistake in the config file is one
// line naming the file, the line and the key, with no usage text.
func TestServeConfigErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	conf := func(body string) string { return writeFile(t, filepath.Join(dir, "node.conf"), body) }
	for _, c := range []struct{ body, want string }{
		{"# node\nlisten 127.0.0.1:4000\nmemroy 64MiB\n", `:3: unknown key "memroy"`},
		{"memory = lots\n", ":1: memory lots: want a size such as"},
		{"\n\nmemory 0\n", ":3: memory 0: want a size above 0"},
		{"poll -1s\n", ":1: poll -1s: want a duration of at least 1ms"},
		{"threshold 0\n", ":1: threshold 0: want a fraction of the cache in (0, 1]"},
		{"listen\n", ":1: listen needs a value"},
		{"config other.conf\n", ":1: config belongs on the command line"},
		{"peer name=x\n", ":1: peer name=x: a peer needs proxy=URL"},
		{"listen 127.0.0.1:3999\npeer http://127.0.0.1:3999\n", ":2: peer http://127.0.0.1:3999: this node itself"},
	} {
		path := conf(c.body)
		failsWith(t, path+c.want, "serve", "--config", path, "--check-config")
		if !strings.Contains(c.body, "listen 127") {
			failsWith(t, path+c.want, "serve", "--config", path, "--listen", "127.0.0.1:0")
		}
	}
	// The command line wins over the file, and its errors say so.
	path := conf("memory 64MiB\nno-delta\n")
	if out := ok(t, "", "serve", "--config", path, "--check-config"); out != path+": configuration ok\n" {
		t.Errorf("check-config: %q", out)
	}
	failsWith(t, "serve: --memory 0: want a size above 0", "serve", "--config", path, "--memory", "0", "--check-config")
	failsWith(t, filepath.Join(dir, "none.conf")+": no such file", "serve", "--config", filepath.Join(dir, "none.conf"), "--check-config")
	if msg := failsWith(t, dir+": is a directory", "serve", "--config", dir, "--check-config"); msg != "bloomcast: "+dir+": is a directory\n" {
		t.Errorf("--config DIR: %q, want the directory named once", msg)
	}
	failsWith(t, "serve: --access-log "+filepath.Join(dir, "no", "access.log")+": no directory",
		"serve", "--check-config", "--access-log", filepath.Join(dir, "no", "access.log"))
}

// TestServeDefaultName: the node's default name is the host name.
func TestServeDefaultName(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" || strings.ContainsAny(host, " ,") {
		t.Skip("no usable host name")
	}
	sf, err := parseServeFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if sf.cfg.Name != "" {
		t.Fatalf("name %q before the node fills it in", sf.cfg.Name)
	}
	failsWith(t, "serve: --peer http://10.1.1.1:3128: this node itself", "serve", "--check-config", "--peer", "name="+host+",proxy=http://10.1.1.1:3128")
}
