package apply_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A saved plan made through a map records the map's digest beside the
// file's, and --plan refuses, sending nothing, when either reads
// otherwise than when the plan was made; where neither is there to read
// (a job with the plan alone), it carries out the reviewed steps.
func TestSavedPlanHoldsItsFileAndMap(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, export, wbsmap string)
		// code is the exit of apply --plan; stale names the flag whose
		// file changed.
		code  int
		stale string
	}{
		{name: "as planned", change: func(*testing.T, string, string) {}},
		{name: "export changed", change: func(t *testing.T, export, _ string) { appendTo(t, export, "\r\n") },
			code: cmdutil.ExitPlanStale, stale: "-f"},
		{name: "map changed", change: func(t *testing.T, _, wbsmap string) { appendTo(t, wbsmap, "# edited\n") },
			code: cmdutil.ExitPlanStale, stale: "--map"},
		{name: "neither there", change: func(t *testing.T, export, wbsmap string) {
			os.Remove(export)
			os.Remove(wbsmap)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := wbstest.Start(t)
			dir := t.TempDir()
			export, wbsmap := filepath.Join(dir, "export.csv"), filepath.Join(dir, "dynamics.wbsmap.yaml")
			copyFile(t, erpExample("dynamics-export.csv"), export)
			copyFile(t, erpExample("dynamics.wbsmap.yaml"), wbsmap)
			plan := filepath.Join(dir, "wbs.plan")
			if code, _, errOut := run(t, srv, "", "apply", "-f", export, "--map", wbsmap, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
				t.Fatalf("planning: exit %d: %s", code, errOut)
			}
			var saved struct{ File, FileDigest, Map, MapDigest string }
			b, _ := os.ReadFile(plan)
			if err := json.Unmarshal(b, &saved); err != nil || saved.File != export || saved.Map != wbsmap ||
				!strings.HasPrefix(saved.FileDigest, "sha256:") || !strings.HasPrefix(saved.MapDigest, "sha256:") {
				t.Fatalf("the plan records %+v (%v)", saved, err)
			}
			tt.change(t, export, wbsmap)

			code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--dry-run")
			if code != 0 || (tt.stale != "") != strings.Contains(errOut, "carrying the plan out is refused") {
				t.Fatalf("shown: exit %d: %s", code, errOut)
			}
			srv.ResetStats()
			code, _, errOut = run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
			if code != tt.code {
				t.Fatalf("carried out: exit %d, want %d: %s", code, tt.code, errOut)
			}
			if tt.stale == "" {
				if len(srv.Elements()) == 0 {
					t.Fatal("the plan was carried out and made nothing")
				}
				return
			}
			if !strings.Contains(errOut, "the plan's "+tt.stale+" ") || !strings.Contains(errOut, "nothing was sent") {
				t.Fatalf("the refusal does not name %s: %s", tt.stale, errOut)
			}
			st := srv.Stats()
			n := st.TokenExchanges
			for _, c := range st.Requests {
				n += c
			}
			if n != 0 || len(srv.Elements()) != 0 {
				t.Fatalf("refused, yet %d requests were made and %d elements are there", n, len(srv.Elements()))
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}
