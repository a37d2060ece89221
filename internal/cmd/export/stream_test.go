package export_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// export writes the elements in the list's order while it reads their
// links --concurrency at a time, never more.
func TestExportStreamsInOrder(t *testing.T) {
	inner := wbstest.New()
	for i := range 60 {
		inner.Put(wbstest.Element{Code: fmt.Sprintf("X-%03d", i), IsActive: true,
			BusinessOrganizations: []wbstest.BusinessOrganization{{Code: fmt.Sprint(i), EntityType: "company"}}})
	}
	var mu sync.Mutex
	var inFlight, most atomic.Int32
	srv := cmdtest.Behind(t, inner, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/business-organizations") {
			return false
		}
		n := inFlight.Add(1)
		mu.Lock()
		if n > most.Load() {
			most.Store(n)
		}
		mu.Unlock()
		time.Sleep(time.Millisecond) // for the reads to overlap
		inner.ServeHTTP(w, r)
		inFlight.Add(-1)
		return true
	})
	code, out, errOut := run(t, srv, "", "export", "--format", "csv", "--concurrency", "3", "--page-size", "7")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 61 {
		t.Fatalf("exit %d, %d lines: %s", code, len(lines), errOut)
	}
	for i, l := range lines[1:] {
		if want := fmt.Sprintf("X-%03d,,true,company=%d", i, i); l != want {
			t.Fatalf("line %d: %q, want %q", i+2, l, want)
		}
	}
	if m := most.Load(); m > 3 || m < 2 {
		t.Errorf("%d reads of links in flight at most, want 3 (and more than one)", m)
	}
}

// A read that fails ends the export: the elements written before it are
// whole, the file is ended, and the error says where it stopped.
func TestExportStopsWhole(t *testing.T) {
	srv := wbstest.Start(t)
	for i := range 30 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("X-%03d", i), IsActive: true})
	}
	// The links of X-020 cannot be read.
	srv2 := cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/wbs-elements/X-020/business-organizations" {
			return false
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"title":"Forbidden","status":403}`))
		return true
	})
	for _, format := range []string{"csv", "json", "ndjson", "yaml"} {
		code, out, errOut := run(t, srv2, "", "export", "--format", format, "--concurrency", "4")
		if code != cmdutil.ExitAuth || !strings.Contains(errOut, "export stopped after 20 elements, the last written") || !strings.Contains(errOut, "X-019") {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		// What was written reads back as the first 20 elements.
		back := cmdtest.WriteFile(t, t.TempDir(), "back."+format, out)
		srv2.ResetStats()
		code, _, errOut = run(t, srv2, "", "apply", "-f", back, "--dry-run", "--rate", "0", "-o", "json")
		if code != 0 || !strings.Contains(errOut, "0 to create, 0 to update, 20 unchanged") {
			t.Fatalf("%s: the partial export does not read back: exit %d: %s\n%s", format, code, errOut, out)
		}
	}
}

// A format apply cannot read is refused in the words of the flag the
// user typed; -o, which meant --format before it, still does for one
// release, with a warning.
func TestExportFormatFlags(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "E-1"})
	code, out, errOut := run(t, srv, "", "export", "-o", "table")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, `-o "table": export writes a file apply reads`) || strings.Contains(errOut, "warning") {
		t.Fatalf("export -o table: exit %d: %s", code, errOut)
	}
	code, out, errOut = run(t, srv, "", "export", "--format", "table")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, `--format "table": export writes a file apply reads`) {
		t.Fatalf("export --format table: exit %d: %s", code, errOut)
	}
	code, old, errOut := run(t, srv, "", "export", "-o", "ndjson")
	_, now, _ := run(t, srv, "", "export", "--format", "ndjson")
	if code != 0 || old != now || !strings.HasPrefix(now, `{"wbsElementCode":"E-1"`) || !strings.Contains(errOut, "warning: export -o ndjson is deprecated") {
		t.Fatalf("export -o ndjson: exit %d, %q (--format: %q): %s", code, old, now, errOut)
	}
	if code, _, errOut := run(t, srv, "", "export", "-o", "json", "--bom"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "not of -o json") {
		t.Fatalf("export -o json --bom: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, srv, "", "export", "--format", "json", "-o", "yaml")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "give --format alone") {
		t.Fatalf("export --format json -o yaml: exit %d: %s", code, errOut)
	}
}

func run(t *testing.T, srv *wbstest.Server, stdin string, args ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run{Stdin: stdin}.Do(t, srv, args...)
	return r.Code, r.Out, r.ErrOut
}
