//go:build linux

package auth_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// screen is what a terminal showed.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
	new chan struct{}
}

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(b)
	select {
	case s.new <- struct{}{}:
	default:
	}
	return len(b), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows text.
func (s *screen) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.String(), text) {
		select {
		case <-s.new:
		case <-deadline:
			t.Fatalf("the terminal never showed %q; it shows %q", text, s.String())
		}
	}
}

// The secret typed at the hidden prompt of `auth login` is not echoed by
// the terminal, and goes to the keyring.
func TestLoginPromptDoesNotEchoTheSecret(t *testing.T) {
	srv := wbstest.Start(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	shown := &screen{new: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()

	e := newEnv(t)
	io := &iostreams.IOStreams{In: tty, Out: &bytes.Buffer{}, ErrOut: tty, StdinTTY: true, StderrTTY: true}
	f := cmdutil.New(io)
	f.Getenv = func(k string) string { return e.vars[k] }
	f.Keyring = e.keyring
	done := make(chan int, 1)
	go func() {
		done <- root.Run(context.Background(), f, []string{"auth", "login", "--base-url", srv.URL, "--client-id", srv.ClientID})
	}()
	shown.waitFor(t, "Client secret: ")
	// The prompt is printed just before echo is turned off: type only
	// once the terminal stopped echoing, as a person would a moment later.
	deadline := time.Now().Add(10 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the terminal still echoes at the secret prompt")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := ptmx.Write([]byte(srv.ClientSecret + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("login: exit %d; the terminal shows %q", code, shown.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("login hung")
	}
	shown.waitFor(t, "logged in")
	if strings.Contains(shown.String(), srv.ClientSecret) {
		t.Fatalf("the terminal showed the secret: %q", shown.String())
	}
	if e.keyring.m[credentials.Account(srv.ClientID, srv.URL)] != srv.ClientSecret {
		t.Fatal("the secret typed at the prompt is not in the keyring")
	}
}
