package atomicfile_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
)

func TestWriteLeavesTheFolderAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("folder modes are Unix's")
	}
	for _, mode := range []os.FileMode{0o755 | os.ModeSticky | 0o022, 0o755, 0o750} {
		dir := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Stat(dir)
		path := filepath.Join(dir, "nightly.plan")
		if err := atomicfile.Write(path, []byte("plan"), 0o600); err != nil {
			t.Fatal(err)
		}
		after, _ := os.Stat(dir)
		if after.Mode() != before.Mode() {
			t.Errorf("folder mode %v became %v", before.Mode(), after.Mode())
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file: %v %v, want 0600", fi.Mode(), err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("left behind: %v", entries)
		}
	}
}

func TestWriteReplacesWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := atomicfile.Write(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("a reader saw %q before the commit", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after abort: %q", b)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644) {
		t.Fatalf("after commit: %q %v", b, fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestWriteIntoAMissingFolderFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "plan")
	if err := atomicfile.Write(path, []byte("x"), 0o600); err == nil {
		t.Fatal("wrote into a folder that does not exist; the user's folders are never made")
	}
}
