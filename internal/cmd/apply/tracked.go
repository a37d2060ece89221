package apply

import (
	"errors"
	"fmt"

	"github.com/wbsctl/wbsctl/internal/gitindex"
)

// errStateTracked is a state file that git tracks.
var errStateTracked = errors.New("is tracked by git")

// checkStateUntracked refuses a state file that the git repository it
// lies in tracks. A committed state is what a commit held, not what the
// platform holds: a CI job whose cache missed would trust it, and a
// revert of the repository would roll the state back. An index that
// cannot be read refuses nothing: the state's own checks still hold.
func checkStateUntracked(path string) error {
	if tracked, _ := gitindex.Tracked(path); !tracked {
		return nil
	}
	return fmt.Errorf("--state %s %w: a state in the repository is what a commit held, not what the platform holds, "+
		"and a CI job whose cache missed would trust it; untrack it (git rm --cached %s) and ignore it (.gitignore); nothing was sent",
		path, errStateTracked, path)
}
