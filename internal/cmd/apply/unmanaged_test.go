package apply_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// A file cut short is never planned as "No changes": without --prune the
// plan counts and lists the elements on the platform it no longer names;
// with --prune past --max-deletes it is refused with exit 2, and the plan
// is still shown whole, every delete named in its Markdown.
func TestACutFileIsNeverNoChanges(t *testing.T) {
	const n, kept = 1500, 300
	srv, dir, whole, state := loaded(t, n)
	text, _ := os.ReadFile(whole)
	lines := strings.SplitAfter(string(text), "\n")
	cut := filepath.Join(dir, "cut.csv")
	os.WriteFile(cut, []byte(strings.Join(lines[:kept+1], "")), 0o600)

	code, out, errOut := run(t, srv, "", "apply", "-f", cut, "--state", state, "--dry-run", "--detailed-exitcode", "-o", "markdown", "--rate", "0")
	unmanaged := fmt.Sprintf("%d elements on the platform are not in the file; --prune would delete them", n-kept)
	if code != 0 || strings.Contains(out, "No changes: the platform holds what the file says") ||
		!strings.Contains(out, unmanaged) || !strings.Contains(errOut, unmanaged) {
		t.Fatalf("the cut file's plan: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, srv, "", "apply", "-f", cut, "--state", state, "--dry-run", "--rate", "0")
	if code != 0 || strings.Count(out, "? not in the file S-") != n-kept {
		t.Fatalf("the text plan lists %d of the %d elements not in the file", strings.Count(out, "? not in the file S-"), n-kept)
	}

	srv.ResetStats()
	saved := filepath.Join(dir, "cut.plan")
	code, out, errOut = run(t, srv, "", "apply", "-f", cut, "--state", state, "--prune", "--max-deletes", "10", "--dry-run", "--detailed-exitcode", "--out", saved, "-o", "markdown", "--rate", "0")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--max-deletes allows 10") || writes(srv) != 0 {
		t.Fatalf("--prune past the bound: exit %d (want %d), %d writes: %s", code, cmdutil.ExitUsage, writes(srv), errOut)
	}
	if len(out) > 65_536 || !strings.Contains(out, fmt.Sprintf("wbsctl plan: %d to delete", n-kept)) {
		t.Fatalf("the refused plan's Markdown (%d bytes):\n%.2000s", len(out), out)
	}
	for i := kept; i < n; i++ {
		if code := fmt.Sprintf("`S-%05d`", i); !strings.Contains(out, code) {
			t.Fatalf("the Markdown plan leaves out the delete of %s", code)
		}
	}
	if _, err := os.Stat(saved); err != nil {
		t.Fatalf("the refused plan was not saved for review: %v", err)
	}
}

// A delete's row shows the links the state recorded of the element.
func TestADeleteShowsItsLinks(t *testing.T) {
	srv, dir, whole, state := loaded(t, 3)
	text, _ := os.ReadFile(whole)
	cut := filepath.Join(dir, "cut.csv")
	os.WriteFile(cut, []byte(strings.Join(strings.SplitAfter(string(text), "\n")[:3], "")), 0o600)
	code, out, errOut := run(t, srv, "", "apply", "-f", cut, "--state", state, "--prune", "--dry-run", "-o", "markdown", "--rate", "0")
	if code != 0 || !strings.Contains(out, "| ➖ delete | `S-00002` |") || !strings.Contains(out, "organizations `-company=1000 -branch=B1`") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
}
