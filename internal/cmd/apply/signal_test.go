//go:build unix

package apply_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// endlessList is a reference server whose element list never ends: every
// page is full and new, with an opaque next and no hits.
func endlessList(t *testing.T, lists *atomic.Int64) *wbstest.Server {
	return cmdtest.Behind(t, wbstest.New(), func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/wbs-elements" {
			return false
		}
		n := lists.Add(1)
		var items []string
		for i := range 100 {
			items = append(items, fmt.Sprintf(`{"wbsElementCode":"X-%d-%d","isActive":true}`, n, i))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":[%s],"hits":null,"next":"more-%d"}`, strings.Join(items, ","), n)
		return true
	})
}

// result waits for the result of a run started in the background.
func result(t *testing.T, done <-chan cmdtest.Result) cmdtest.Result {
	t.Helper()
	var res cmdtest.Result
	waitFor(t, "apply to stop", func() bool {
		select {
		case res = <-done:
			return true
		default:
			return false
		}
	})
	return res
}

// SIGINT or SIGTERM while apply plans against a list that never ends
// stops the plan at once, sends nothing, and exits 128 + the signal's
// number: 130 and 143.
func TestSignalStopsThePlan(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var lists atomic.Int64
			srv := endlessList(t, &lists)
			file := filepath.Join(t.TempDir(), "elements.csv")
			os.WriteFile(file, []byte(csvFile), 0o600)
			done := make(chan cmdtest.Result, 1)
			go func() {
				done <- cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0")
			}()
			waitFor(t, "the plan to read", func() bool { return lists.Load() >= 3 })
			syscall.Kill(os.Getpid(), sig)
			res := result(t, done)
			if res.Code != 128+int(sig) || !strings.Contains(res.ErrOut, "interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]+" while planning: nothing was sent") {
				t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
			}
			if n := lists.Load(); n > 1000 {
				t.Fatalf("%d pages read", n)
			}
		})
	}
}

// A list that never ends stops at --max-pages with an error naming it.
func TestEndlessListStopsAtMaxPages(t *testing.T) {
	var lists atomic.Int64
	srv := endlessList(t, &lists)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)
	res := cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0", "--max-pages", "20")
	if res.Code == 0 || !strings.Contains(res.ErrOut, "--max-pages") || lists.Load() != 20 {
		t.Fatalf("exit %d after %d pages: %s", res.Code, lists.Load(), res.ErrOut)
	}
	res = cmdtest.Run{}.Do(t, srv, "element", "list", "--all", "--max-pages", "5", "-o", "ndjson")
	if res.Code == 0 || strings.Count(res.Out, "\n") != 500 {
		t.Fatalf("element list --all: exit %d, %d lines", res.Code, strings.Count(res.Out, "\n"))
	}
}

// During the writes, a first signal lets the requests in flight finish and
// starts no new ones; a second stops at once. Both exit 130.
func TestSecondSignalStopsTheWritesAtOnce(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultLatency, Latency: 2 * time.Second}))
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)
	done := make(chan cmdtest.Result, 1)
	go func() { done <- cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--rate", "0", "--concurrency", "1") }()
	waitFor(t, "a create in flight", func() bool { return srv.Stats().Requests[wbstest.OpCreate] == 1 })
	interrupt(t)
	select {
	case res := <-done:
		t.Fatalf("the first signal ended a create in flight: exit %d: %s", res.Code, res.ErrOut)
	case <-time.After(200 * time.Millisecond):
	}
	interrupt(t)
	res := result(t, done)
	if res.Code != cmdutil.ExitInterrupted || srv.Stats().Requests[wbstest.OpCreate] != 1 {
		t.Fatalf("exit %d, %d creates: %s", res.Code, srv.Stats().Requests[wbstest.OpCreate], res.ErrOut)
	}
}

// A signal that comes after the last change leaves nothing to do: the
// run ends as if it had not come, and says so.
func TestSignalAfterTheLastChangeLeavesNothingToDo(t *testing.T) {
	srv := wbstest.New()
	cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements" {
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			// Latency, so that apply reads the signal before this,
			// the last change, is answered.
			time.Sleep(200 * time.Millisecond)
		}
		return false
	})
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", "wbsElementCode\nONLY\n")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0")
	if _, ok := srv.Element("ONLY"); code != 0 || !ok || !strings.Contains(errOut, "nothing is left to do") {
		t.Fatalf("exit %d, created %v: %s", code, ok, errOut)
	}
}
