package filelock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// One holder at a time: a second TryLock fails with ErrLocked while the
// first holds the lock, and succeeds once it is released; the holder's
// note is read while it holds the lock and is gone once it releases it.
func TestOneHolderAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	unlock, err := TryLockAs(path, []byte(`{"id":"first"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second holder: %v, want ErrLocked", err)
	}
	if note, err := Holder(path); err != nil || string(note) != `{"id":"first"}` {
		t.Fatalf("the holder's note: %q %v", note, err)
	}
	unlock()
	if note, err := Holder(path); err != nil || note != nil {
		t.Fatalf("a released lock's note: %q %v, want none", note, err)
	}
	again, err := TryLock(path)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}

// A lock file that is a symbolic link is refused, and what it points to
// is neither created nor written.
func TestSymbolicLinkRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, "state.lock")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if _, err := TryLockAs(filepath.Join(dir, "state"), []byte("note")); err == nil {
		t.Fatal("a symbolic link was taken as the lock file")
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
}

// A lock that a killed process held ends with it: the next TryLock takes
// it at once.
func TestKilledHolderReleases(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper process is killed with a Unix signal")
	}
	path := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldsTheLock$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "holding\n" {
		cmd.Process.Kill()
		t.Fatalf("the helper did not take the lock: %q %v", line, err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("while the helper holds it: %v, want ErrLocked", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	unlock, err := TryLock(path)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	unlock()
}

// TestHelperHoldsTheLock is the process TestKilledHolderReleases kills:
// it takes the lock, says so, and waits to be killed.
func TestHelperHoldsTheLock(t *testing.T) {
	path := os.Getenv("FILELOCK_HOLD")
	if path == "" {
		t.Skip("run by TestKilledHolderReleases")
	}
	if _, err := TryLockAs(path, []byte("helper")); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("holding\n")
	select {}
}
