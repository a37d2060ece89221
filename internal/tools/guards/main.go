// Command guards takes each guard of wbsctl out of a copy of the tree,
// one at a time, and checks that a test fails without it. A guard's
// removal is a patch: apply's guards (internal/cmd/apply/GUARDS.md,
// internal/cmd/apply/testdata/guards) are found by the model test,
// TestApplyModel; every other guard (GUARDS.md, testdata/guards) names
// in its Test: header the test that must fail, by name, without it.
// scripts/guards runs it from the repository's root:
//
//	scripts/guards              every guard, 1000 model checks each at most
//	scripts/guards 07 17 18     the guards whose names start so
//	WBSCTL_MODEL_CHECKS=100 scripts/guards 15
//
// For each guard it says what found it taken out and how long that took.
// It fails naming the guard when a patch no longer applies, when its test
// passes (the guard is untested), when the run ends in "test timed out"
// (a hang is no finding: the test must fail by its own deadline), when
// the copy does not build, or when the test fails other than by name.
package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// testTimeout bounds the run of a root guard's test: each fails within
// its own, far shorter, deadline.
const testTimeout = "5m"

// modelTimeout bounds a run of the model.
const modelTimeout = "40m"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, prefixes []string, out io.Writer) int {
	root, err := findRoot(".")
	if err != nil {
		fmt.Fprintln(out, "guards:", err)
		return 2
	}
	all, err := loadPatches(root)
	if err != nil {
		fmt.Fprintln(out, "guards:", err)
		return 2
	}
	patches := selectPatches(all, prefixes)
	if len(patches) == 0 {
		fmt.Fprintf(out, "guards: no guard's name starts with %s\n", strings.Join(prefixes, " or "))
		return 2
	}
	checks := os.Getenv("WBSCTL_MODEL_CHECKS")
	if checks == "" {
		checks = "1000"
	}
	work, err := os.MkdirTemp("", "wbsctl-guards-")
	if err != nil {
		fmt.Fprintln(out, "guards:", err)
		return 2
	}
	defer os.RemoveAll(work)
	// Every guard's copy is made at the same path, so that the build
	// cache serves the packages a patch leaves alone.
	tree := filepath.Join(work, "tree")
	var missed []string
	for _, p := range patches {
		if ctx.Err() != nil {
			fmt.Fprintln(out, "guards: interrupted")
			return 1
		}
		if err := p.check(); err != nil {
			fmt.Fprintln(out, err)
			missed = append(missed, p.Name)
			continue
		}
		var r result
		if err := prepare(ctx, root, tree, p); err != nil {
			r = result{problem: err.Error()}
		} else if p.Model {
			r = runModel(ctx, tree, checks)
		} else {
			r = runTest(ctx, tree, p)
		}
		if r.problem != "" {
			fmt.Fprintf(out, "%s: %s\n", p.Name, r.problem)
			if r.output != "" {
				fmt.Fprintln(out, tail(r.output, 20))
			}
			missed = append(missed, p.Name)
			continue
		}
		fmt.Fprintf(out, "%s: %s\n", p.Name, r.found)
	}
	if len(missed) > 0 {
		fmt.Fprintf(out, "guards: %d of %d not found taken out: %s\n", len(missed), len(patches), strings.Join(missed, " "))
		return 1
	}
	fmt.Fprintf(out, "guards: each of %d found taken out\n", len(patches))
	return 0
}

// result is what a guard's run showed: found, what found it, or problem,
// why the guard counts as untested, with the output of the run.
type result struct {
	found, problem, output string
}

// prepare makes tree a copy of root with p applied.
func prepare(ctx context.Context, root, tree string, p *Patch) error {
	if err := os.RemoveAll(tree); err != nil {
		return err
	}
	if err := copyTree(root, tree); err != nil {
		return fmt.Errorf("copying the tree: %w", err)
	}
	cmd := exec.CommandContext(ctx, "git", "apply", filepath.Join(root, filepath.FromSlash(p.Path)))
	cmd.Dir = tree
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the patch no longer applies; make it again against the code: %v\n%s", err, strings.TrimSpace(string(b)))
	}
	return nil
}

// copyTree copies the files of root to dst, without .git and dist (the
// release's output).
func copyTree(root, dst string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() && (rel == ".git" || rel == "dist") {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return copyFile(path, to, info.Mode().Perm())
		}
		return nil // a socket or a pipe left in the tree
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// goTest runs go test in tree and returns its output and how long it
// took.
func goTest(ctx context.Context, tree string, args ...string) (string, time.Duration, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = tree
	start := time.Now()
	b, err := cmd.CombinedOutput()
	return string(b), time.Since(start), err
}

// runTest runs a root guard's test in tree: found only when that test
// failed by name.
func runTest(ctx context.Context, tree string, p *Patch) result {
	out, took, err := goTest(ctx, tree, "-timeout", testTimeout, "-run", "^"+p.Test+"$", p.Pkg)
	return judge(p.Test, out, took, err == nil)
}

// judge reads the output of go test -run '^test$': the guard is found
// only when test failed by name.
func judge(test, out string, took time.Duration, passed bool) result {
	wall := fmt.Sprintf("%.1f s with its build", took.Seconds())
	failed := regexp.MustCompile(`(?m)^--- FAIL: ` + regexp.QuoteMeta(test) + ` \(([0-9.]+)s\)`).FindStringSubmatch(out)
	switch {
	case strings.Contains(out, "panic: test timed out"):
		return result{problem: fmt.Sprintf("%s ran until the test timed out (%s): it hangs without the guard instead of failing by its own deadline", test, testTimeout), output: out}
	case failed != nil:
		return result{found: fmt.Sprintf("%s failed in %s s (%s)", test, failed[1], wall)}
	case passed && strings.Contains(out, "no tests to run"):
		return result{problem: fmt.Sprintf("no test %s ran: the Test: header names none", test), output: out}
	case passed:
		return result{problem: fmt.Sprintf("%s passed without the guard (%s)", test, wall)}
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		return result{problem: "the copy with the patch does not build", output: out}
	}
	return result{problem: fmt.Sprintf("go test failed, but not in %s", test), output: out}
}

// runModel runs the model test in tree: found when rapid reports the
// checks it took.
func runModel(ctx context.Context, tree, checks string) result {
	out, took, err := goTest(ctx, tree, "-timeout", modelTimeout, "-run", "^"+modelTest+"$", modelPkg,
		"-rapid.checks="+checks, "-rapid.nofailfile")
	if err == nil {
		return result{problem: fmt.Sprintf("the model passed %s checks without this guard", checks)}
	}
	return modelResult(out, took)
}

// modelResult reads the output of a model run that failed.
func modelResult(out string, took time.Duration) result {
	if strings.Contains(out, "panic: test timed out") {
		return result{problem: "the model ran until the test timed out (" + modelTimeout + ")", output: out}
	}
	if m := regexp.MustCompile(`failed after ([0-9]+) tests: (.*)`).FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		return result{found: fmt.Sprintf("found after %d checks (%.0f s): %s", n+1, took.Seconds(), modelReason(m[2]))}
	}
	// A model run that kills wbsctl or injects faults is not always
	// replayed alike: rapid then reports a failure it could not shrink,
	// with the check that failed first. Without the guard the model
	// failed; that is what is asked.
	if m := regexp.MustCompile(`(?s)\[rapid\] flaky test, can not reproduce a failure.*Original traceback \((.*?)\):`).FindStringSubmatch(out); m != nil {
		return result{found: fmt.Sprintf("found by a run rapid could not replay (%.0f s): %s", took.Seconds(), modelReason(m[1]))}
	}
	return result{problem: "the test failed, but not in the model's checks:", output: out}
}

// modelReason is the model's message, without the command line it names
// and the files, cut to 100 characters.
func modelReason(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	reason := regexp.MustCompile(` *\(?\[apply [^\]]*\]\)?:? *`).ReplaceAllString(msg, " ")
	reason = strings.TrimSpace(reason)
	if r := []rune(reason); len(r) > 100 {
		reason = string(r[:100])
	}
	return reason
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
