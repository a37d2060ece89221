package filelock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// soon bounds what must happen at once (a TryLock, a lock taken after
// its holder let go): far longer than it takes, far shorter than the
// test binary's timeout, so that a lock call that blocks fails its test
// by name, saying what it waited for, instead of hanging the package.
func soon(t *testing.T) time.Duration {
	d := 10 * time.Second
	if deadline, ok := t.Deadline(); ok {
		d = min(d, time.Until(deadline)/2)
	}
	return d
}

// taken is the outcome of a lock call.
type taken struct {
	unlock func()
	err    error
}

// within runs take and returns its outcome, failing the test when it
// takes longer than d; what says what the call waited for. The call is
// left running then: a blocked flock cannot be called off, and the test
// binary ends it when it exits.
func within(t *testing.T, d time.Duration, what string, take func() (func(), error)) (func(), error) {
	t.Helper()
	done := make(chan taken, 1)
	go func() {
		unlock, err := take()
		done <- taken{unlock, err}
	}()
	select {
	case r := <-done:
		return r.unlock, r.err
	case <-time.After(d):
		t.Fatalf("%s: still waiting after %v", what, d)
		return nil, nil
	}
}

// One holder at a time: a second TryLock fails at once with ErrLocked
// while the first holds the lock, and succeeds once it is released; the
// holder's note is read while it holds the lock and is gone once it
// releases it. A TryLock that waited for the first holder would leave a
// second apply hanging where it is to fail naming the holder.
func TestOneHolderAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	unlock, err := within(t, soon(t), "the first TryLock of a free lock", func() (func(), error) {
		return TryLockAs(path, []byte(`{"id":"first"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = within(t, soon(t), "a second TryLock while the first holder holds the lock (it is to refuse at once, not to wait)", func() (func(), error) {
		return TryLock(path)
	})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("a second holder: %v, want ErrLocked", err)
	}
	if _, err := within(t, soon(t), "a TryLockAs of a held lock", func() (func(), error) {
		return TryLockAs(path, []byte(`{"id":"second"}`))
	}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second holder with a note: %v, want ErrLocked", err)
	}
	if note, err := Holder(path); err != nil || string(note) != `{"id":"first"}` {
		t.Fatalf("the holder's note: %q %v, want the first holder's", note, err)
	}
	unlock()
	if note, err := Holder(path); err != nil || note != nil {
		t.Fatalf("a released lock's note: %q %v, want none", note, err)
	}
	again, err := within(t, soon(t), "a TryLock after the first holder released the lock", func() (func(), error) {
		return TryLock(path)
	})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}

// Lock waits while another holds the lock, and takes it once the holder
// releases it.
func TestLockWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	unlock, err := TryLockAs(path, []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan taken, 1)
	go func() {
		u, err := Lock(path)
		got <- taken{u, err}
	}()
	select {
	case r := <-got:
		if r.err == nil {
			r.unlock()
		}
		t.Fatalf("Lock returned while another held the lock: %v", r.err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("Lock after the holder released it: %v", r.err)
		}
		r.unlock()
	case <-time.After(soon(t)):
		t.Fatalf("Lock was still waiting %v after the holder released the lock", soon(t))
	}
}

// A lock file that is a symbolic link is refused, by TryLock, TryLockAs
// and Lock alike, whether it points nowhere or to a file: planted in a
// shared folder, it would have wbsctl create the file it points to, or
// write its note over it. What it points to is neither created nor
// written. (The file locked is the name given, PATH.lock, beside it: the
// state itself may be a link, and its lock stays beside the link.)
func TestSymbolicLinkRefused(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "elsewhere")
	existing := filepath.Join(dir, "precious")
	if err := os.WriteFile(existing, []byte("the user's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{missing, existing} {
		link := filepath.Join(dir, "state.lock")
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		for name, take := range map[string]func(string) (func(), error){
			"TryLock":   TryLock,
			"TryLockAs": func(p string) (func(), error) { return TryLockAs(p, []byte("note")) },
			"Lock":      Lock,
		} {
			unlock, err := within(t, soon(t), name+" of a lock file that is a symbolic link", func() (func(), error) {
				return take(filepath.Join(dir, "state"))
			})
			if err == nil {
				unlock()
				t.Fatalf("%s: a symbolic link to %s was taken as the lock file", name, filepath.Base(target))
			}
			if !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("%s: %v, want it to say the lock file is a symbolic link", name, err)
			}
		}
	}
	if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "the user's file" {
		t.Fatalf("the link's target was written: %q", b)
	}
}

// A lock held by another process is refused while it lives, naming it
// by its note; once the process is killed (SIGKILL: no release of its
// own), the lock is free at once, to TryLock and to a Lock that waited
// for it.
func TestKilledHolderReleases(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper process is killed with a Unix signal")
	}
	path := filepath.Join(t.TempDir(), "state")
	helper := startHolder(t, path)
	if _, err := within(t, soon(t), "a TryLock while another process holds the lock", func() (func(), error) {
		return TryLock(path)
	}); !errors.Is(err, ErrLocked) {
		t.Fatalf("while the helper holds it: %v, want ErrLocked", err)
	}
	if note, err := Holder(path); err != nil || string(note) != fmt.Sprintf("helper pid %d", helper.Process.Pid) {
		t.Fatalf("the holder's note: %q %v, want the helper's, pid %d", note, err, helper.Process.Pid)
	}
	waiter := make(chan taken, 1)
	go func() {
		u, err := Lock(path)
		waiter <- taken{u, err}
	}()
	if err := helper.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	helper.Wait()
	select {
	case r := <-waiter:
		if r.err != nil {
			t.Fatalf("Lock, waiting while the holder was killed: %v", r.err)
		}
		r.unlock()
	case <-time.After(soon(t)):
		t.Fatalf("a Lock was still waiting %v after the holding process was killed", soon(t))
	}
	unlock, err := within(t, soon(t), "a TryLock after the holding process was killed", func() (func(), error) {
		return TryLock(path)
	})
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	unlock()
}

// startHolder starts this test binary again as TestHelperHoldsTheLock,
// holding the lock of path, and returns once it holds it. The helper is
// killed when the test ends, and ends by itself when its standard input
// closes (the test binary ended).
func startHolder(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldsTheLock$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
		io.Copy(io.Discard, out)
	}()
	select {
	case s := <-line:
		if s != "holding\n" {
			t.Fatalf("the helper did not take the lock: %q", s)
		}
	case <-time.After(soon(t)):
		t.Fatalf("the helper had not taken the lock after %v", soon(t))
	}
	return cmd
}

// TestHelperHoldsTheLock is the process TestKilledHolderReleases kills:
// it takes the lock, says so, and holds it until it is killed or its
// standard input ends.
func TestHelperHoldsTheLock(t *testing.T) {
	path := os.Getenv("FILELOCK_HOLD")
	if path == "" {
		t.Skip("run by TestKilledHolderReleases")
	}
	if _, err := TryLockAs(path, fmt.Appendf(nil, "helper pid %d", os.Getpid())); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("holding\n")
	io.Copy(io.Discard, os.Stdin)
}
