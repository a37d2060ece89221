package apply

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"
)

// errStateTracked is a state file that git tracks.
var errStateTracked = errors.New("is tracked by git")

// checkStateUntracked refuses a state file that the git repository it
// lies in tracks. A committed state is what a commit held, not what the
// platform holds: a CI job whose cache missed would trust it, and a
// revert of the repository would roll the state back. Where git is not
// installed, or the file is in no repository, there is nothing to
// refuse.
func checkStateUntracked(ctx context.Context, path string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "ls-files", "--error-unmatch", "--", filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	if cmd.Run() != nil {
		return nil // untracked, or no repository
	}
	return fmt.Errorf("--state %s %w: a state in the repository is what a commit held, not what the platform holds, "+
		"and a CI job whose cache missed would trust it; untrack it (git rm --cached %s) and ignore it (.gitignore); nothing was sent",
		path, errStateTracked, path)
}
