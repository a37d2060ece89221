package apply_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// planServer holds an element to update, one unchanged and one the file
// leaves out; planFile adds a new one.
func planServer(t *testing.T) (*wbstest.Server, string) {
	srv := wbstest.Start(t)
	one, same, old := "one", "same", "old \x1b[31mred"
	srv.Put(
		wbstest.Element{Code: "A-1", Description: &one, IsActive: true, BusinessOrganizations: []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}}},
		wbstest.Element{Code: "A-2", Description: &same, IsActive: true},
		wbstest.Element{Code: "OLD", Description: &old, IsActive: true},
	)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte("wbsElementCode,description,isActive,businessOrganizations\n"+
		"A-1,one changed,false,company=1000;branch=B2\nA-2,same,true,\nN-1,new one,,company=2000\n"), 0o600)
	return srv, file
}

// The plan is a reviewable diff: each changed field before → after, a
// create with what it will hold, a delete with what goes; unchanged
// elements counted, not listed; colour on a terminal only.
func TestPlanText(t *testing.T) {
	for _, tt := range []struct {
		name string
		tty  bool
		env  map[string]string
		args []string
	}{
		{"plan-pipe.golden", false, nil, nil},
		{"plan-terminal.golden", true, nil, nil},
		{"plan-no-color.golden", true, map[string]string{"NO_COLOR": "1"}, nil},
		{"plan-show-unchanged.golden", false, nil, []string{"--show-unchanged"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, file := planServer(t)
			args := append([]string{"apply", "-f", file, "--dry-run", "--prune", "--rate", "0"}, tt.args...)
			res := cmdtest.Run{TTY: tt.tty, Env: tt.env, NoColor: tt.env["NO_COLOR"] != ""}.Do(t, srv, args...)
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
			}
			golden(t, tt.name, res.Out)
			if !strings.Contains(res.ErrOut, "plan: 1 to create, 1 to update, 1 unchanged, 1 to delete") {
				t.Fatalf("summary: %s", res.ErrOut)
			}
		})
	}
}

func TestPlanJSON(t *testing.T) {
	srv, file := planServer(t)
	res := cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--dry-run", "--prune", "--rate", "0", "-o", "json")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
	var doc struct {
		FormatVersion int `json:"formatVersion"`
		Changes       []struct {
			Action string          `json:"action"`
			Line   *int            `json:"line"`
			Before json.RawMessage `json:"before"`
			After  json.RawMessage `json:"after"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(res.Out), &doc); err != nil || doc.FormatVersion != 1 || len(doc.Changes) != 3 {
		t.Fatalf("%v: %s", err, res.Out)
	}
	for _, ch := range doc.Changes {
		if ch.Action == "delete" && (ch.Line != nil || ch.After != nil || ch.Before == nil) {
			t.Errorf("a delete with a line or an after, or without a before: %+v", ch)
		}
		if ch.Action == "create" && (ch.Before != nil || ch.After == nil) {
			t.Errorf("a create with a before or without an after: %+v", ch)
		}
	}
	golden(t, "plan.json.golden", res.Out)
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0", "-o", "ndjson"); res.Code != 0 || strings.Count(res.Out, "\n") != 3 {
		t.Fatalf("ndjson: exit %d\n%s", res.Code, res.Out)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0", "--jq", ".summary.update"); res.Code != 0 || res.Out != "1\n" {
		t.Fatalf("--jq: exit %d %q", res.Code, res.Out)
	}
	if len(srv.Journal()) == 0 || writes(srv) != 0 {
		t.Fatal("a dry run wrote")
	}
}
