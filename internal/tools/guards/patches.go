package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The two folders of guard patches, from the repository's root.
const (
	// modelDir holds apply's guards, which the model test finds taken
	// out (internal/cmd/apply/GUARDS.md); its patches have no headers.
	modelDir = "internal/cmd/apply/testdata/guards"
	// rootDir holds the guards outside apply's model (GUARDS.md), each
	// with the test that fails without it in its headers.
	rootDir = "testdata/guards"
)

// The model test, which every patch of modelDir is run against.
const (
	modelPkg  = "./internal/cmd/apply"
	modelTest = "TestApplyModel"
)

// Patch is one guard's removal: a diff of a one-line mutation.
type Patch struct {
	// Name is the file's name without .patch, such as
	// "17-state-of-another-base-url"; Number is its leading number.
	Name, Number string
	// Path is the patch's path from the root, with slashes.
	Path string
	// Model marks apply's guards, found by the model test.
	Model bool
	// Guard says what the guard does (the Guard: header).
	Guard string
	// Pkg and Test name the test that fails without the guard (the
	// Test: header): a package path from the root, such as
	// ./internal/engine, and a top-level test's name.
	Pkg, Test string
	// Hunks are the lines each hunk expects in the code.
	Hunks []Hunk
	// Text is the whole patch.
	Text string
}

// Hunk is what a hunk of a patch expects to find: its context and the
// lines it removes, in order, in File.
type Hunk struct {
	File  string
	Lines []string
}

var (
	nameRE = regexp.MustCompile(`^([0-9]{2,})-[a-z0-9]+(-[a-z0-9]+)*$`)
	pkgRE  = regexp.MustCompile(`^\./[A-Za-z0-9_./-]+$`)
	testRE = regexp.MustCompile(`^Test[A-Z0-9_][A-Za-z0-9_]*$`)
)

// loadPatches reads the patches of both folders under root, apply's
// first, each in the order of its name.
func loadPatches(root string) ([]*Patch, error) {
	var out []*Patch
	for _, dir := range []string{modelDir, rootDir} {
		files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.patch"))
		if err != nil {
			return nil, err
		}
		slices.Sort(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			p, err := parsePatch(dir+"/"+filepath.Base(f), string(b), dir == modelDir)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// parsePatch reads a patch: for a root guard, its header lines (Guard:
// and Test:) before the diff, which git apply passes over; then the
// diff's hunks.
func parsePatch(path, text string, model bool) (*Patch, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".patch")
	p := &Patch{Name: name, Path: path, Model: model, Text: text}
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("%s: name a guard NN-words-with-dashes", path)
	}
	p.Number = m[1]
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	i := 0
	for ; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "diff --git ") || strings.HasPrefix(line, "--- ") {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s:%d: a header line before the diff is Name: value, not %q", path, i+1, line)
		case key == "Guard" && p.Guard == "":
			p.Guard = value
		case key == "Test" && p.Test == "":
			pkg, test, _ := strings.Cut(value, " ")
			p.Pkg, p.Test = pkg, strings.TrimSpace(test)
		default:
			return nil, fmt.Errorf("%s:%d: header %q: want Guard: and Test:, once each", path, i+1, key)
		}
	}
	if model {
		if p.Guard != "" || p.Test != "" {
			return nil, fmt.Errorf("%s: apply's guards are found by %s; their table is internal/cmd/apply/GUARDS.md", path, modelTest)
		}
		p.Pkg, p.Test = modelPkg, modelTest
	}
	var h *Hunk
	file := ""
	for ; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "--- "):
			f, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(line, "--- ")), "a/")
			if !ok {
				return nil, fmt.Errorf("%s:%d: want --- a/PATH", path, i+1)
			}
			if tab := strings.IndexByte(f, '\t'); tab >= 0 {
				f = f[:tab] // diff -u without --label adds the time
			}
			file, h = f, nil
		case strings.HasPrefix(line, "diff --git "):
			h = nil
		case strings.HasPrefix(line, "@@"):
			if file == "" {
				return nil, fmt.Errorf("%s:%d: a hunk before its file", path, i+1)
			}
			p.Hunks = append(p.Hunks, Hunk{File: file})
			h = &p.Hunks[len(p.Hunks)-1]
		case h == nil:
			// +++ b/PATH, and git's extended headers (index, mode).
		case h != nil && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "-")):
			h.Lines = append(h.Lines, line[1:])
		case h != nil && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, `\`)):
		case h != nil && line == "":
			// An empty context line whose blank an editor took off.
			h.Lines = append(h.Lines, "")
		default:
			return nil, fmt.Errorf("%s:%d: %q is no line of a unified diff", path, i+1, line)
		}
	}
	if len(p.Hunks) == 0 {
		return nil, fmt.Errorf("%s has no hunk", path)
	}
	return p, nil
}

// check says what is wrong with a root patch's headers; nil for apply's.
func (p *Patch) check() error {
	if p.Model {
		return nil
	}
	var errs []error
	if p.Guard == "" {
		errs = append(errs, errors.New("no Guard: line says what the guard does"))
	}
	if !pkgRE.MatchString(p.Pkg) || !testRE.MatchString(p.Test) {
		errs = append(errs, fmt.Errorf("Test: %q %q: want Test: ./PACKAGE TestName", p.Pkg, p.Test))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", p.Path, err)
	}
	return nil
}

// selectPatches keeps the patches whose names start with one of
// prefixes; all of them without any.
func selectPatches(all []*Patch, prefixes []string) []*Patch {
	if len(prefixes) == 0 {
		return all
	}
	var out []*Patch
	for _, p := range all {
		for _, want := range prefixes {
			if strings.HasPrefix(p.Name, want) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// findRoot returns the module's root: the folder of go.mod, from dir up.
func findRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod here or above")
		}
		dir = parent
	}
}
