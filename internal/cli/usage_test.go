package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUsageTextsUsed checks that every text in usage/ reaches some help
// output, whole, so no text is left behind when a command changes.
func TestUsageTextsUsed(t *testing.T) {
	shown := []string{tracebackUsage, loopsUsage, compressSimUsage, growthUsage,
		calcFPSetUsage, calcTransmitUsage, calcCountingUsage, calcBudgetUsage, calcStaticUsage}
	for _, c := range commands {
		shown = append(shown, c.usage)
	}
	for _, tm := range usageTemplates.Templates() {
		name := tm.Name()
		if name == "" || name == "main" {
			continue
		}
		text := usageText(name)
		found := false
		for _, s := range shown {
			found = found || strings.Contains(s, text)
		}
		if !found {
			t.Errorf("usage/%s.txt is in no command's help", name)
		}
	}
	if !strings.Contains(mainUsage(), "  build      build a filter from keys, one per line\n") {
		t.Errorf("main usage lacks the command list:\n%s", mainUsage())
	}
}

// TestReferenceCurrent checks docs/CLI.md against the usage texts it is
// generated from.
func TestReferenceCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReference(&b); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/CLI.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Error("docs/CLI.md differs from the usage texts: run go generate ./internal/cli")
	}
	for _, c := range commands {
		if !bytes.Contains(got, []byte("```text\n"+c.usage+"```\n")) {
			t.Errorf("docs/CLI.md lacks %s's usage", c.name)
		}
	}
}

// TestUsageWidth: every help text fits an 80-column terminal.
func TestUsageWidth(t *testing.T) {
	texts := map[string]string{"bloomcast": mainUsage(), "sim traceback": tracebackUsage, "sim loops": loopsUsage,
		"sim compress": compressSimUsage, "sim growth": growthUsage, "calc --fpset": calcFPSetUsage,
		"calc --transmit": calcTransmitUsage, "calc --counting": calcCountingUsage, "calc --budget": calcBudgetUsage,
		"calc --static": calcStaticUsage}
	for _, c := range commands {
		texts[c.name] = c.usage
	}
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%s -h, line %d: %d columns: %q", name, i+1, n, line)
			}
		}
	}
}
