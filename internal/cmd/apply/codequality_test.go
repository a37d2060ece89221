package apply_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// gitLabIssue is an issue of a Code Quality report as GitLab reads it.
type gitLabIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

// runCodeQuality runs apply -f file --codequality, stdin holding stdin and
// extra added, and returns the report's issues, decoded as GitLab decodes
// them, the report and stderr. The file must have problems.
func runCodeQuality(t *testing.T, srv *wbstest.Server, stdin, file string, extra ...string) ([]gitLabIssue, string, string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "gl-code-quality-report.json")
	args := append([]string{"apply", "-f", file, "--rate", "0", "--codequality", report}, extra...)
	code, _, errOut := run(t, srv, stdin, args...)
	if code != cmdutil.ExitValidation {
		t.Fatalf("exit %d, want %d: %s", code, cmdutil.ExitValidation, errOut)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var issues []gitLabIssue
	if err := json.Unmarshal(b, &issues); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if len(issues) == 0 {
		t.Fatalf("no issue in the report of a file with problems:\n%s", b)
	}
	return issues, string(b), errOut
}

// jobClone is a clone as a CI job has it: root/wbs/elements.csv, a
// file with two problems, and a file of the same content outside it.
type jobClone struct {
	root, outside string
}

const twoProblemsCSV = "wbsElementCode,isActive\nA-1,maybe\nA-2,sometimes\n"

func newJobClone(t *testing.T) jobClone {
	t.Helper()
	r := jobClone{root: t.TempDir(), outside: t.TempDir()}
	if err := os.Mkdir(filepath.Join(r.root, "wbs"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmdtest.WriteFile(t, filepath.Join(r.root, "wbs"), "elements.csv", twoProblemsCSV)
	cmdtest.WriteFile(t, r.outside, "elements.csv", twoProblemsCSV)
	return r
}

// in is s with {root} and {outside} made r's folders, and {outside-name}
// the name of the outside one, with forward slashes.
func (r jobClone) in(s string) string {
	return strings.NewReplacer("{root}", filepath.ToSlash(r.root), "{outside}", filepath.ToSlash(r.outside),
		"{outside-name}", filepath.Base(r.outside)).Replace(s)
}

// run runs apply -f file --codequality in the working directory cwd,
// with CI_PROJECT_DIR projectDir, each written as in.
func (r jobClone) run(t *testing.T, srv *wbstest.Server, cwd, projectDir, file string) ([]gitLabIssue, string) {
	t.Helper()
	t.Setenv("CI_PROJECT_DIR", filepath.FromSlash(r.in(projectDir)))
	t.Chdir(filepath.FromSlash(r.in(cwd)))
	issues, report, _ := runCodeQuality(t, srv, "", filepath.FromSlash(r.in(file)))
	return issues, report
}

// location.path is the file's path in the repository, as GitLab names
// the files of a merge request: relative to CI_PROJECT_DIR, or the
// working directory without it, cleaned, with forward slashes and no
// "./"; a file outside keeps its path as given, cleaned; stdin is "-".
func TestCodeQualityPathIsTheRepositorysPath(t *testing.T) {
	srv := wbstest.Start(t)
	tests := []struct {
		name string
		// The working directory, CI_PROJECT_DIR ("" for none) and -f.
		cwd, projectDir, file string
		want                  string
	}{
		{"./ in the root", "{root}", "{root}", "./wbs/elements.csv", "wbs/elements.csv"},
		{"relative in the root", "{root}", "{root}", "wbs/elements.csv", "wbs/elements.csv"},
		{"absolute", "{root}", "{root}", "{root}/wbs/elements.csv", "wbs/elements.csv"},
		{"unclean", "{root}", "{root}", "wbs//./elements.csv", "wbs/elements.csv"},
		{"from a folder of the repository", "{root}/wbs", "{root}", "elements.csv", "wbs/elements.csv"},
		{"out and back in", "{root}/wbs", "{root}", "../wbs/elements.csv", "wbs/elements.csv"},
		{"CI_PROJECT_DIR over the working directory", "{outside}", "{root}", "{root}/wbs/elements.csv", "wbs/elements.csv"},
		{"no CI_PROJECT_DIR: the working directory", "{root}", "", "./wbs/elements.csv", "wbs/elements.csv"},
		{"no CI_PROJECT_DIR, from a folder", "{root}/wbs", "", "./elements.csv", "elements.csv"},
		{"outside, absolute", "{root}", "{root}", "{outside}/elements.csv", "{outside}/elements.csv"},
		{"outside, relative", "{root}", "{root}", "./../{outside-name}/elements.csv", "../{outside-name}/elements.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newJobClone(t)
			issues, report := r.run(t, srv, tt.cwd, tt.projectDir, tt.file)
			for _, is := range issues {
				if want := r.in(tt.want); is.Location.Path != want {
					t.Fatalf("-f %s: location.path %q, want %q:\n%s", r.in(tt.file), is.Location.Path, want, report)
				}
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		r := newJobClone(t)
		// From a folder, where a path made of "-" would be "wbs/-".
		t.Setenv("CI_PROJECT_DIR", r.root)
		t.Chdir(filepath.Join(r.root, "wbs"))
		issues, report, _ := runCodeQuality(t, srv, twoProblemsCSV, "-", "--format", "csv")
		for _, is := range issues {
			if is.Location.Path != "-" {
				t.Fatalf("-f -: location.path %q, want \"-\":\n%s", is.Location.Path, report)
			}
		}
	})
}

// Every spelling of one file gives the same fingerprints, so that GitLab
// tells a problem fixed from one still there whoever ran the job; the
// same problems in another file give others.
func TestCodeQualityFingerprintIsOfThePathInTheRepository(t *testing.T) {
	srv := wbstest.Start(t)
	tests := []struct {
		name                  string
		cwd, projectDir, file string
		// same says whether the fingerprints are those of
		// wbs/elements.csv.
		same bool
	}{
		{"wbs/elements.csv", "{root}", "{root}", "wbs/elements.csv", true},
		{"./wbs/elements.csv", "{root}", "{root}", "./wbs/elements.csv", true},
		{"absolute", "{root}", "{root}", "{root}/wbs/elements.csv", true},
		{"from its folder", "{root}/wbs", "{root}", "elements.csv", true},
		{"no CI_PROJECT_DIR", "{root}", "", "./wbs/elements.csv", true},
		{"another file of the same content", "{root}", "{root}", "{outside}/elements.csv", false},
	}
	var first []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A clone of its own each time: the fingerprint is of the
			// path in the repository, so a clone anywhere gives the same.
			r := newJobClone(t)
			issues, report := r.run(t, srv, tt.cwd, tt.projectDir, tt.file)
			var got []string
			for _, is := range issues {
				got = append(got, is.Fingerprint)
			}
			if len(got) != 2 || got[0] == got[1] {
				t.Fatalf("fingerprints %q, want two, each once:\n%s", got, report)
			}
			if first == nil {
				first = got
			}
			if same := slices.Equal(got, first); same != tt.same {
				t.Fatalf("-f %s: fingerprints %q, those of wbs/elements.csv %q: same %v, want %v", r.in(tt.file), got, first, same, tt.same)
			}
		})
	}
}

// A description is the problem as stderr shows it, escaped as a terminal
// escapes text: no escape sequence, newline, bidi control or invisible
// character of the file reaches GitLab's page as it is.
func TestCodeQualityDescriptionIsEscaped(t *testing.T) {
	srv := wbstest.Start(t)
	tests := []struct {
		name, file, content string
		// escaped is the file's text as the description must show it.
		escaped string
	}{
		{"escape sequence in a CSV header", "e.csv", "wbsElementCode,\"x\x1b[2Jy\"\nA-1,z\n", `x\x1b[2Jy`},
		{"bidi override in a CSV header", "b.csv", "wbsElementCode,\"evil\u202ecsv.exe\"\nA-1,z\n", `evil\u202ecsv.exe`},
		{"newline in a CSV header", "n.csv", "wbsElementCode,\"two\r\nlines\"\nA-1,z\n", `two\nlines`},
		{"line separator in a JSON member", "l.json", `[{"wbsElementCode": "A-1", "a\u2028b": 1}]`, `a\u2028b`},
		{"zero-width space in a YAML member", "z.yaml", "- wbsElementCode: A-1\n  \"a\\u200bb\": 1\n", `a\u200bb`},
		{"bell in an NDJSON member", "a.ndjson", `{"wbsElementCode": "A-1", "a\u0007b": 1}` + "\n", `a\ab`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := cmdtest.WriteFile(t, t.TempDir(), tt.file, tt.content)
			issues, report, errOut := runCodeQuality(t, srv, "", file)
			found := false
			for _, is := range issues {
				if is.Description != output.Escape(is.Description) {
					t.Errorf("description %q holds what a terminal would act on or not show:\n%s", is.Description, report)
				}
				if !slices.Contains(strings.Split(errOut, "\n"), is.Description) {
					t.Errorf("description %q is not the problem as stderr shows it:\n%s", is.Description, errOut)
				}
				found = found || strings.Contains(is.Description, tt.escaped)
			}
			if !found {
				t.Errorf("no description shows %s:\n%s", tt.escaped, report)
			}
		})
	}
}

// A check name is one of a fixed set, one a kind of problem, made of the
// kind alone: a member or column named by the file, however hostile,
// does not become one.
func TestCodeQualityCheckNames(t *testing.T) {
	// The check names a report holds (annotate.go's check constants).
	checkNames := []string{
		"wbsctl/invalid-encoding", "wbsctl/invalid-syntax", "wbsctl/invalid-workbook", "wbsctl/no-records",
		"wbsctl/unknown-member", "wbsctl/duplicate-member", "wbsctl/missing-value", "wbsctl/invalid-value",
		"wbsctl/too-long", "wbsctl/control-character", "wbsctl/duplicate-code", "wbsctl/invalid-record",
	}
	srv := wbstest.Start(t)
	tests := []struct {
		name, file, content string
		extra               []string
		// want are the check names of the issues, in the report's order.
		want []string
	}{
		{"unknown CSV column", "a.csv", "wbsElementCode,\"desc\u202e\x1b[2J\"\nA-1,x\n", nil, []string{"wbsctl/unknown-member"}},
		{"CSV column given twice", "b.csv", "wbsElementCode,description, Description\nA-1,x,y\n", nil, []string{"wbsctl/duplicate-member"}},
		{"CSV header without code", "c.csv", "description\nx\n", nil, []string{"wbsctl/missing-value"}},
		{"empty code", "d.csv", "wbsElementCode,description\n,x\n", nil, []string{"wbsctl/missing-value"}},
		{"code given twice", "e.csv", "wbsElementCode\nA-1\nA-1\n", nil, []string{"wbsctl/duplicate-code"}},
		{"description too long", "f.csv", "wbsElementCode,description\nA-1," + strings.Repeat("d", 101) + "\n", nil, []string{"wbsctl/too-long"}},
		{"control character", "g.csv", "wbsElementCode,description\nA-1,\"a\x1bb\"\n", nil, []string{"wbsctl/control-character"}},
		{"CSV boolean", "h.csv", "wbsElementCode,isActive\nA-1,maybe\n", nil, []string{"wbsctl/invalid-value"}},
		{"CSV organizations", "i.csv", "wbsElementCode,businessOrganizations\nA-1,\"unknown member\"\n", nil, []string{"wbsctl/invalid-value"}},
		{"CSV row of other cells", "j.csv", "wbsElementCode,description\nA-1,x,y\n", nil, []string{"wbsctl/invalid-syntax"}},
		{"no records", "k.csv", "wbsElementCode\n", nil, []string{"wbsctl/no-records"}},
		{"not UTF-8", "l.csv", "wbsElementCode,description\nA-1,caf\xe9\n", nil, []string{"wbsctl/invalid-encoding"}},
		{"no character of windows-1252", "m.csv", "wbsElementCode,description\nA-1,\x81\n", []string{"--encoding", "windows-1252"}, []string{"wbsctl/invalid-encoding"}},
		{"unknown JSON member", "n.json", `[{"wbsElementCode": "A-1", "x\u202e\n": 1}]`, nil, []string{"wbsctl/unknown-member"}},
		{"JSON member given twice", "o.json", `[{"wbsElementCode": "A-1", "description": "a", "description": "b"}]`, nil, []string{"wbsctl/duplicate-member"}},
		{"JSON record without code", "p.json", `[{"description": "a"}]`, nil, []string{"wbsctl/missing-value"}},
		{"JSON type", "q.json", `[{"wbsElementCode": "A-1", "isActive": "yes"}]`, nil, []string{"wbsctl/invalid-value"}},
		{"invalid JSON", "r.json", `[{"wbsElementCode": "A-1",]`, nil, []string{"wbsctl/invalid-syntax"}},
		{"unknown YAML member", "s.yaml", "- wbsElementCode: A-1\n  \"given more than once\": 1\n", nil, []string{"wbsctl/unknown-member"}},
		{"YAML boolean as text", "t.yaml", "- wbsElementCode: A-1\n  isActive: \"yes\"\n", nil, []string{"wbsctl/invalid-value"}},
		{"invalid YAML", "u.yaml", "- wbsElementCode: [A-1\n", nil, []string{"wbsctl/invalid-syntax"}},
		{"not a workbook", "v.xlsx", "wbsElementCode\nA-1\n", nil, []string{"wbsctl/invalid-workbook"}},
	}
	// Every name but the fallback has a case below: a kind the table
	// leaves out is a kind whose reading of the messages is untested.
	shown := map[string]bool{"wbsctl/invalid-record": true}
	for _, tt := range tests {
		for _, name := range tt.want {
			shown[name] = true
		}
	}
	for _, name := range checkNames {
		if !shown[name] {
			t.Errorf("no case of %s", name)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := cmdtest.WriteFile(t, t.TempDir(), tt.file, tt.content)
			issues, report, _ := runCodeQuality(t, srv, "", file, tt.extra...)
			var got []string
			for _, is := range issues {
				if !slices.Contains(checkNames, is.CheckName) {
					t.Errorf("check_name %q is none of %q:\n%s", is.CheckName, checkNames, report)
				}
				got = append(got, is.CheckName)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("check names %q, want %q:\n%s", got, tt.want, report)
			}
		})
	}
}

// The report of a file with problems of many kinds and hostile text, as
// GitLab reads it, with the file named as a job in the repository's root
// names it.
func TestCodeQualityReportGolden(t *testing.T) {
	srv := wbstest.Start(t)
	var report string
	// In a subtest, whose end puts the working directory back for golden.
	ran := t.Run("in the root", func(t *testing.T) {
		r := newJobClone(t)
		cmdtest.WriteFile(t, filepath.Join(r.root, "wbs"), "hostile.csv",
			"wbsElementCode,description,isActive,\"note\u202e\x1b]8;;http://evil.example\x07\"\n"+
				"A-1,ok,true,\n"+
				"A-1,again,true,\n"+
				"A-2,\"two\nlines\",maybe,\n"+
				"A-3,"+strings.Repeat("d", 101)+",,\n")
		_, report = r.run(t, srv, "{root}", "{root}", "./wbs/hostile.csv")
	})
	if ran {
		golden(t, "codequality/hostile.json.golden", report)
	}
}
