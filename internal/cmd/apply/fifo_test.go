//go:build unix

package apply_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// fifo makes a FIFO with no writer. When the test ends it opens the FIFO
// to write and closes it, so that an open the run left waiting returns.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		// The open the run left is over before the next test looks
		// for one of its own.
		for _, fn := range []string{"cmdutil.ReadFileOrStdin", "engine.ReadSavedPlan"} {
			waitFor(t, "the open left waiting to end", func() bool { return openWaits(fn) == 0 })
		}
	})
	return path
}

// openWaits counts the goroutines of this process that wait in an open
// of a file called from fn, a function named in their stack.
func openWaits(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	waits := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) && strings.Contains(g, "os.openFile") {
			waits++
		}
	}
	return waits
}

// waitingIn waits until a goroutine of this process waits in an open of
// a file called from fn, when none did before: the run's own, its signal
// handling in place.
func waitingIn(t *testing.T, fn string) {
	t.Helper()
	waitFor(t, "an open called from "+fn+" to wait", func() bool { return openWaits(fn) > 0 })
}

// A file to read that is a FIFO with no writer (a process substitution
// whose process hangs, a hung network share) holds apply in the open,
// where no signal reached it: the first SIGINT or SIGTERM now ends the
// wait, with the interruption's exit code and nothing sent.
func TestSignalEndsABlockedOpen(t *testing.T) {
	for _, tc := range []struct {
		name, flag, fn string
		sig            syscall.Signal
	}{
		{"-f, SIGINT", "-f", "cmdutil.ReadFileOrStdin", syscall.SIGINT},
		{"-f, SIGTERM", "-f", "cmdutil.ReadFileOrStdin", syscall.SIGTERM},
		{"--plan, SIGINT", "--plan", "engine.ReadSavedPlan", syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := wbstest.Start(t)
			path := fifo(t, t.TempDir(), "input.csv")
			done := make(chan cmdtest.Result, 1)
			go func() {
				done <- cmdtest.Run{}.Do(t, srv, "apply", tc.flag, path, "--rate", "0")
			}()
			waitingIn(t, tc.fn)
			syscall.Kill(os.Getpid(), tc.sig)
			var res cmdtest.Result
			select {
			case res = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("apply still waits in the open of %s 20 s after %v", tc.flag, tc.sig)
			}
			want := "interrupted by " + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig] + " while reading " + tc.flag
			if res.Code != 128+int(tc.sig) || !strings.Contains(res.ErrOut, want) || !strings.Contains(res.ErrOut, "nothing was sent") {
				t.Fatalf("exit %d, want %d saying %q: %s", res.Code, 128+int(tc.sig), want, res.ErrOut)
			}
			if n := len(srv.Journal()); n != 0 {
				t.Fatalf("%d requests were sent", n)
			}
		})
	}
}

// Files apply writes, and the state it reads, never hold it in an open
// when a FIFO stands in their place: --out, --report and --codequality are
// written beside and renamed over it, the job summary and the state are
// refused as no regular file.
func TestFIFOsInThePlaceOfFilesToWrite(t *testing.T) {
	run := func(t *testing.T, r cmdtest.Run, srv *wbstest.Server, args ...string) cmdtest.Result {
		t.Helper()
		done := make(chan cmdtest.Result, 1)
		go func() { done <- r.Do(t, srv, args...) }()
		select {
		case res := <-done:
			return res
		case <-time.After(20 * time.Second):
			t.Fatalf("apply %s still runs after 20 s", strings.Join(args, " "))
			return cmdtest.Result{}
		}
	}
	for _, flag := range []string{"--out", "--report", "--codequality"} {
		t.Run(flag, func(t *testing.T) {
			srv := wbstest.Start(t)
			dir := t.TempDir()
			file := cmdtest.WriteFile(t, dir, "elements.csv", csvFile)
			path := fifo(t, dir, "written")
			args := []string{"apply", "-f", file, "--rate", "0", flag, path}
			if flag == "--out" {
				args = append(args, "--dry-run")
			}
			if res := run(t, cmdtest.Run{}, srv, args...); res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s is not the file written: %v", flag, err)
			}
		})
	}
	t.Run("GITHUB_STEP_SUMMARY", func(t *testing.T) {
		srv := wbstest.Start(t)
		dir := t.TempDir()
		file := cmdtest.WriteFile(t, dir, "elements.csv", csvFile)
		path := fifo(t, dir, "summary")
		res := run(t, cmdtest.Run{Env: map[string]string{"GITHUB_STEP_SUMMARY": path}}, srv, "apply", "-f", file, "--rate", "0")
		if res.Code != 0 || !strings.Contains(res.ErrOut, "the job summary (GITHUB_STEP_SUMMARY) was not written") || !strings.Contains(res.ErrOut, "no regular file") {
			t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
		}
	})
	t.Run("--state", func(t *testing.T) {
		srv := wbstest.Start(t)
		dir := t.TempDir()
		file := cmdtest.WriteFile(t, dir, "elements.csv", csvFile)
		path := fifo(t, dir, "state")
		res := run(t, cmdtest.Run{}, srv, "apply", "-f", file, "--rate", "0", "--state", path)
		if res.Code == 0 || !strings.Contains(res.ErrOut, "no regular file") {
			t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
		}
		if n := len(srv.Elements()); n != 0 {
			t.Fatalf("%d elements were created", n)
		}
	})
}
