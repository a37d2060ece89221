package docscheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestInstallStatesTheSDKsGoSum builds a program that imports sdk and
// sdk/wbstest, as a user's program would (wbsctl replaced by this tree,
// every module from the module cache: no network), and holds the
// paragraph of docs/install.md that names go.sum to what `go mod tidy`
// wrote in the program's go.sum: how many modules, which, and how many of
// them the program builds with.
func TestInstallStatesTheSDKsGoSum(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with go mod tidy")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	goVersion := goLine(t, filepath.Join(abs, "go.mod"))
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", fmt.Sprintf("module example.com/program\n\ngo %s\n\nrequire github.com/wbsctl/wbsctl v0.1.0\n\nreplace github.com/wbsctl/wbsctl => %s\n", goVersion, abs))
	write("main.go", `package main

import (
	"fmt"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func main() {
	srv := wbstest.NewServer()
	defer srv.Close()
	client, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	fmt.Println(client, err)
}
`)
	run := func(args ...string) string {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s\n(the modules come from the module cache: `go mod download` in the repository fills it)",
				strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	// With go.sum as tidy wrote it: a build that needed another module
	// (a go.mod of the tool's dependencies) would fail on its missing sum.
	run("build", "-mod=readonly", "-o", os.DevNull, ".")
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var inSum []string
	for l := range strings.Lines(string(sum)) {
		if f := strings.Fields(l); len(f) > 0 && !slices.Contains(inSum, f[0]) {
			inSum = append(inSum, f[0])
		}
	}
	var built []string
	for l := range strings.Lines(run("list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", ".")) {
		if p := strings.TrimSpace(l); p != "" && p != "github.com/wbsctl/wbsctl" && !slices.Contains(built, p) {
			built = append(built, p)
		}
	}
	slices.Sort(inSum)
	slices.Sort(built)
	var testsOnly []string
	for _, p := range inSum {
		if !slices.Contains(built, p) {
			testsOnly = append(testsOnly, p)
		}
	}
	t.Logf("go.sum: %d modules %v; built with %d %v; for the SDK's tests %v", len(inSum), inSum, len(built), built, testsOnly)

	para := installParagraph(t, "go.sum")
	for _, want := range []string{
		fmt.Sprintf("%s modules in its `go.sum`", number(len(inSum))),
		fmt.Sprintf("builds with %s", number(len(built))),
	} {
		if !strings.Contains(para, want) {
			t.Errorf("docs/install.md does not say %q; the paragraph:\n%s", want, para)
		}
	}
	for _, p := range inSum {
		if !strings.Contains(para, "`"+p+"`") {
			t.Errorf("docs/install.md does not name `%s`, which a program's go.sum holds", p)
		}
	}
	named := regexp.MustCompile("`((?:[a-z0-9-]+\\.)+[a-z]+/[^`]+)`").FindAllStringSubmatch(para, -1)
	for _, m := range named {
		if !slices.Contains(inSum, m[1]) && m[1] != "github.com/wbsctl/wbsctl" {
			t.Errorf("docs/install.md names `%s`, which a program's go.sum does not hold", m[1])
		}
	}
	if len(testsOnly) > 0 && !strings.Contains(para, "go test all") {
		t.Errorf("docs/install.md does not say why %v, which the program does not build with, are in its go.sum", testsOnly)
	}
}

// goLine is the version of the go directive of a go.mod.
func goLine(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no go directive", path)
	return ""
}

// installParagraph is the paragraph of docs/install.md that holds word,
// its lines joined.
func installParagraph(t *testing.T, word string) string {
	b, err := os.ReadFile(filepath.Join(repo, "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(string(b), "\n\n") {
		if strings.Contains(p, word) {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	t.Fatalf("docs/install.md has no paragraph with %q", word)
	return ""
}

func number(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}

// The examples the pages name are where the pages say: a file of the
// repository named in a code span beside them defines them.
func TestNamedExamplesAreThere(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	pages = append(pages, filepath.Join(repo, "README.md"))
	example := regexp.MustCompile("`(Example[A-Za-z0-9_]*)`")
	file := regexp.MustCompile("`([A-Za-z0-9_./-]+_test\\.go)`")
	found := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, para := range strings.Split(string(b), "\n\n") {
			para = strings.Join(strings.Fields(para), " ")
			names := example.FindAllStringSubmatch(para, -1)
			if len(names) == 0 {
				continue
			}
			files := file.FindAllStringSubmatch(para, -1)
			if len(files) == 0 {
				t.Errorf("%s names %s but not the file that holds it: %s", p, names[0][1], para)
				continue
			}
			var text string
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(repo, f[1]))
				if err != nil {
					t.Errorf("%s points to %s: %v", p, f[1], err)
				}
				text += string(b)
			}
			for _, n := range names {
				found++
				if !strings.Contains(text, "func "+n[1]+"(") {
					t.Errorf("%s names %s in %v, which do not define it", p, n[1], files)
				}
			}
		}
	}
	if found == 0 {
		t.Error("no page names an example: docs/install.md names ExampleWithHTTPClient")
	}
}
