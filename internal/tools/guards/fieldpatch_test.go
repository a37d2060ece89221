package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fieldPatch adds a text field, responsiblePerson of at most 12
// characters, to every part of wbsctl: the SDK's types and limits,
// wbstest, and one entry of wbsfile.TextFields, which the readers,
// writers, plans, saved plans, maps, flags, tables and schemas read.
const fieldPatch = "testdata/fields/responsible-person.patch"

// maxFieldFiles is the most files outside tests that adding a field may
// touch.
const maxFieldFiles = 6

// Adding a field touches at most six files outside tests, and works: the
// patch applies to the code as it is, the tree builds with it, and the
// test it brings passes (the field applied from CSV, YAML, JSON and an
// ERP map, listed, planned, exported, set, cleared, its limit named).
func TestAFieldIsAddedInAFewFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := findRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(root, fieldPatch))
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, m := range regexp.MustCompile(`(?m)^diff --git a/(\S+) `).FindAllStringSubmatch(string(patch), -1) {
		if !strings.HasSuffix(m[1], "_test.go") {
			code = append(code, m[1])
		}
	}
	if len(code) == 0 || len(code) > maxFieldFiles {
		t.Fatalf("the patch touches %d files outside tests, want 1 to %d: %s", len(code), maxFieldFiles, strings.Join(code, ", "))
	}
	if testing.Short() {
		command(t, root, "git", "apply", "--check", fieldPatch)
		return
	}
	// A copy of the tree, as git would commit it, with the patch applied.
	dir := t.TempDir()
	files := command(t, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // removed in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	command(t, dir, "git", "apply", filepath.Join(root, fieldPatch))
	command(t, dir, "go", "build", "./...")
	command(t, dir, "go", "vet", "./sdk/...", "./internal/wbsfile", "./internal/cmd/newfield")
	command(t, dir, "go", "test", "-count=1", "./internal/cmd/newfield")
}

// command runs a command in dir and returns its output, failing the test when
// it fails.
func command(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}
