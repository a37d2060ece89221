package apply_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/unicodeprop"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"github.com/xuri/excelize/v2"
)

// Invisible is never silent (issue 50): a code with a character that
// shows as nothing never looks like one without it, wherever wbsctl
// shows it, and apply does not create one unless told to.

// cgj is U+034F COMBINING GRAPHEME JOINER: "P-1" and "P-1"+cgj look the
// same wherever it is printed raw.
const cgj = "\u034f"

// goEscape is r as wbsctl escapes it in text: \u034f, \U000e0100.
func goEscape(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// A workbook's code with U+034F is an invalid record: apply sends nothing
// and exits 5, naming the cell, the field and the code point, escaped;
// --skip-invalid leaves it out; --allow-invisible-codes applies it. GitHub
// annotations and GitLab's Code Quality report name it too.
func TestInvisibleCodeIsAnInvalidRecord(t *testing.T) {
	wb := excelize.NewFile()
	wb.SetSheetName("Sheet1", "WBS")
	wb.SetSheetRow("WBS", "A1", &[]any{"wbsElementCode", "description"})
	wb.SetSheetRow("WBS", "A2", &[]any{"P-1", "Site"})
	wb.SetSheetRow("WBS", "A3", &[]any{"P-1" + cgj, "Site"})
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "wbs.xlsx", buf.String())
	srv := wbstest.Start(t)

	report := filepath.Join(dir, "codequality.json")
	res := cmdtest.Run{Env: map[string]string{"GITHUB_ACTIONS": "true"}}.Do(t, srv, "apply", "-f", file, "--codequality", report, "--rate", "0")
	want := `WBS!A3 (code "P-1\u034f"): wbsElementCode: holds the invisible character U+034F`
	if res.Code != cmdutil.ExitValidation || !strings.Contains(res.ErrOut, want) || writes(srv) != 0 || len(srv.Elements()) != 0 {
		t.Fatalf("exit %d, %d writes: %s\nwant %s", res.Code, writes(srv), res.ErrOut, want)
	}
	if strings.Contains(res.ErrOut, cgj) {
		t.Errorf("U+034F reached stderr raw: %q", res.ErrOut)
	}
	if !strings.Contains(res.ErrOut, "::error file="+file+",line=3,title=wbsctl apply::"+want) {
		t.Errorf("no annotation of the cell's line:\n%s", res.ErrOut)
	}
	var issues []struct {
		Description string `json:"description"`
		CheckName   string `json:"check_name"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &issues); err != nil || len(issues) != 1 || issues[0].CheckName != "wbsctl/control-character" ||
		!strings.HasPrefix(issues[0].Description, want) {
		t.Errorf("Code Quality report: %v\n%s", err, b)
	}

	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--skip-invalid", "--rate", "0")
	if code != cmdutil.ExitPartial || elementsText(srv) != "P-1|Site|true|[]\n" {
		t.Fatalf("--skip-invalid: exit %d: %s\n%s", code, errOut, elementsText(srv))
	}
	code, _, errOut = run(t, srv, "", "apply", "-f", file, "--allow-invisible-codes", "--rate", "0")
	if code != 0 || elementsText(srv) != "P-1|Site|true|[]\nP-1"+cgj+"|Site|true|[]\n" {
		t.Fatalf("--allow-invisible-codes: exit %d: %s\n%s", code, errOut, elementsText(srv))
	}
	// --check is the same reading.
	if code, _, errOut = run(t, srv, "", "apply", "-f", file, "--check"); code != cmdutil.ExitValidation || !strings.Contains(errOut, want) {
		t.Fatalf("--check: exit %d: %s", code, errOut)
	}
	if code, _, errOut = run(t, srv, "", "apply", "-f", file, "--check", "--allow-invisible-codes"); code != 0 {
		t.Fatalf("--check --allow-invisible-codes: exit %d: %s", code, errOut)
	}
}

// The platform holds "P-1" and "P-1"+U+034F; a file of "P-1" prunes the
// other. Every view of the plan (the diff, a table, Markdown, the job
// summary) and the element list tell them apart; none prints U+034F or a
// mark on nothing raw.
func TestInvisibleCodeInEveryView(t *testing.T) {
	srv := wbstest.Start(t)
	site, marked := "Site", "\u0301Site"
	srv.Put(wbstest.Element{Code: "P-1", Description: &site, IsActive: true},
		wbstest.Element{Code: "P-1" + cgj, Description: &site, IsActive: true},
		wbstest.Element{Code: "P-2", Description: &marked, IsActive: true})
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description\nP-1,Site\nP-2,Site\n")
	summary := filepath.Join(dir, "summary.md")
	raw := func(s string) bool { return strings.ContainsAny(s, cgj+"\u0301") }
	for _, tt := range []struct {
		name string
		tty  bool
		args []string
		want []string
	}{
		{"diff", false, nil, []string{"- delete P-1\\u034f", `"\u0301Site" → "Site"`}},
		{"diff on a terminal", true, nil, []string{"P-1\\u034f", `"\u0301Site" → "Site"`}},
		{"table", true, []string{"-o", "table"}, []string{"P-1\\u034f", `"\u0301Site" → "Site"`}},
		{"plain", false, []string{"-o", "plain"}, []string{"delete\tP-1\\u034f", `"\u0301Site" → "Site"`}},
		{"markdown", false, []string{"-o", "markdown"}, []string{"| `P-1\\u034f` |", "`\"\\u0301Site\" → \"Site\"`"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(summary)
			args := append([]string{"apply", "-f", file, "--dry-run", "--prune", "--yes", "--rate", "0"}, tt.args...)
			res := cmdtest.Run{TTY: tt.tty, NoColor: true, Env: map[string]string{"GITHUB_STEP_SUMMARY": summary}}.Do(t, srv, args...)
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Out, w) {
					t.Errorf("no %q in:\n%s", w, res.Out)
				}
			}
			if raw(res.Out) || raw(res.ErrOut) {
				t.Errorf("printed raw: %q %q", res.Out, res.ErrOut)
			}
			b, _ := os.ReadFile(summary)
			if !strings.Contains(string(b), "`P-1\\u034f`") || raw(string(b)) {
				t.Errorf("job summary:\n%s", b)
			}
		})
	}
	for _, tty := range []bool{true, false} {
		code, out, _ := runMode(t, srv, tty, "", "element", "list")
		if code != 0 || !strings.Contains(out, "P-1\\u034f") || raw(out) {
			t.Errorf("element list (terminal %v): exit %d %q", tty, code, out)
		}
	}
}

// Every default-ignorable code point, assigned or not, is escaped in the
// Markdown of a plan and in its diff: descriptions of many of them, 40 a
// record, a file of 20 records a run.
func TestEveryDefaultIgnorableIsEscapedInMarkdown(t *testing.T) {
	var all []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicodeprop.DefaultIgnorable(r) {
			all = append(all, r)
		}
	}
	if len(all) < 4000 {
		t.Fatalf("%d default-ignorable code points: the unassigned ones are missing", len(all))
	}
	srv := wbstest.Start(t)
	dir := t.TempDir()
	const perRecord, perFile = 40, 20
	for start := 0; start < len(all); start += perRecord * perFile {
		batch := all[start:min(start+perRecord*perFile, len(all))]
		var records []map[string]string
		for i := 0; i < len(batch); i += perRecord {
			records = append(records, map[string]string{"wbsElementCode": fmt.Sprintf("D-%d", start+i), "description": "x" + string(batch[i:min(i+perRecord, len(batch))])})
		}
		data, _ := json.Marshal(records)
		file := cmdtest.WriteFile(t, dir, fmt.Sprintf("d%d.json", start), string(data))
		for _, view := range [][]string{{"-o", "markdown"}, nil} {
			code, out, errOut := run(t, srv, "", append([]string{"apply", "-f", file, "--dry-run", "--rate", "0"}, view...)...)
			if code != 0 || strings.Contains(out, "more changes") {
				t.Fatalf("%v: exit %d: %s\n%s", view, code, errOut, out)
			}
			if i := strings.IndexFunc(out, unicodeprop.DefaultIgnorable); i >= 0 {
				t.Fatalf("%v: %q printed raw", view, out[i:min(i+8, len(out))])
			}
			for _, r := range batch {
				if !strings.Contains(out, goEscape(r)) {
					t.Errorf("%v: no %s in the plan", view, goEscape(r))
				}
			}
		}
	}
}
