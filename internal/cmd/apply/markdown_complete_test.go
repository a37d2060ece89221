package apply_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// gfmRows renders Markdown as GitHub does and returns the text of each
// cell of each body row of its tables, in order.
func gfmRows(t *testing.T, md string) [][]string {
	t.Helper()
	var rows [][]string
	walk(renderGFM(t, md), func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "tr" {
			return
		}
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "td" {
				var b strings.Builder
				walk(c, func(x *html.Node) {
					if x.Type == html.TextNode {
						b.WriteString(x.Data)
					}
				})
				cells = append(cells, b.String())
			}
		}
		if cells != nil {
			rows = append(rows, cells)
		}
	})
	return rows
}

// column is the text of column col of each row.
func column(rows [][]string, col int) []string {
	cells := make([]string, len(rows))
	for i, r := range rows {
		cells[i] = strings.TrimSpace(r[col])
	}
	return cells
}

// cutMark is the mark of a value cut in a cell.
var cutMark = regexp.MustCompile(`…\(cut, (\d+) bytes in all\)`)

// cutSize is the size the mark in cell gives the value it cut; 0 when
// the cell has no mark.
func cutSize(cell string) int {
	m := cutMark.FindStringSubmatch(cell)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A value of 70 KB, from the platform (a description) or from the file
// (an organization code), is cut in its cell with a mark that says so;
// its row and every row after it are shown, the deletes first.
func TestMarkdownCutsAnOversizedCellNotItsRow(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(
		wbstest.Element{Code: "D-1", Description: str(strings.Repeat("d", 70_000)), IsActive: true},
		wbstest.Element{Code: "D-2", Description: str("goes too"), IsActive: true},
	)
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", "wbsElementCode,description,businessOrganizations\n"+
		"C-1,big,company="+strings.Repeat("9", 70_000)+"\nC-2,small,company=1000\n")
	res := cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--dry-run", "--prune", "-o", "markdown", "--rate", "0")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
	rows := gfmRows(t, res.Out)
	if got := strings.Join(column(rows, 1), " "); got != "D-1 D-2 C-1 C-2" {
		t.Fatalf("rows %q, want D-1 D-2 C-1 C-2:\n%.2000s", got, res.Out)
	}
	for _, r := range rows {
		if len(r) != 4 {
			t.Fatalf("a row of %d cells: %.300q", len(r), r)
		}
	}
	for _, i := range []int{0, 2} { // D-1's description, C-1's organization
		if n := cutSize(rows[i][3]); n < 70_000 || len(rows[i][3]) > 1_200 {
			t.Errorf("row %s: no cut mark of 70 KB, or %d bytes: %.300q", rows[i][1], len(rows[i][3]), rows[i][3])
		}
	}
	if strings.Contains(res.Out, "more changes") {
		t.Errorf("rows were left out:\n%.2000s", res.Out)
	}
	golden(t, "plan-markdown-cut.golden", res.Out)
}

// The results in the job summary cut a value of 70 KB in its cell, here
// the code of an element the platform holds and the run prunes, and show
// the rows after it.
func TestMarkdownResultsCutAnOversizedCell(t *testing.T) {
	srv := wbstest.Start(t)
	long := "A-" + strings.Repeat("z", 70_000)
	srv.Put(wbstest.Element{Code: long, IsActive: true}, wbstest.Element{Code: "X-1", IsActive: true})
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode\nR-1\nR-2\n")
	summary := filepath.Join(dir, "summary.md")
	res := cmdtest.Run{Env: map[string]string{"GITHUB_STEP_SUMMARY": summary}}.Do(t, srv, "apply", "-f", file, "--prune", "--yes", "--rate", "0")
	if res.Code != 0 {
		t.Fatalf("exit %d: %.500s", res.Code, res.ErrOut)
	}
	b, _ := os.ReadFile(summary)
	rows := gfmRows(t, string(b))
	codes := column(rows, 2)
	if len(rows) != 4 || strings.Join(codes[1:], " ") != "X-1 R-1 R-2" {
		t.Fatalf("%d results %.100q, want A-…, X-1, R-1 and R-2:\n%.2000s", len(rows), codes, b)
	}
	if cutSize(codes[0]) != len(long) || len(codes[0]) > 1_200 {
		t.Errorf("the long code is not cut (%d bytes): %.300q", len(codes[0]), codes[0])
	}
}

// largePlan is a platform and a file whose plan has more rows than a
// table shows: 1,000 creates and 1,000 updates, alternating,
// and 3 deletes, which the plan holds last.
func largePlan(t *testing.T) (*wbstest.Server, string) {
	srv := wbstest.Start(t)
	var csv strings.Builder
	csv.WriteString("wbsElementCode,description\n")
	for i := range 1_000 {
		fmt.Fprintf(&csv, "C-%04d,new %d\n", i, i)
		srv.Put(wbstest.Element{Code: fmt.Sprintf("U-%04d", i), Description: str("old"), IsActive: true})
		fmt.Fprintf(&csv, "U-%04d,changed %d\n", i, i)
	}
	for i := range 3 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("X-%d", i), Description: str("to prune"), IsActive: true})
	}
	return srv, cmdtest.WriteFile(t, t.TempDir(), "large.csv", csv.String())
}

// actionsShown counts the rows of each action (column col).
func actionsShown(rows [][]string, col int) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		words := strings.Fields(r[col]) // "✅ ok", "➕ create": the action is the last word
		n[words[len(words)-1]]++
	}
	return n
}

// A plan too large for its table lists its deletes first, and its
// heading counts them first; the rows left out are counted per action.
func TestMarkdownOfALargePlanShowsEveryDelete(t *testing.T) {
	srv, file := largePlan(t)
	res := cmdtest.Run{}.Do(t, srv, "apply", "-f", file, "--dry-run", "--prune", "-o", "markdown", "--rate", "0")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
	if want := "### wbsctl plan: 3 to delete, 1000 to create, 1000 to update, 0 unchanged\n"; !strings.HasPrefix(res.Out, want) {
		t.Fatalf("the heading is not %q:\n%.300s", want, res.Out)
	}
	rows := gfmRows(t, res.Out)
	if got := strings.Join(column(rows[:min(3, len(rows))], 1), " "); got != "X-0 X-1 X-2" {
		t.Fatalf("the first rows are %q, want the deletes X-0 X-1 X-2", got)
	}
	shown := actionsShown(rows, 0)
	want := fmt.Sprintf("…and %d more changes, left out to keep this page short (%d creates, %d updates)",
		2_003-len(rows), 1_000-shown["create"], 1_000-shown["update"])
	if shown["create"] == 1_000 || shown["update"] == 1_000 || !strings.Contains(res.Out, want) {
		t.Fatalf("%d rows shown %v; the end is not %q: %q", len(rows), shown, want, res.Out[max(0, len(res.Out)-300):])
	}
}

// The results of a run too large for the job summary's table list the
// deletes first, and count the results left out per action.
func TestMarkdownOfLargeResultsShowsEveryDelete(t *testing.T) {
	srv, file := largePlan(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	res := cmdtest.Run{Env: map[string]string{"GITHUB_STEP_SUMMARY": summary}}.Do(t, srv,
		"apply", "-f", file, "--prune", "--yes", "--rate", "0", "--concurrency", "16")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
	b, _ := os.ReadFile(summary)
	rows := gfmRows(t, string(b))
	if got := strings.Join(column(rows[:min(3, len(rows))], 2), " "); got != "X-0 X-1 X-2" {
		t.Fatalf("the first results are %q, want the deletes X-0 X-1 X-2", got)
	}
	shown := actionsShown(rows, 1)
	want := fmt.Sprintf("…and %d more results, left out to keep this page short (%d creates, %d updates)",
		2_003-len(rows), 1_000-shown["create"], 1_000-shown["update"])
	if shown["create"] == 1_000 || shown["update"] == 1_000 || !strings.Contains(string(b), want) {
		t.Fatalf("%d rows shown %v; the end is not %q: %q", len(rows), shown, want, b[max(0, len(b)-300):])
	}
}

// Several calls of one step append to one job summary, which GitHub
// shows only up to 1 MiB: whatever earlier steps left in it, five plans
// of 20,000 changes leave it under the limit, each table whole, and,
// once it is full, one line says so.
func TestStepSummaryStaysUnderGitHubsLimit(t *testing.T) {
	const limit = 1 << 20
	srv := wbstest.Start(t)
	file := largePlanFile(t)
	// From room for several tables down to none, through room for a
	// table smaller than one of -o markdown, and none for the line that
	// says the summary is full.
	for _, before := range []int{0, 900_000, 1_010_000, 1_040_000, 1_048_000, 1_048_500} {
		t.Run(fmt.Sprint(before), func(t *testing.T) {
			earlier := strings.Repeat("e", before)
			summary := cmdtest.WriteFile(t, t.TempDir(), "summary.md", earlier)
			var last cmdtest.Result
			for range 5 {
				last = cmdtest.Run{Env: map[string]string{"GITHUB_STEP_SUMMARY": summary}}.Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0")
				if last.Code != 0 {
					t.Fatalf("exit %d: %s", last.Code, last.ErrOut)
				}
			}
			b, _ := os.ReadFile(summary)
			if len(b) > limit || !bytes.HasPrefix(b, []byte(earlier)) {
				t.Fatalf("the summary is %d bytes (limit %d), or the earlier steps' part changed", len(b), limit)
			}
			added := string(b[before:])
			tables := strings.Count(added, "### wbsctl plan: 20000 to create")
			if strings.Count(added, "more changes, left out to keep this page short") != tables {
				t.Fatalf("%d tables, %d of them with their last line:\n%.1000s", tables, strings.Count(added, "more changes, left out"), added)
			}
			for _, r := range gfmRows(t, added) {
				if len(r) != 4 {
					t.Fatalf("a row of %d cells: %q", len(r), r)
				}
			}
			// Full, the summary says so once, where a line still fits.
			notes := strings.Count(added, "job summary is close to GitHub's 1 MiB limit")
			full := strings.Contains(last.ErrOut, "warning: the job summary (GITHUB_STEP_SUMMARY) was not written")
			if notes > 1 || full && notes == 0 && len(b) < limit-1_000 || !full && notes > 0 {
				t.Fatalf("the summary says %d times that it is full (the last call warns: %v):\n%s", notes, full, added[max(0, len(added)-500):])
			}
			if before == 0 && tables != 5 || before >= 1_040_000 && !full {
				t.Fatalf("%d tables (the last call warns: %v), from %d bytes", tables, full, before)
			}
			t.Logf("%d bytes before, %d after: %d tables", before, len(b), tables)
		})
	}
}

// A GITHUB_STEP_SUMMARY that is a symbolic link is not followed: its
// target, or the file it would create, is left alone, and the warning
// names the variable and the file. The job's own work still passes.
func TestStepSummaryRefusesASymbolicLink(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode\nS-1\n")
	target := cmdtest.WriteFile(t, dir, "precious", "keep me\n")
	for _, tt := range []struct{ name, to string }{
		{"to a file", target},
		{"dangling", filepath.Join(dir, "created-through-the-link")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "summary.md")
			if err := os.Symlink(tt.to, link); err != nil {
				t.Skipf("no symbolic link here: %v", err)
			}
			res := cmdtest.Run{Env: map[string]string{"GITHUB_STEP_SUMMARY": link}}.Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0")
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
			}
			if !strings.Contains(res.ErrOut, "GITHUB_STEP_SUMMARY") || !strings.Contains(res.ErrOut, link+" is a symbolic link") {
				t.Errorf("the warning names not the variable and the link: %s", res.ErrOut)
			}
			if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
				t.Errorf("the link's target was written: %q", b)
			}
			if _, err := os.Lstat(filepath.Join(dir, "created-through-the-link")); err == nil {
				t.Errorf("a file was created through a dangling link")
			}
		})
	}
}
