// Package build holds what the release build stamps into the binary
// through -ldflags "-X".
package build

// Set by the release build; the defaults describe a build from source.
var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)
