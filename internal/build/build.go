// Package build says which wbsctl is running: what the release build
// stamps into the binary through -ldflags "-X", and where it stamped
// nothing, what the Go toolchain records in every build.
package build

import (
	"runtime/debug"
	"strings"
	"time"
)

// Set by the release build; the defaults describe a build from source.
var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)

// Info is what a binary says of its build.
type Info struct {
	// Version is the release, such as v0.1.0, or "dev".
	Version string
	// Commit is the revision built, "+dirty" when the work tree had
	// changes not committed, or "none".
	Commit string
	// Date is when the release was built or, for a build in a clone,
	// when its commit was made (RFC 3339); or "unknown".
	Date string
}

// Current returns the running binary's Info. A release build stamps all
// three; `go install …@v0.1.0` builds from the module's zip, which knows
// its version but no commit; a build in a clone knows its commit and,
// from its tags, a version too.
func Current() Info {
	bi, _ := debug.ReadBuildInfo() // nil in a binary built without modules
	return resolve(Info{Version, Commit, Date}, bi)
}

// resolve is the Info of a binary whose -ldflags stamped stamped (the
// defaults where they did not) and whose toolchain recorded bi, which may
// be nil. A stamped value wins: the release build says exactly what it
// shipped.
func resolve(stamped Info, bi *debug.BuildInfo) Info {
	var recorded Info
	if bi != nil {
		// "(devel)": a build in a clone the toolchain could not version.
		recorded.Version = bi.Main.Version
		// go install …@main or …@<commit> builds from a module zip,
		// which records no commit; its pseudo-version names one.
		recorded.Commit, recorded.Date = fromPseudoVersion(bi.Main.Version)
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				recorded.Commit = s.Value
			case "vcs.time":
				recorded.Date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if recorded.Commit != "" && modified {
			recorded.Commit += "+dirty"
		}
	}
	return Info{
		Version: pick(stamped.Version, "dev", recorded.Version),
		Commit:  pick(stamped.Commit, "none", recorded.Commit),
		Date:    pick(stamped.Date, "unknown", recorded.Date),
	}
}

// fromPseudoVersion returns the commit prefix and its time (RFC 3339)
// of a pseudo-version such as v0.1.1-0.20250102030405-0123456789ab, or
// two empty strings for a version of a tag.
func fromPseudoVersion(v string) (commit, date string) {
	v, _, _ = strings.Cut(v, "+") // +incompatible, +dirty
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return "", ""
	}
	rev, stamp := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
		stamp = stamp[i+1:]
	}
	t, err := time.Parse("20060102150405", stamp)
	if len(rev) != 12 || strings.Trim(rev, "0123456789abcdef") != "" || err != nil {
		return "", ""
	}
	return rev, t.UTC().Format(time.RFC3339)
}

// pick is stamped where the release build set it, else recorded where
// the toolchain did, else the default.
func pick(stamped, byDefault, recorded string) string {
	switch {
	case stamped != "" && stamped != byDefault:
		return stamped
	case recorded != "":
		return recorded
	}
	return byDefault
}
