package guava

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// guavaJava compiles crosscheck/GuavaCheck.java against Debian's Guava
// and returns a function that runs it. Without javac, java or the jar it
// skips, unless BLOOMCAST_REQUIRE_JAVA is set, when it fails.
func guavaJava(t *testing.T) func(args ...string) {
	t.Helper()
	jar := os.Getenv("GUAVA_JAR")
	if jar == "" {
		jar = "/usr/share/java/guava.jar"
	}
	javac, err1 := exec.LookPath("javac")
	java, err2 := exec.LookPath("java")
	_, err3 := os.Stat(jar)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			if os.Getenv("BLOOMCAST_REQUIRE_JAVA") != "" {
				t.Fatalf("BLOOMCAST_REQUIRE_JAVA is set: %v", err)
			}
			t.Skipf("Java and Guava (default-jdk-headless, libguava-java) not installed: %v", err)
		}
	}
	classes := t.TempDir()
	out, err := exec.Command(javac, "-encoding", "UTF-8", "-d", classes, "-cp", jar, filepath.Join("crosscheck", "GuavaCheck.java")).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command(java, append([]string{"-cp", jar + string(os.PathListSeparator) + classes, "GuavaCheck"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("java GuavaCheck %v: %v\n%s", args, err, out)
		}
	}
}

// TestRealGuava runs the round trip both ways with the real Guava on 10^5
// present and 10^5 absent keys per filter: bloomcast reads the filters
// Guava writes and answers as mightContain does; Guava reads the filters
// bloomcast builds from the same keys (byte-identical to its own) and
// answers as bloomcast does. Not one answer may differ.
func TestRealGuava(t *testing.T) {
	run := guavaJava(t)
	const n = 100000
	dir := t.TempDir()
	for _, c := range []struct {
		kind, strategy string
		fpp            float64
	}{{"str", "mitz64", 0.01}, {"long", "mitz64", 0.001}, {"str", "mitz32", 0.03}, {"long", "mitz32", 0.01}} {
		name := c.kind + "-" + c.strategy
		t.Run(name, func(t *testing.T) {
			fppArg := strconv.FormatFloat(c.fpp, 'g', -1, 64)
			guavaBin := filepath.Join(dir, name+".guava.bin")
			guavaAns := filepath.Join(dir, name+".guava.answers")
			run("gen", c.kind, c.strategy, strconv.Itoa(n), fppArg, strconv.Itoa(n), guavaBin, guavaAns)
			data, err := os.ReadFile(guavaBin)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(guavaAns)
			if err != nil {
				t.Fatal(err)
			}
			// Guava to bloomcast.
			f, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			compareAnswers(t, "Guava's filter", answers(f, c.kind, n, n), want, n, n)

			// bloomcast to Guava.
			g, err := New(n, c.fpp)
			if err != nil {
				t.Fatal(err)
			}
			if c.strategy == "mitz32" {
				if g, err = NewSized(Murmur128Mitz32, int64(g.Bits()), g.K()); err != nil {
					t.Fatal(err)
				}
			}
			fill(g, c.kind, n)
			ours, _ := g.MarshalBinary()
			if !bytes.Equal(ours, data) {
				t.Errorf("bloomcast's filter of the same keys differs from Guava's (%d and %d bytes)", len(ours), len(data))
			}
			ourBin := filepath.Join(dir, name+".bloomcast.bin")
			ourAns := filepath.Join(dir, name+".bloomcast.answers")
			if err := os.WriteFile(ourBin, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			run("query", c.kind, ourBin, strconv.Itoa(n), strconv.Itoa(n), ourAns)
			guavaSays, err := os.ReadFile(ourAns)
			if err != nil {
				t.Fatal(err)
			}
			compareAnswers(t, "bloomcast's filter", answers(g, c.kind, n, n), guavaSays, n, n)
			fp := 0
			for j := n; j < 2*n; j++ {
				fp += int(guavaSays[j/8] >> (j % 8) & 1)
			}
			t.Logf("%s: %d present and %d absent keys each way, 0 disagreements; %d absent keys reported present (fpp %v)", name, n, n, fp, c.fpp)
		})
	}
}
