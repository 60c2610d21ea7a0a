package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release, set at link time with
// -ldflags "-X main.version=v1.2.3"; otherwise the main module's version
// from the build information is used.
var version string

var versionCommand = &command{
	name:    "version",
	summary: "print the version (also: bloomcast --version)",
	usage:   usageText("version"),
	run: func(e *env, args []string) error {
		fs := newFlagSet("version")
		if err := parseNoArgs(fs, args); err != nil {
			return err
		}
		info, _ := debug.ReadBuildInfo()
		_, err := fmt.Fprint(e.stdout, versionText(info))
		return err
	},
}

// versionText renders the version report from info, which may be nil
// (a binary built without module support).
func versionText(info *debug.BuildInfo) string {
	v := releaseVersion(info)
	var rev, when string
	modified := false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "bloomcast %s\n", v)
	if rev != "" {
		b.WriteString("revision " + rev)
		if when != "" {
			b.WriteString(" " + when)
		}
		if modified {
			b.WriteString(" modified")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// releaseVersion is the release: the version set at link time, else the
// main module's version in info (nil: none), else "(devel)". The version
// command prints it and a node reports it on its status page.
func releaseVersion(info *debug.BuildInfo) string {
	switch {
	case version != "":
		return version
	case info != nil && info.Main.Version != "":
		return info.Main.Version
	}
	return "(devel)"
}
