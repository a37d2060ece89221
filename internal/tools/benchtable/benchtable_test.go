package benchtable

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is the root of the repository, from this package's folder.
const repo = "../../.."

// TestPageIsOneRunOfTheScript: docs/benchmarks.md holds one table, whose
// rows are the rows `scripts/bench -list` names, in that order, each with
// the script's five cells, under the script's line naming the run.
func TestPageIsOneRunOfTheScript(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repo, "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables := readTables(string(page))
	if len(tables) != 1 {
		t.Fatalf("docs/benchmarks.md holds %d tables, want the one of scripts/bench", len(tables))
	}
	table := tables[0]
	if !strings.HasPrefix(table.before, "One run of `scripts/bench") || !strings.Contains(table.before, " cores") {
		t.Errorf("the table of docs/benchmarks.md comes after %q, want the line scripts/bench prints before it, which names the machine", table.before)
	}
	var onPage []string
	for _, r := range table.rows {
		if len(r) != 5 {
			t.Errorf("the row %q has %d cells, want the script's 5", r[0], len(r))
		}
		onPage = append(onPage, r[0])
	}
	printed := scriptRows(t)
	for _, name := range onPage {
		if !slices.Contains(printed, name) {
			t.Errorf("the page's row %q is not a row scripts/bench prints", name)
		}
	}
	for _, name := range printed {
		if !slices.Contains(onPage, name) {
			t.Errorf("scripts/bench prints the row %q, which the page does not hold: paste a new run", name)
		}
	}
	if !t.Failed() && !slices.Equal(onPage, printed) {
		t.Errorf("the page's rows are in another order than the script prints them:\n%s\nwant:\n%s",
			strings.Join(onPage, "\n"), strings.Join(printed, "\n"))
	}
}

// scriptRows are the names of the rows scripts/bench prints, as its -list
// mode gives them without running anything.
func scriptRows(t *testing.T) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run scripts/bench -list")
	}
	out, err := exec.Command(bash, filepath.Join(repo, "scripts", "bench"), "-list").Output()
	if err != nil {
		t.Fatalf("scripts/bench -list: %v", err)
	}
	names := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(names) < 10 {
		t.Fatalf("scripts/bench -list names %d rows: %q", len(names), out)
	}
	return names
}

// A table is a Markdown table of a page: its body's rows, each its cells,
// and the line of text before it.
type table struct {
	before string
	rows   [][]string
}

// readTables reads the tables of page outside fenced blocks: runs of lines
// that start with "|", the first the header, the second its separator.
func readTables(page string) []table {
	var tables []table
	lines := strings.Split(page, "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "|") {
			continue
		}
		tb := table{}
		for j := i - 1; j >= 0; j-- {
			if text := strings.TrimSpace(lines[j]); text != "" {
				tb.before = text
				break
			}
		}
		start := i
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			if i-start >= 2 { // the header and its separator left out
				tb.rows = append(tb.rows, cells(lines[i]))
			}
		}
		i-- // the line after the table is read next
		tables = append(tables, tb)
	}
	return tables
}

// cells are the cells of a row, without the spaces around them.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	out := strings.Split(row, "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// The reader of tables, on a page whose answer is known.
func TestReadTables(t *testing.T) {
	page := "# T\n\nSome text.\n\n| a | b |\n|---|---|\n| x | 1 |\n| y |  |\n```\n| not | a table |\n```\nafter\n| h |\n|---|\n| z |\n"
	got := readTables(page)
	if len(got) != 2 || got[0].before != "Some text." || got[1].before != "after" {
		t.Fatalf("tables %+v", got)
	}
	if want := [][]string{{"x", "1"}, {"y", ""}}; !slices.EqualFunc(got[0].rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q", got[0].rows, want)
	}
	if want := [][]string{{"z"}}; !slices.EqualFunc(got[1].rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q", got[1].rows, want)
	}
}
