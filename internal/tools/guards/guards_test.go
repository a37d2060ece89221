package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// patches reads every guard patch of the repository.
func patches(t *testing.T) (string, []*Patch) {
	t.Helper()
	root, err := findRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	all, err := loadPatches(root)
	if err != nil {
		t.Fatal(err)
	}
	model := 0
	for _, p := range all {
		if p.Model {
			model++
		}
	}
	if model < 16 || len(all)-model < 1 {
		t.Fatalf("%d of apply's guard patches and %d others, want 16 of apply's and some others", model, len(all)-model)
	}
	return root, all
}

// Every guard patch that scripts/guards takes out, apply's and the
// others, still fits the code: the lines each hunk expects (its context
// and the lines it removes) are in the file exactly once, as git apply
// needs them. A patch that no longer fits would fail the guards' CI step
// long after the change that moved its lines.
func TestGuardPatchesFitTheCode(t *testing.T) {
	root, all := patches(t)
	for _, p := range all {
		for _, h := range p.Hunks {
			code, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(h.File)))
			if err != nil {
				t.Errorf("%s: %v", p.Path, err)
				continue
			}
			block := strings.Join(h.Lines, "\n") + "\n"
			if n := strings.Count(string(code), block); n != 1 {
				t.Errorf("%s: %s holds the lines of a hunk %d times, want once:\n%s", p.Path, h.File, n, block)
			}
		}
	}
}

// git apply takes every patch as it is, header lines and all, against the
// code as it is (checked, not applied).
func TestGuardPatchesApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, all := patches(t)
	for _, p := range all {
		cmd := exec.Command("git", "apply", "--check", filepath.FromSlash(p.Path))
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git apply --check %s: %v\n%s", p.Path, err, out)
		}
	}
}

// Every guard outside apply's model says what it guards and which test
// fails without it (Guard: and Test: before its diff); that test exists,
// a func TestName( of a test file in the package named; the number is the
// guard's alone; and GUARDS.md has the guard's row, naming its test. Each
// of apply's guards has its row in internal/cmd/apply/GUARDS.md.
func TestGuardPatchesSayWhatFindsThem(t *testing.T) {
	root, all := patches(t)
	table, err := os.ReadFile(filepath.Join(root, "GUARDS.md"))
	if err != nil {
		t.Fatal(err)
	}
	modelTable, err := os.ReadFile(filepath.Join(root, "internal", "cmd", "apply", "GUARDS.md"))
	if err != nil {
		t.Fatal(err)
	}
	numbers := map[string]string{}
	rows := map[string]bool{}
	for _, p := range all {
		if other, ok := numbers[p.Number]; ok {
			t.Errorf("%s and %s have one number", other, p.Path)
		}
		numbers[p.Number] = p.Path
		if err := p.check(); err != nil {
			t.Error(err)
			continue
		}
		if p.Model {
			if !regexp.MustCompile(`(?m)^\| ` + p.Number + ` \|`).Match(modelTable) {
				t.Errorf("internal/cmd/apply/GUARDS.md has no row | %s |", p.Number)
			}
			continue
		}
		rows[p.Number] = true
		if !testExists(t, filepath.Join(root, filepath.FromSlash(p.Pkg)), p.Test) {
			t.Errorf("%s: Test: %s %s: no func %s( in a test file of %s", p.Path, p.Pkg, p.Test, p.Test, p.Pkg)
		}
		row := regexp.MustCompile(`(?m)^\| ` + p.Number + ` \|.*$`).Find(table)
		switch {
		case row == nil:
			t.Errorf("GUARDS.md has no row | %s | for %s", p.Number, p.Path)
		case !strings.Contains(string(row), p.Test):
			t.Errorf("GUARDS.md's row %s names another test than %s: %s", p.Number, p.Test, row)
		}
	}
	// And no row outlives its patch.
	for _, m := range regexp.MustCompile(`(?m)^\| ([0-9]{2,}) \|`).FindAllStringSubmatch(string(table), -1) {
		if !rows[m[1]] {
			t.Errorf("GUARDS.md has a row %s, but testdata/guards no patch of that number", m[1])
		}
	}
}

// testExists reports whether a test file of dir declares test.
func testExists(t *testing.T, dir, test string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(test) + `\(`)
	return slices.ContainsFunc(files, func(f string) bool {
		b, err := os.ReadFile(f)
		return err == nil && decl.Match(b)
	})
}

// The headers before the diff are read, and git's extended header lines
// and diff -u's alike are taken.
func TestParsePatch(t *testing.T) {
	text := "Guard: a dry run sends no write\nTest: ./internal/engine TestDryRun\n\n" +
		"diff --git a/x/y.go b/x/y.go\nindex 1..2 100644\n--- a/x/y.go\n+++ b/x/y.go\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
	p, err := parsePatch("testdata/guards/99-dry-run.patch", text, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Number != "99" || p.Guard != "a dry run sends no write" || p.Pkg != "./internal/engine" || p.Test != "TestDryRun" || p.check() != nil {
		t.Fatalf("%+v %v", p, p.check())
	}
	if len(p.Hunks) != 1 || p.Hunks[0].File != "x/y.go" || strings.Join(p.Hunks[0].Lines, ",") != "a,b,d" {
		t.Fatalf("hunks %+v", p.Hunks)
	}
	for name, bad := range map[string]string{
		"a header of no name":   "a note\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"an unknown header":     "Owner: me\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"a header given twice":  "Guard: a\nGuard: b\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"no hunk":               "Guard: a\nTest: ./x TestX\n",
		"a line of no diff":     "Guard: a\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n*c\n",
		"a file not named a/..": "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n",
	} {
		if _, err := parsePatch("testdata/guards/99-x.patch", bad, false); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	for _, header := range []string{"Test: ./x TestX\n", "Guard: g\n", "Guard: g\nTest: x TestX\n", "Guard: g\nTest: ./x Foo\n"} {
		p, err := parsePatch("testdata/guards/99-x.patch", header+"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", false)
		if err != nil || p.check() == nil {
			t.Errorf("%q: %v, and the headers pass the check", header, err)
		}
	}
	if _, err := parsePatch("internal/cmd/apply/testdata/guards/99-x.patch", "Guard: g\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", true); err == nil {
		t.Error("a model guard with headers was read")
	}
}

// A guard is found only when its test failed by name; a pass, a hang
// ended by the test timeout, a build failure or another test's failure
// count as the guard untested.
func TestJudge(t *testing.T) {
	for name, tt := range map[string]struct {
		out    string
		passed bool
		found  bool
		says   string
	}{
		"failed by name": {"=== RUN   TestX\n    x_test.go:1: boom\n--- FAIL: TestX (0.25s)\nFAIL\n", false, true, "TestX failed in 0.25 s"},
		"a subtest":      {"--- FAIL: TestX (1.50s)\n    --- FAIL: TestX/a (1.50s)\nFAIL\n", false, true, "1.50 s"},
		"passed":         {"ok  \tm/x\t0.1s\n", true, false, "passed without the guard"},
		"no such test":   {"testing: warning: no tests to run\nPASS\nok  \tm/x\t0.1s [no tests to run]\n", true, false, "no test TestX ran"},
		"hung": {"panic: test timed out after 5m0s\n\trunning tests:\n\t\tTestX (5m0s)\n", false, false,
			"until the test timed out"},
		"hung in a subtest after a failure": {"--- FAIL: TestY (0.00s)\npanic: test timed out after 5m0s\n", false, false, "timed out"},
		"build failure":                     {"# m/x\nx.go:1:1: undefined: y\nFAIL\tm/x [build failed]\n", false, false, "does not build"},
		"another test failed":               {"--- FAIL: TestXY (0.00s)\nFAIL\n", false, false, "not in TestX"},
	} {
		r := judge("TestX", tt.out, 2*time.Second, tt.passed)
		if (r.found != "") != tt.found || !strings.Contains(r.found+r.problem, tt.says) {
			t.Errorf("%s: found %q, problem %q; want found %v saying %q", name, r.found, r.problem, tt.found, tt.says)
		}
	}
}

// The guards named by prefixes are chosen, in order.
func TestSelectPatches(t *testing.T) {
	all := []*Patch{{Name: "01-a"}, {Name: "15-b"}, {Name: "17-c"}, {Name: "18-d"}}
	var got []string
	for _, p := range selectPatches(all, []string{"17", "1"}) {
		got = append(got, p.Name)
	}
	if strings.Join(got, " ") != "15-b 17-c 18-d" {
		t.Fatalf("chose %v", got)
	}
	if len(selectPatches(all, nil)) != 4 {
		t.Fatal("no prefix chooses every guard")
	}
}

// A model run without a guard is found whether rapid shrank its failure
// or, where kills and faults do not replay alike, reports the failure it
// could not reproduce; a failure elsewhere is not a finding.
func TestModelResult(t *testing.T) {
	shrunk := "--- FAIL: TestApplyModel (53.1s)\n    model_test.go:40: [rapid] failed after 46 tests: under lost create answers: exit 6, although every change was made:\n        error: x\n"
	flaky := "--- FAIL: TestApplyModel (40.2s)\n    model_test.go:40: [rapid] flaky test, can not reproduce a failure\n" +
		"        To try to reproduce, specify -run=\"^TestApplyModel$\" -rapid.seed=1\n" +
		"        Traceback (the platform is not as the model says:\n        E-1):\n            model_test.go:900 +0x1\n" +
		"        Original traceback (under lost create answers: exit 6, although every change was made:\n        error: x):\n            model_test.go:1227 +0x1\n" +
		"        Failed test output:\n    model_test.go:1272: [rapid] draw next isActive: true\n"
	for _, tt := range []struct {
		out, found string
	}{
		{shrunk, "found after 47 checks (53 s): under lost create answers: exit 6, although every change was made:"},
		{flaky, "found by a run rapid could not replay (40 s): under lost create answers: exit 6, although every change was made:"},
		{"--- FAIL: TestApplyModel\n    apply_test.go:12: the build of wbsctl failed\n", ""},
	} {
		took := 53 * time.Second
		if strings.Contains(tt.out, "flaky") {
			took = 40 * time.Second
		}
		r := modelResult(tt.out, took)
		if r.found != tt.found || (tt.found == "") == (r.problem == "") {
			t.Errorf("%q:\ngot found %q, problem %q\nwant found %q", tt.out, r.found, r.problem, tt.found)
		}
	}
}
