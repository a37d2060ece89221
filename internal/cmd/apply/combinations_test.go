package apply_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func str(s string) *string { return &s }

var company1000 = []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}}

// A saved plan of a file whose organizations column states the links as
// they are runs: only the description changed.
func TestSavedPlanOfAFileWithUnchangedLinksRuns(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "A-1", Description: str("one"), IsActive: true, BusinessOrganizations: company1000})
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description,isActive,businessOrganizations\nA-1,two,true,company=1000\n")
	plan := filepath.Join(dir, "p.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
	a1, _ := srv.Element("A-1")
	if code != 0 || *a1.Description != "two" || len(a1.BusinessOrganizations) != 1 {
		t.Fatalf("apply --plan: exit %d, A-1 %+v: %s", code, a1, errOut)
	}
}

// --prune --skip-invalid deletes what the file does not name, never what
// an invalid record names; a line no record could be read from stops
// the prune, since the code it holds is unknown.
func TestPruneNeverDeletesWhatAnInvalidRecordNames(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "A-1", IsActive: true}, wbstest.Element{Code: "A-2", Description: str("kept"), IsActive: true},
		wbstest.Element{Code: "X", IsActive: true})
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description\nA-1,one\nA-2,"+strings.Repeat("d", 101)+"\n")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--prune", "--skip-invalid", "--yes", "--rate", "0")
	if _, ok := srv.Element("A-2"); !ok {
		t.Fatalf("A-2, named by an invalid record, was deleted: exit %d: %s", code, errOut)
	}
	if _, ok := srv.Element("X"); ok || code != cmdutil.ExitPartial {
		t.Fatalf("X not pruned, or exit %d (want %d for the invalid record): %s", code, cmdutil.ExitPartial, errOut)
	}

	unread := cmdtest.WriteFile(t, dir, "g.csv", "wbsElementCode,description\nA-1,one\nA-2,too,many,cells\n")
	srv.ResetStats()
	code, _, errOut = run(t, srv, "", "apply", "-f", unread, "--prune", "--skip-invalid", "--yes", "--rate", "0")
	if code != cmdutil.ExitValidation || writes(srv) != 0 || !strings.Contains(errOut, "line 3: no code could be read") {
		t.Fatalf("exit %d, %d writes: %s", code, writes(srv), errOut)
	}
	if _, ok := srv.Element("A-2"); !ok {
		t.Fatal("A-2 deleted")
	}
}

// Writing --out or --state leaves the folder's mode as it was (a shared
// 1777 folder keeps its sticky bit) and makes the file 0600.
func TestPlanAndStateLeaveTheFolderAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("folder modes are Unix's")
	}
	srv := wbstest.Start(t)
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", csvFile)
	plan, state, report := filepath.Join(shared, "p.plan"), filepath.Join(shared, "s.state"), filepath.Join(shared, "r.ndjson")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--report", report, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	fi, _ := os.Stat(shared)
	if fi.Mode() != os.ModeDir|os.ModeSticky|0o777 {
		t.Fatalf("the folder became %v", fi.Mode())
	}
	for _, p := range []string{plan, state, report} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want 0600", p, fi.Mode(), err)
		}
	}
}

// A file to write that is the input, by its name or another, is refused
// before anything is read or sent, and the input is left as it was.
func TestOutputThatIsTheInputIsRefused(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", csvFile)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(file, link); err != nil {
		t.Skip("no symbolic links here")
	}
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, file)
	for _, args := range [][]string{
		{"-f", file, "--dry-run", "--out", file},
		{"-f", file, "--dry-run", "--out", link},
		{"-f", rel, "--dry-run", "--out", file},
		{"-f", file, "--state", link},
		{"-f", file, "--report", file},
		{"-f", file, "--state", filepath.Join(dir, "s"), "--report", filepath.Join(dir, "s")},
		{"-f", link, "--dry-run", "--codequality", file},
		{"-f", file, "--report", filepath.Join(dir, "r"), "--codequality", filepath.Join(dir, "r")},
	} {
		code, _, errOut := run(t, srv, "", append([]string{"apply", "--rate", "0"}, args...)...)
		if b, _ := os.ReadFile(file); code != cmdutil.ExitUsage || string(b) != csvFile || len(srv.Journal()) != 0 {
			t.Errorf("%v: exit %d, %d requests, input intact %v: %s", args, code, len(srv.Journal()), string(b) == csvFile, errOut)
		}
	}
}

// A dry run as a table or CSV shows a row a change.
func TestDryRunAsTableAndCSV(t *testing.T) {
	srv, file := planServer(t)
	code, out, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "-o", "table", "--prune", "--rate", "0")
	if code != 0 || !strings.Contains(out, "A-1") || !strings.Contains(out, "N-1") || !strings.Contains(out, "OLD") || !strings.Contains(out, "update") {
		t.Fatalf("table: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, srv, "", "apply", "-f", file, "--dry-run", "-o", "csv", "--rate", "0")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[0] != "ACTION,CODE,LINE,CHANGES" || !strings.HasPrefix(lines[1], "update,A-1,2,") {
		t.Fatalf("csv: exit %d\n%s", code, out)
	}
}

// With --state, an element the list shows changed since is read again,
// links too: the links someone added are removed, as the file says.
func TestStateRereadsTheLinksOfAnElementChangedOutside(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description,isActive,businessOrganizations\nA-1,one,true,company=1000\n")
	state := filepath.Join(dir, "s.state")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	srv.Put(wbstest.Element{Code: "A-1", Description: str("someone's"), IsActive: true,
		BusinessOrganizations: append(company1000[:1:1], wbstest.BusinessOrganization{Code: "B9", EntityType: "branch"})})
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	a1, _ := srv.Element("A-1")
	if *a1.Description != "one" || len(a1.BusinessOrganizations) != 1 {
		t.Fatalf("A-1 %+v, want the file's description and its one link", a1)
	}
}

// A saved plan edited by hand is refused with exit 2 and nothing sent:
// a record that does not give its after, an update turned into a delete,
// a step given twice.
func TestEditedSavedPlanIsRefused(t *testing.T) {
	srv, file := planServer(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", plain, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pruned := filepath.Join(dir, "pruned.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--prune", "--out", pruned, "--rate", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	edit := func(path string, change func(steps []map[string]any) []map[string]any) string {
		var doc map[string]any
		b, _ := os.ReadFile(path)
		json.Unmarshal(b, &doc)
		var steps []map[string]any
		for _, s := range doc["steps"].([]any) {
			steps = append(steps, s.(map[string]any))
		}
		doc["steps"] = change(steps)
		out, _ := json.Marshal(doc)
		edited := filepath.Join(t.TempDir(), "edited.plan")
		os.WriteFile(edited, out, 0o600)
		return edited
	}
	step := func(steps []map[string]any, code string) map[string]any {
		for _, s := range steps {
			if s["wbsElementCode"] == code {
				return s
			}
		}
		t.Fatalf("no step of %s", code)
		return nil
	}
	for name, plan := range map[string]string{
		"record edited": edit(plain, func(s []map[string]any) []map[string]any {
			step(s, "A-1")["record"].(map[string]any)["description"] = "not what was reviewed"
			return s
		}),
		"after edited": edit(plain, func(s []map[string]any) []map[string]any {
			step(s, "N-1")["after"].(map[string]any)["isActive"] = false
			return s
		}),
		"update made a delete": edit(plain, func(s []map[string]any) []map[string]any {
			a1 := step(s, "A-1")
			a1["action"] = "delete"
			delete(a1, "after")
			delete(a1, "record")
			delete(a1, "fields")
			delete(a1, "addOrganizations")
			delete(a1, "removeOrganizations")
			return s
		}),
		"create made an update": edit(plain, func(s []map[string]any) []map[string]any {
			step(s, "N-1")["action"] = "update"
			return s
		}),
		"step twice": edit(plain, func(s []map[string]any) []map[string]any { return append(s, step(s, "N-1")) }),
		"links edited": edit(plain, func(s []map[string]any) []map[string]any {
			step(s, "A-1")["addOrganizations"] = []any{map[string]any{"code": "EVIL", "entityType": "company"}}
			return s
		}),
		"fields edited": edit(plain, func(s []map[string]any) []map[string]any {
			step(s, "A-1")["fields"] = []any{"isActive"}
			return s
		}),
		"fields out of order": edit(plain, func(s []map[string]any) []map[string]any {
			a1 := step(s, "A-1")
			fields := a1["fields"].([]any)
			a1["fields"] = append([]any{"businessOrganizations"}, fields...)
			return s
		}),
		"prune unset": edit(pruned, func(s []map[string]any) []map[string]any { return s }),
	} {
		if name == "prune unset" {
			b, _ := os.ReadFile(plan)
			os.WriteFile(plan, []byte(strings.Replace(string(b), `"prune":true`, `"prune":false`, 1)), 0o600)
		}
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
		if code != cmdutil.ExitUsage || len(srv.Journal()) != 0 && writes(srv) != 0 || !strings.Contains(errOut, "nothing was sent") {
			t.Errorf("%s: exit %d, %d writes: %s", name, code, writes(srv), errOut)
		}
	}
	// The unedited plans run, and --plan --dry-run shows the same diff as
	// the dry run that made it.
	_, made, _ := run(t, srv, "", "apply", "-f", file, "--dry-run", "--prune", "--rate", "0")
	code, shown, errOut := run(t, srv, "", "apply", "--plan", pruned, "--dry-run", "--rate", "0")
	if code != 0 || shown != made || writes(srv) != 0 {
		t.Fatalf("--plan --dry-run: exit %d\n%s\nwant\n%s\n%s", code, shown, made, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "--plan", pruned, "--rate", "0"); code != 0 {
		t.Fatalf("the plan as saved: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "--plan", filepath.Join(dir, "nosuch.plan"), "--rate", "0"); code != cmdutil.ExitUsage {
		t.Fatalf("a plan that is not there: exit %d: %s", code, errOut)
	}
}

// A create answered "exists" is settled by reading the element back:
// created meanwhile by a late request or another job, it is brought to
// the record; a refusal of an element that is absent stays a failure.
func TestCreateAnsweredExistsIsSettled(t *testing.T) {
	srv := wbstest.New()
	cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements" {
			// Another job creates the element just before this one.
			if _, ok := srv.Element("P-1"); !ok {
				srv.Put(wbstest.Element{Code: "P-1", Description: str("another job's"), IsActive: true})
			}
		}
		return false
	})
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", csvFile)
	report := filepath.Join(t.TempDir(), "r.ndjson")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--report", report, "--rate", "0", "--concurrency", "1")
	p1, _ := srv.Element("P-1")
	if code != 0 || *p1.Description != "Site preparation" || len(p1.BusinessOrganizations) != 2 {
		t.Fatalf("exit %d, P-1 %+v: %s", code, p1, errOut)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "found: it exists") {
		t.Fatalf("the report does not say how P-1 was settled:\n%s", b)
	}

	refusing := brokenCreates(t, false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"refused"}`))
	})
	code, _, errOut = run(t, refusing, "", "apply", "-f", file, "--rate", "0")
	if code != cmdutil.ExitPartial || !strings.Contains(errOut, "refused") || len(refusing.Elements()) != 0 {
		t.Fatalf("a refused create of an absent element: exit %d: %s", code, errOut)
	}
}

// apply's failure lines and problems reach the terminal escaped.
func TestApplyFailureLinesAreEscaped(t *testing.T) {
	hostile := "x\x1b]0;owned\x07y\x1b[2Jz\u202eq"
	b, _ := json.Marshal(hostile)
	srv := brokenCreates(t, false, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"title":` + string(b) + `,"status":400,"detail":` + string(b) + `}`))
	})
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", "wbsElementCode,description\nP-1,one\nP\u202e2,"+strings.Repeat("d", 101)+"\n")
	code, _, errOut := runMode(t, srv, true, "", "apply", "-f", file, "--skip-invalid", "--rate", "0")
	if code != cmdutil.ExitPartial || strings.ContainsAny(errOut, "\x1b\x07\u202e") || !strings.Contains(errOut, "create failed: x\\x1b]0;owned") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
}

// --prune --skip-invalid keeps an element that a record which could not
// be read names, when that record shares its line with valid ones
// (minified JSON, a YAML flow sequence, NDJSON is one a line anyway);
// the valid records of that line are applied, not left out. A record
// whose code is no string stops the prune.
func TestPruneKeepsTheCodeOfARecordOnAnotherRecordsLine(t *testing.T) {
	files := map[string]string{
		"min.json": `[{"wbsElementCode":"A","descripton":"typo"},{"wbsElementCode":"B","description":"keep"},` + "\n" +
			`{"wbsElementCode":"C","description":"keep"}]`,
		"flow.yaml": "[{wbsElementCode: A, descripton: typo}, {wbsElementCode: B, description: keep},\n {wbsElementCode: C, description: keep}]\n",
		"wrapped.json": `{"$schema":"https://example.com/s.json","wbsElements":[{"wbsElementCode":"A","isActive":"yes"},` +
			`{"wbsElementCode":"B","description":"keep"},{"wbsElementCode":"C","description":"keep"}]}`,
		"case.json": `[{"WbsElementCode":"A"},{"wbsElementCode":"B","description":"keep"},{"wbsElementCode":"C","description":"keep"}]`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			srv := wbstest.Start(t)
			srv.Put(wbstest.Element{Code: "A", Description: str("old"), IsActive: true}, wbstest.Element{Code: "B", IsActive: true},
				wbstest.Element{Code: "X", IsActive: true})
			file := cmdtest.WriteFile(t, t.TempDir(), name, content)
			code, _, errOut := run(t, srv, "", "apply", "-f", file, "--prune", "--skip-invalid", "--yes", "--rate", "0")
			a, aKept := srv.Element("A")
			b, _ := srv.Element("B")
			c, _ := srv.Element("C")
			_, xKept := srv.Element("X")
			if !aKept || *a.Description != "old" {
				t.Fatalf("A, named by a record that could not be read, was deleted or changed (exit %d): %s", code, errOut)
			}
			if b.Description == nil || *b.Description != "keep" || c.Description == nil || *c.Description != "keep" {
				t.Fatalf("B and C, valid on the line of A, were left out: B %+v, C %+v: %s", b, c, errOut)
			}
			if xKept || code != cmdutil.ExitPartial {
				t.Fatalf("X kept %v, exit %d (want %d): %s", xKept, code, cmdutil.ExitPartial, errOut)
			}
		})
	}

	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "5", IsActive: true}, wbstest.Element{Code: "X", IsActive: true})
	file := cmdtest.WriteFile(t, t.TempDir(), "f.json", `[{"wbsElementCode":5},{"wbsElementCode":"B"}]`)
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--prune", "--skip-invalid", "--yes", "--rate", "0")
	if code != cmdutil.ExitValidation || writes(srv) != 0 || !strings.Contains(errOut, "line 1: no code could be read") {
		t.Fatalf("a code that is no string: exit %d, %d writes: %s", code, writes(srv), errOut)
	}
}

// --skip-invalid leaves out every row of a code written one row per
// organization when one of its rows is invalid: applying the others
// alone would remove the links of the row left out.
func TestSkipInvalidLeavesOutEveryRowOfACode(t *testing.T) {
	links := []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "P1", EntityType: "plant"}}
	for _, content := range []string{
		"wbsElementCode,description,businessOrganizations\nM-1,multi,company=1000\nM-1,multi ,plant=P1\nN-1,new,company=1000\n",
		"wbsElementCode,description,businessOrganizations\nM-1,multi,company=1000\nN-1,new,company=1000\nM-1,multi,plant=\n",
		"businessOrganizations;wbsElementCode;isActive\r\ncompany=1000;M-1;true\r\nplant=P1;M-1;maybe\r\ncompany=1000;N-1;\r\n",
	} {
		srv := wbstest.Start(t)
		srv.Put(wbstest.Element{Code: "M-1", Description: str("multi"), IsActive: true, BusinessOrganizations: links})
		file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", content)
		code, _, errOut := run(t, srv, "", "apply", "-f", file, "--skip-invalid", "--rate", "0")
		m, _ := srv.Element("M-1")
		if code != cmdutil.ExitPartial || len(m.BusinessOrganizations) != 2 || *m.Description != "multi" {
			t.Fatalf("%q: exit %d, M-1 %+v: %s", content, code, m, errOut)
		}
		if _, ok := srv.Element("N-1"); !ok {
			t.Fatalf("%q: N-1, valid, was not created: %s", content, errOut)
		}
		// Said as the report says it: left out, not failed.
		if !strings.Contains(errOut, " left out as invalid\n") || strings.Contains(errOut, "failed") {
			t.Fatalf("%q: stderr %s", content, errOut)
		}
	}
}

// A symbolic link planted where apply creates a file, in a folder others
// can write, never has apply create or change a file where it points: the
// state's lock is refused, naming it; the state, the saved plan and the
// report replace the link with a file of their own.
func TestSymlinksWhereApplyWritesAreNeverFollowed(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,isActive\nA-1,true\n")
	victim := filepath.Join(dir, "victim")
	state := filepath.Join(dir, "wbs.state")
	plant := func(at string) {
		t.Helper()
		os.Remove(at)
		os.Remove(victim)
		if err := os.Symlink(victim, at); err != nil {
			t.Fatal(err)
		}
	}
	untouched := func(what string) {
		t.Helper()
		if _, err := os.Lstat(victim); err == nil {
			t.Errorf("%s: a file was created where the link points", what)
		}
	}

	plant(state + ".lock")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0")
	if code == 0 || !strings.Contains(errOut, state+".lock is a symbolic link") || len(srv.Journal()) != 0 {
		t.Errorf("a planted STATE.lock: exit %d, %d writes: %s", code, len(srv.Journal()), errOut)
	}
	untouched("STATE.lock")
	os.Remove(state + ".lock")

	for _, tc := range []struct {
		name string
		at   string
		args []string
	}{
		{"the state", state, []string{"apply", "-f", file, "--state", state, "--rate", "0"}},
		{"a saved plan", filepath.Join(dir, "p.plan"), []string{"apply", "-f", file, "--dry-run", "--out", filepath.Join(dir, "p.plan"), "--rate", "0"}},
		{"the report", filepath.Join(dir, "r.ndjson"), []string{"apply", "-f", file, "--report", filepath.Join(dir, "r.ndjson"), "--rate", "0"}},
	} {
		plant(tc.at)
		if code, _, errOut := run(t, srv, "", tc.args...); code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		}
		untouched(tc.name)
		if fi, err := os.Lstat(tc.at); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want a file of its own", tc.name, fi, err)
		}
	}
}

// The messages of a run say each thing once, in agreement with what they
// count: one problem, one read, one token exchange.
func TestMessagesCountInTheirOwnNumber(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	bad := cmdtest.WriteFile(t, dir, "bad.csv", "wbsElementCode,isActive\nA-1,maybe\n")
	code, _, errOut := run(t, srv, "", "apply", "-f", bad, "--rate", "0")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, bad+": 1 problem, nothing was sent") {
		t.Fatalf("one problem: exit %d: %s", code, errOut)
	}
	good := cmdtest.WriteFile(t, dir, "good.csv", "wbsElementCode,isActive\nA-1,true\n")
	code, _, errOut = run(t, srv, "", "apply", "-f", good, "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "(3 requests: 1 read, 1 write, 1 token exchange; 0 throttled)") {
		t.Fatalf("one of each: exit %d: %s", code, errOut)
	}
}

// waitFor polls cond, failing the test after a long guard: the guard only
// catches a hang, it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}
