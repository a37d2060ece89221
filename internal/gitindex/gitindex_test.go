package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// git's own answer is held against Tracked's, over the index versions
// git writes (2; 3, with an entry added with --intent-to-add; 4, whose
// paths are compressed), for files in the root, in folders, untracked,
// ignored, and outside any repository.
func TestTrackedAsGitSaysIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "state"), nil, 0o600)
	for _, version := range []string{"2", "3", "4"} {
		t.Run("version "+version, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			git("init", "-q")
			files := map[string]bool{
				"state": true, ".wbsctl/state": true, ".wbsctl/state.lock": false, "deep/er/and/deeper/state": true,
				"deep/er/state": true, "deep/er/stat": false, "ignored/state": false, "a-long-name-x/state": true,
			}
			for name := range files {
				os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o700)
				os.WriteFile(filepath.Join(repo, name), []byte(name), 0o600)
			}
			os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("ignored/\n.wbsctl/state.lock\ndeep/er/stat\n"), 0o600)
			git("add", ".gitignore", "state", "deep", "a-long-name-x")
			if version == "3" {
				git("add", "--intent-to-add", "-f", ".wbsctl/state")
			} else {
				git("add", "-f", ".wbsctl/state")
			}
			git("update-index", "--index-version", version)
			for name, want := range files {
				got, err := Tracked(filepath.Join(repo, name))
				if err != nil || got != want {
					t.Errorf("%s: tracked %v, %v; want %v", name, got, err, want)
				}
			}
			if got, err := Tracked(filepath.Join(repo, "no-such-folder", "state")); err != nil || got {
				t.Errorf("a file in no folder: %v %v", got, err)
			}
		})
	}
	if got, err := Tracked(filepath.Join(outside, "state")); err != nil || got {
		t.Errorf("outside a repository: %v %v", got, err)
	}
}
