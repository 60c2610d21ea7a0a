package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the release, set at link time with
// -ldflags "-X main.version=v1.2.3"; otherwise the module's version is
// used.
var version string

var versionCommand = &command{
	name:    "version",
	summary: "print the version",
	usage: `usage: bloomcast version

Print bloomcast's version, the source revision when known, and the Go
release and platform it was built with.
`,
	run: func(e *env, args []string) error {
		fs := newFlagSet("version")
		args, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		_, err = fmt.Fprintln(e.stdout, versionString())
		return err
	},
}

func versionString() string {
	v, rev, dirty := version, "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	s := "bloomcast " + v
	if rev != "" {
		s += " " + rev[:min(len(rev), 12)]
		if dirty {
			s += "+dirty"
		}
	}
	return fmt.Sprintf("%s %s %s/%s", s, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
