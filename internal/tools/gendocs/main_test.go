package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// docs/cli is the command reference the commands themselves give: run
// `go run ./internal/tools/gendocs -markdown docs/cli` after changing a
// command, a flag or a help text.
func TestCommandReferenceIsCurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cli")
	if err := generate(dir, true); err != nil {
		t.Fatal(err)
	}
	fresh, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	saved, _ := filepath.Glob("../../../docs/cli/*.md")
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if !slices.Equal(names(fresh), names(saved)) {
		t.Fatalf("docs/cli holds %v, the commands give %v: go run ./internal/tools/gendocs -markdown docs/cli", names(saved), names(fresh))
	}
	for _, p := range fresh {
		want, _ := os.ReadFile(p)
		got, _ := os.ReadFile(filepath.Join("../../../docs/cli", filepath.Base(p)))
		if string(got) != string(want) {
			t.Errorf("docs/cli/%s is out of date: go run ./internal/tools/gendocs -markdown docs/cli", filepath.Base(p))
		}
	}
}

// docs/exit-codes.md is cmdutil.ExitCodes, byte for byte: run `go run
// ./internal/tools/gendocs -markdown docs/cli` after changing the table.
// The generator writes the page beside the reference's directory.
func TestExitCodesPageIsCurrent(t *testing.T) {
	saved, err := os.ReadFile("../../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := exitCodesPage(); string(got) != string(saved) {
		t.Errorf("docs/exit-codes.md is out of date: go run ./internal/tools/gendocs -markdown docs/cli\nwant:\n%s", got)
	}
	dir := t.TempDir()
	if err := generate(filepath.Join(dir, "cli"), true); err != nil {
		t.Fatal(err)
	}
	if written, err := os.ReadFile(filepath.Join(dir, "exit-codes.md")); err != nil || string(written) != string(exitCodesPage()) {
		t.Errorf("gendocs -markdown DIR did not write the page as DIR/../exit-codes.md: %v", err)
	}
}
