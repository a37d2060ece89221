package build

import (
	"runtime/debug"
	"slices"
	"testing"
)

func TestResolve(t *testing.T) {
	const (
		rev  = "0123456789abcdef0123456789abcdef01234567"
		when = "2025-01-02T03:04:05Z"
	)
	unstamped := Info{"dev", "none", "unknown"}
	// What every build records beside the version control's settings.
	toolchain := []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "CGO_ENABLED", Value: "0"}}
	clone := func(version, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{
			Main: debug.Module{Path: "github.com/wbsctl/wbsctl", Version: version},
			Settings: slices.Concat(toolchain, []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: rev},
				{Key: "vcs.time", Value: when},
				{Key: "vcs.modified", Value: modified},
			}),
		}
	}
	for _, tc := range []struct {
		name    string
		stamped Info
		bi      *debug.BuildInfo
		want    Info
	}{
		{
			name:    "go install @v0.1.0 builds from the module zip, which has no commit",
			stamped: unstamped,
			bi:      &debug.BuildInfo{Main: debug.Module{Path: "github.com/wbsctl/wbsctl", Version: "v0.1.0", Sum: "h1:…"}, Settings: toolchain},
			want:    Info{"v0.1.0", "none", "unknown"},
		},
		{
			name:    "a clean clone at a tag",
			stamped: unstamped,
			bi:      clone("v0.1.0", "false"),
			want:    Info{"v0.1.0", rev, when},
		},
		{
			name:    "a dirty clone past the tag: the go command's pseudo-version",
			stamped: unstamped,
			bi:      clone("v0.1.1-0.20250102030405-0123456789ab+dirty", "true"),
			want:    Info{"v0.1.1-0.20250102030405-0123456789ab+dirty", rev + "+dirty", when},
		},
		{
			name:    "a clone without tags, or a toolchain before Go 1.24",
			stamped: unstamped,
			bi:      clone("(devel)", "false"),
			want:    Info{"(devel)", rev, when},
		},
		{
			name:    "a clone built with -buildvcs=false",
			stamped: unstamped,
			bi:      &debug.BuildInfo{Main: debug.Module{Path: "github.com/wbsctl/wbsctl", Version: "(devel)"}, Settings: toolchain},
			want:    Info{"(devel)", "none", "unknown"},
		},
		{
			name:    "go install @main builds from a module zip: its pseudo-version names the commit",
			stamped: unstamped,
			bi:      &debug.BuildInfo{Main: debug.Module{Path: "github.com/wbsctl/wbsctl", Version: "v0.1.1-0.20250102030405-0123456789ab", Sum: "h1:…"}, Settings: toolchain},
			want:    Info{"v0.1.1-0.20250102030405-0123456789ab", "0123456789ab", when},
		},
		{
			name:    "a pseudo-version before any tag",
			stamped: unstamped,
			bi:      &debug.BuildInfo{Main: debug.Module{Path: "github.com/wbsctl/wbsctl", Version: "v0.0.0-20250102030405-0123456789ab"}, Settings: toolchain},
			want:    Info{"v0.0.0-20250102030405-0123456789ab", "0123456789ab", when},
		},
		{
			name:    "a binary without build info",
			stamped: unstamped,
			bi:      nil,
			want:    unstamped,
		},
		{
			name:    "the release build's -ldflags win over what the clone records",
			stamped: Info{"0.1.0", "fedcba9876543210fedcba9876543210fedcba98", "2025-02-03T04:05:06Z"},
			bi:      clone("v0.1.0", "true"),
			want:    Info{"0.1.0", "fedcba9876543210fedcba9876543210fedcba98", "2025-02-03T04:05:06Z"},
		},
		{
			name:    "a stamped version alone keeps the recorded commit and date",
			stamped: Info{"0.1.0", "none", "unknown"},
			bi:      clone("v0.1.0", "false"),
			want:    Info{"0.1.0", rev, when},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.stamped, tc.bi); got != tc.want {
				t.Errorf("resolve = %+v, want %+v", got, tc.want)
			}
		})
	}
}
