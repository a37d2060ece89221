package apply

import "os"

// openStepSummary opens name to append to it, creating it, and refuses a
// symbolic link. Windows has no O_NOFOLLOW: the link is refused by a
// check before opening, which a link put in the file's place between the
// two passes.
func openStepSummary(name string) (*os.File, error) {
	if isSymlink(name) {
		return nil, symlinkRefused(name)
	}
	return os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o644)
}
