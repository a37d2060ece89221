package cmdutil

import (
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
)

// CommitOf is the commit a CI job runs for, as its environment (getenv)
// names it: WBSCTL_COMMIT_SHA, else GITHUB_SHA or CI_COMMIT_SHA; its time
// from WBSCTL_COMMIT_TIME, else CI_COMMIT_TIMESTAMP (GitHub gives none:
// its workflow sets WBSCTL_COMMIT_TIME from git, as wbsctl starts no
// process). Nil outside CI; a commit whose time is not given has none,
// and is then never judged older.
func CommitOf(getenv func(string) string) *statestore.Commit {
	sha := firstSet(getenv, "WBSCTL_COMMIT_SHA", "GITHUB_SHA", "CI_COMMIT_SHA")
	if sha == "" {
		return nil
	}
	c := &statestore.Commit{SHA: sha}
	if t, err := time.Parse(time.RFC3339, firstSet(getenv, "WBSCTL_COMMIT_TIME", "CI_COMMIT_TIMESTAMP")); err == nil {
		c.Time = t.UTC()
	}
	return c
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, name := range names {
		if v := getenv(name); v != "" {
			return v
		}
	}
	return ""
}
