package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// gitRepo makes a repository in a temporary folder with the files named,
// each added when tracked, and returns its folder.
func gitRepo(t *testing.T, files map[string]bool) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	runGit(t, repo, "init", "-q")
	for name, tracked := range files {
		os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o700)
		os.WriteFile(filepath.Join(repo, name), []byte(name), 0o600)
		if tracked {
			runGit(t, repo, "add", "-f", name)
		}
	}
	return repo
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// A tracked state is told tracked when it is named through a symbolic
// link to a folder of the repository, or to the repository itself (as
// macOS names /tmp through /private/tmp): the index names the files by
// the folders' real names.
func TestTrackedThroughALinkedFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links to folders need a privilege on Windows")
	}
	repo := gitRepo(t, map[string]bool{".wbsctl/state": true, ".wbsctl/other": false})
	links := t.TempDir()
	for name, target := range map[string]string{"repo": repo, "folder": filepath.Join(repo, ".wbsctl")} {
		if err := os.Symlink(target, filepath.Join(links, name)); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(links, "repo", ".wbsctl", "state"): true,
		filepath.Join(links, "folder", "state"):          true,
		filepath.Join(links, "folder", "other"):          false,
	} {
		if got, err := Tracked(path); err != nil || got != want {
			t.Errorf("%s: tracked %v, %v; want %v", path, got, err, want)
		}
	}
}

// In a linked work tree (git worktree add), whose .git is a file naming
// its git folder, a tracked state is told tracked, by that work tree's
// own index.
func TestTrackedInALinkedWorkTree(t *testing.T) {
	repo := gitRepo(t, map[string]bool{"state": true, "deep/state": true, "untracked": false})
	runGit(t, repo, "commit", "-q", "-m", "states")
	tree := filepath.Join(t.TempDir(), "linked")
	runGit(t, repo, "worktree", "add", "-q", tree)
	os.WriteFile(filepath.Join(tree, "untracked"), nil, 0o600)
	for name, want := range map[string]bool{"state": true, "deep/state": true, "untracked": false} {
		if got, err := Tracked(filepath.Join(tree, filepath.FromSlash(name))); err != nil || got != want {
			t.Errorf("%s in a linked work tree: tracked %v, %v; want %v", name, got, err, want)
		}
	}
}
