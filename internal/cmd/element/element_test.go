package element_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

type result = cmdtest.Result

// run runs wbsctl in-process against srv with credentials in the
// environment, as a CI job would.
func run(t *testing.T, srv *wbstest.Server, tty bool, stdin string, args ...string) result {
	t.Helper()
	return cmdtest.Run{TTY: tty, Stdin: stdin}.Do(t, srv, args...)
}

func TestElementLifecycle(t *testing.T) {
	srv := wbstest.Start(t)
	r := run(t, srv, true, "", "element", "create", "P-1", "--description", "Site prep", "--org", "company=1000", "--org", `cost\=center=CC1`)
	if r.Code != 0 || !strings.Contains(r.ErrOut, `created "P-1"`) {
		t.Fatalf("create: %+v", r)
	}
	el, _ := srv.Element("P-1")
	if len(el.BusinessOrganizations) != 2 || el.BusinessOrganizations[1] != (wbstest.BusinessOrganization{Code: "CC1", EntityType: "cost=center"}) {
		t.Fatalf("organizations: %+v", el.BusinessOrganizations)
	}
	r = run(t, srv, false, `{"wbsElementCode":"P 2=x;y","isActive":false}`, "element", "create", "--from-file", "-")
	if r.Code != 0 {
		t.Fatalf("create from stdin: %+v", r)
	}
	r = run(t, srv, false, "", "element", "update", "P-1", "--clear-description", "--inactive")
	if el, _ := srv.Element("P-1"); r.Code != 0 || el.Description != nil || el.IsActive {
		t.Fatalf("update: %+v %+v", r, el)
	}
	r = run(t, srv, false, "", "element", "org", "remove", "P-1", "company=1000")
	if el, _ := srv.Element("P-1"); r.Code != 0 || len(el.BusinessOrganizations) != 1 {
		t.Fatalf("org remove: %+v %+v", r, el)
	}
	r = run(t, srv, false, "", "element", "org", "list", "P-1", "--all")
	if r.Code != 0 || r.Out != "TYPE\tCODE\ncost=center\tCC1\n" {
		t.Fatalf("org list: %q", r.Out)
	}
	r = run(t, srv, false, "", "element", "delete", "P-1", "P 2=x;y")
	if r.Code != 0 || len(srv.Elements()) != 0 {
		t.Fatalf("delete: %+v", r)
	}
}

func TestListFormatsAndModes(t *testing.T) {
	srv := wbstest.Start(t)
	d := "Site prep"
	srv.Put(wbstest.Element{Code: "A", Description: &d, IsActive: true}, wbstest.Element{Code: "B"})
	tests := []struct {
		name string
		tty  bool
		args []string
		want string
	}{
		{"pipe", false, nil, "CODE\tDESCRIPTION\tACTIVE\nA\tSite prep\ttrue\nB\t\tfalse\n"},
		{"pipe no headers", false, []string{"--no-headers"}, "A\tSite prep\ttrue\nB\t\tfalse\n"},
		{"terminal table", true, nil, " CODE  DESCRIPTION  ACTIVE \n A     Site prep    true   \n B                  false  \n"},
		{"csv", false, []string{"-o", "csv"}, "CODE,DESCRIPTION,ACTIVE\nA,Site prep,true\nB,,false\n"},
		{"ndjson", false, []string{"-o", "ndjson"}, `{"wbsElementCode":"A","description":"Site prep","isActive":true}` + "\n" + `{"wbsElementCode":"B","description":null,"isActive":false}` + "\n"},
		{"yaml", false, []string{"-o", "yaml"}, "- description: Site prep\n  isActive: true\n  wbsElementCode: A\n- description: null\n  isActive: false\n  wbsElementCode: B\n"},
		{"jq", false, []string{"--jq", ".[].wbsElementCode"}, "A\nB\n"},
		{"template", false, []string{"--template", "{{range .}}{{.wbsElementCode}};{{end}}"}, "A;B;"},
		{"all pages of one", false, []string{"--all", "--page-size", "1", "--no-headers"}, "A\tSite prep\ttrue\nB\t\tfalse\n"},
		{"page 2 of size 1", false, []string{"--page", "2", "--page-size", "1", "--no-headers"}, "B\t\tfalse\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, srv, tt.tty, "", append([]string{"element", "list"}, tt.args...)...)
			if r.Code != 0 || r.Out != tt.want {
				t.Fatalf("exit %d, out:\n%q\nwant:\n%q\nstderr: %s", r.Code, r.Out, tt.want, r.ErrOut)
			}
		})
	}
	r := run(t, srv, false, "", "element", "list", "-o", "json")
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil || len(got) != 2 || got[0]["wbsElementCode"] != "A" {
		t.Fatalf("json: %v %s", err, r.Out)
	}
}

func TestExitCodes(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "A"})
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"not found", []string{"element", "delete", "NOPE"}, cmdutil.ExitNotFound, "correlation id:"},
		{"exists", []string{"element", "create", "A"}, cmdutil.ExitExists, `hint: change it with "wbsctl element update A …"`},
		{"local validation", []string{"element", "create", strings.Repeat("x", 31)}, cmdutil.ExitValidation, "wbsElementCode: is 31 characters long (limit: 1 to 30 characters)"},
		{"partial", []string{"element", "delete", "A", "NOPE"}, cmdutil.ExitPartial, "1 of 2 failed"},
		{"usage", []string{"element", "update", "A"}, cmdutil.ExitUsage, "nothing to update"},
		{"bad org", []string{"element", "create", "Z", "--org", "company"}, cmdutil.ExitUsage, "TYPE=CODE"},
		{"bad format", []string{"element", "list", "-o", "xml"}, cmdutil.ExitUsage, `"xml" is not a format of wbsctl element list: it writes table, plain, json, yaml, csv, ndjson`},
		{"exclusive flags", []string{"element", "update", "A", "--active", "--inactive"}, cmdutil.ExitUsage, ""},
		{"plain http elsewhere", []string{"element", "list", "--base-url", "http://example.com"}, cmdutil.ExitUsage, "--insecure-http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, srv, false, "", tt.args...)
			if r.Code != tt.code || !strings.Contains(r.ErrOut, tt.err) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.Code, tt.code, r.ErrOut, tt.err)
			}
		})
	}
	bad := wbstest.Start(t)
	dir := t.TempDir()
	io, _, _, errOut := iostreams.Test()
	f := cmdutil.New(io)
	f.Getenv = func(k string) string {
		return map[string]string{"WBSCTL_BASE_URL": bad.URL, "WBSCTL_CLIENT_ID": bad.ClientID, "WBSCTL_CLIENT_SECRET": "wrong",
			"XDG_CONFIG_HOME": dir, "XDG_CACHE_HOME": dir}[k]
	}
	if code := root.Run(context.Background(), f, []string{"element", "list", "-o", "json"}); code != cmdutil.ExitAuth {
		t.Fatalf("bad secret: exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal(errOut.Bytes(), &doc); err != nil || doc["status"] != float64(401) || doc["problem"] == nil {
		t.Fatalf("error as JSON: %v %s", err, errOut.String())
	}
}

func TestDebugLogRedactsSecrets(t *testing.T) {
	srv := wbstest.Start(t)
	r := run(t, srv, false, "", "element", "list", "--debug")
	if r.Code != 0 || !strings.Contains(r.ErrOut, "http attempt") || strings.Contains(r.ErrOut, "Bearer") {
		t.Fatalf("debug log: %s", r.ErrOut)
	}
	tok, _ := srv.IssueToken(srv.ClientID)
	if strings.Contains(r.ErrOut, tok[:20]) {
		t.Fatal("a token header reached the log")
	}
}

func TestListFlagsAndHint(t *testing.T) {
	srv := wbstest.Start(t)
	for i := range 25 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i)})
	}
	for _, args := range [][]string{{"--page", "0"}, {"--page-size", "0"}, {"--page-size", "-1"}, {"--limit", "-1"}, {"--all", "--limit", "3"}} {
		if res := (cmdtest.Run{}).Do(t, srv, append([]string{"element", "list"}, args...)...); res.Code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, res.Code, cmdutil.ExitUsage)
		}
	}
	res := cmdtest.Run{}.Do(t, srv, "element", "list", "--limit", "13", "--page-size", "10", "-o", "ndjson")
	if res.Code != 0 || strings.Count(res.Out, "\n") != 13 {
		t.Fatalf("--limit 13: exit %d, %d lines", res.Code, strings.Count(res.Out, "\n"))
	}
	// One page, wherever stdout goes, says so on stderr, naming --all:
	// a script piping to wc -l is told its list is short.
	for _, tty := range []bool{true, false} {
		res = cmdtest.Run{TTY: tty}.Do(t, srv, "element", "list")
		if res.Code != 0 || !strings.Contains(res.ErrOut, "--all") || !strings.Contains(res.ErrOut, "--page 2") {
			t.Fatalf("terminal %v: no word of the pages left: %q", tty, res.ErrOut)
		}
	}
	if res := (cmdtest.Run{}).Do(t, srv, "element", "list", "--all"); res.ErrOut != "" {
		t.Fatalf("a hint after --all: %q", res.ErrOut)
	}
	if res := (cmdtest.Run{TTY: true}).Do(t, srv, "element", "list", "--page", "3"); strings.Contains(res.ErrOut, "more may follow") {
		t.Fatalf("a hint on the last page: %q", res.ErrOut)
	}
}

func TestCompletionOfOrganizationsAndFormats(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "A-1", BusinessOrganizations: []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}}},
		wbstest.Element{Code: "A-2"})
	res := cmdtest.Run{}.Do(t, srv, "__complete", "element", "org", "remove", "A-1", "company=1000", "")
	if !strings.Contains(res.Out, "branch=B1") || strings.Contains(res.Out, "company=1000") || strings.Contains(res.Out, "A-2") {
		t.Fatalf("org remove A-1 <TAB>: %q", res.Out)
	}
	res = cmdtest.Run{}.Do(t, srv, "__complete", "element", "list", "-o", "")
	if !strings.Contains(res.Out, "ndjson") || !strings.Contains(res.Out, "yaml") {
		t.Fatalf("-o <TAB>: %q", res.Out)
	}
	res = cmdtest.Run{}.Do(t, srv, "__complete", "apply", "--format", "")
	if !strings.Contains(res.Out, "csv") {
		t.Fatalf("--format <TAB>: %q", res.Out)
	}
}
