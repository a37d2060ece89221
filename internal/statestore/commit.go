package statestore

import (
	"errors"
	"fmt"
	"time"
)

// Commit is the version of the repository a file was read from: the
// commit's id and its committer time, as a CI job knows them.
type Commit struct {
	SHA  string    `json:"sha"`
	Time time.Time `json:"time,omitzero"`
}

// String names the commit as a person reads it: its short id and time.
func (c *Commit) String() string {
	sha := c.SHA
	if len(sha) > 12 {
		sha = sha[:12]
	}
	if c.Time.IsZero() {
		return BucketText(sha)
	}
	return fmt.Sprintf("%s (%s)", BucketText(sha), c.Time.UTC().Format(time.RFC3339))
}

// Before reports whether c is known to be older than d: another commit,
// made before it. Without both times nothing is known.
func (c *Commit) Before(d *Commit) bool {
	return c != nil && d != nil && c.SHA != d.SHA && !c.Time.IsZero() && !d.Time.IsZero() && c.Time.Before(d.Time)
}

// ErrOlderCommit is a run whose file is from a commit older than the one
// the state's last apply carried out: run, it would put an older file's
// values over a newer one's.
var ErrOlderCommit = errors.New("the file is from an older commit than the last apply's")

// CommitRefusal is why a run of the file of commit is refused over a
// state whose last apply was of the head's commit; nil where it may run.
func (h *Head) CommitRefusal(commit *Commit) error {
	if !commit.Before(h.Commit) {
		return nil
	}
	return fmt.Errorf("%w: this run's file is of commit %s, and the state's last apply was of commit %s; nothing was sent. Plan the newest commit instead (never a re-run of an older pipeline), or give --allow-older-commit to put the older file's values back on purpose",
		ErrOlderCommit, commit, h.Commit)
}
