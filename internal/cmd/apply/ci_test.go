package apply_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// renderGFM renders Markdown as GitHub does its tables, links, autolinks
// and strikethrough (goldmark's GFM extensions), and parses the HTML.
func renderGFM(t *testing.T, md string) *html.Node {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// walk yields every node below n.
func walk(n *html.Node, visit func(*html.Node)) {
	visit(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

// hostileMarkdown is what a description could hold to change the page it
// is shown on: a cell break, backticks, HTML, an image, a link, an
// autolink, a mention of a person and of a team, emphasis.
var hostileMarkdown = []string{
	"a | b | c", "``` fence", "`tick` and ``two``", "<script>alert(1)</script>", "<img src=x onerror=y>",
	"![x](http://evil.example/x.png)", "[click](http://evil.example)", "http://evil.example/auto",
	"@someone please", "cc @org/team", "**bold** _em_ ~~gone~~", "\\| escaped", "`", "ends with `",
}

// A dry run in Markdown renders, by a GFM renderer, as one table of a row
// a change and four columns, and no text of the file becomes a cell
// break, HTML, an image, a link or a mention: every description is in a
// code span, whole.
func TestMarkdownPlanShowsFileTextAsText(t *testing.T) {
	srv := wbstest.Start(t)
	var csv strings.Builder
	csv.WriteString("wbsElementCode,description\n")
	for i, d := range hostileMarkdown {
		fmt.Fprintf(&csv, "H-%d,\"%s\"\n", i, strings.ReplaceAll(d, `"`, `""`))
	}
	file := cmdtest.WriteFile(t, t.TempDir(), "h.csv", csv.String())
	code, out, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "-o", "markdown", "--rate", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc := renderGFM(t, out)
	var tables, rows int
	var cells []int
	var codes []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "table":
			tables++
		case "tr":
			rows++
			k := 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
					k++
				}
			}
			cells = append(cells, k)
		case "code":
			var b strings.Builder
			walk(n, func(c *html.Node) {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			})
			codes = append(codes, b.String())
		case "script", "img", "a", "strong", "em", "del":
			t.Errorf("data became <%s>:\n%s", n.Data, out)
		}
	})
	if tables != 1 || rows != len(hostileMarkdown)+1 {
		t.Fatalf("%d tables, %d rows; want 1 table of %d rows:\n%s", tables, rows, len(hostileMarkdown)+1, out)
	}
	for i, k := range cells {
		if k != 4 {
			t.Errorf("row %d has %d cells, want 4:\n%s", i, k, out)
		}
	}
	// Every description is shown whole, in a code span.
	for _, d := range hostileMarkdown {
		found := false
		for _, c := range codes {
			found = found || strings.Contains(c, fmt.Sprintf("%q", d)[1:len(fmt.Sprintf("%q", d))-1])
		}
		if !found {
			t.Errorf("%q is not shown whole in a code span; code spans: %q", d, codes)
		}
	}
	// A mention is made of an @ in text; every @ is in a code span.
	var text strings.Builder
	walk(doc, func(n *html.Node) {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "code") {
			text.WriteString(n.Data)
		}
	})
	if strings.Contains(text.String(), "@") {
		t.Errorf("an @ outside a code span could mention someone: %q", text.String())
	}
}

// A plan of 20,000 changes stays within what a pull-request comment holds
// (65,536 characters): the first rows, then how many more there are, and
// where all of them are.
func TestMarkdownOfALargePlanFitsAComment(t *testing.T) {
	srv := wbstest.Start(t)
	file := largePlanFile(t)
	code, out, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "-o", "markdown", "--rate", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(out) > 65_536 || !strings.Contains(out, "more changes, left out to keep this page short") {
		t.Fatalf("%d characters; the end: %q", len(out), out[max(0, len(out)-300):])
	}
	rows := 0
	walk(renderGFM(t, out), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" {
			rows++
		}
	})
	if rows < 100 || !strings.Contains(out, fmt.Sprintf("…and %d more changes", 20_000-(rows-1))) {
		t.Fatalf("%d rows shown, and: %q", rows-1, out[max(0, len(out)-300):])
	}
}

// GITHUB_STEP_SUMMARY receives the plan of a dry run and the results of a
// run, appended, unless turned off; -o stays what the user asked.
func TestStepSummary(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description\nS-1,one\n")
	summary := filepath.Join(dir, "summary.md")
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
	if res := (cmdtest.Run{Env: env}).Do(t, srv, "apply", "-f", file, "--dry-run", "--rate", "0"); res.Code != 0 || strings.Contains(res.Out, "###") {
		t.Fatalf("dry run: exit %d, out %q: %s", res.Code, res.Out, res.ErrOut)
	}
	if res := (cmdtest.Run{Env: env}).Do(t, srv, "apply", "-f", file, "--rate", "0"); res.Code != 0 {
		t.Fatalf("apply: exit %d: %s", res.Code, res.ErrOut)
	}
	b, _ := os.ReadFile(summary)
	if !strings.Contains(string(b), "### wbsctl plan: 1 to create") || !strings.Contains(string(b), "### wbsctl apply: create: 1 ok") || !strings.Contains(string(b), "`S-1`") {
		t.Fatalf("summary:\n%s", b)
	}
	os.Remove(summary)
	for _, off := range []cmdtest.Run{{Env: map[string]string{"GITHUB_STEP_SUMMARY": summary, "WBSCTL_NO_STEP_SUMMARY": "1"}}, {Env: env}} {
		args := []string{"apply", "-f", file, "--dry-run", "--rate", "0"}
		if off.Env["WBSCTL_NO_STEP_SUMMARY"] == "" {
			args = append(args, "--no-step-summary")
		}
		if res := off.Do(t, srv, args...); res.Code != 0 {
			t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
		}
		if _, err := os.Stat(summary); err == nil {
			t.Fatalf("%v: the summary was written though turned off", args)
		}
	}
}

// On GitHub Actions, each problem of the file is also a workflow command
// on its own line of the file, escaped so that the file's text can
// neither end the command nor start another.
func TestProblemsAsWorkflowCommands(t *testing.T) {
	srv := wbstest.Start(t)
	file := cmdtest.WriteFile(t, t.TempDir(), "bad,name:x.csv", "wbsElementCode,isActive,description\n"+
		"A-1,maybe,x\n"+
		"A-2,true,\"50%\n::warning::injected\"\n"+
		"A-3,true,"+strings.Repeat("d", 101)+"\n")
	res := cmdtest.Run{Env: map[string]string{"GITHUB_ACTIONS": "true"}}.Do(t, srv, "apply", "-f", file, "--rate", "0")
	if res.Code != cmdutil.ExitValidation {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
	var commands []string
	for _, l := range strings.Split(res.ErrOut, "\n") {
		if strings.HasPrefix(l, "::") {
			commands = append(commands, l)
		}
	}
	prop := strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C").Replace(file)
	if len(commands) != 3 {
		t.Fatalf("%d workflow commands, want 3:\n%s", len(commands), res.ErrOut)
	}
	for i, line := range []int{2, 3, 5} { // A-2's cell runs over two lines
		want := fmt.Sprintf("::error file=%s,line=%d,title=wbsctl apply::", prop, line)
		if !strings.HasPrefix(commands[i], want) {
			t.Errorf("command %d: %q, want it to start %q", i, commands[i], want)
		}
		if strings.Count(commands[i], "::") != 2 {
			t.Errorf("command %d holds another command: %q", i, commands[i])
		}
	}
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", file, "--rate", "0"); strings.Contains(res.ErrOut, "::error") {
		t.Errorf("workflow commands outside GitHub Actions:\n%s", res.ErrOut)
	}
}

// A saved plan is shown by a reviewer who has no credentials: nothing is
// sent, and the plan's platform is named.
func TestSavedPlanShownWithoutCredentials(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "f.csv", "wbsElementCode,description\nR-1,review me\n")
	plan := filepath.Join(dir, "p.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	before := len(srv.Journal())
	res := cmdtest.Run{Env: map[string]string{"WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": "", "WBSCTL_BASE_URL": ""}}.Do(t, srv,
		"apply", "--plan", plan, "--dry-run", "-o", "markdown")
	if res.Code != 0 || !strings.Contains(res.Out, "`R-1`") || !strings.Contains(res.ErrOut, "the plan is shown as saved, for "+srv.URL) || len(srv.Journal()) != before {
		t.Fatalf("exit %d, %d requests: %s\n%s", res.Code, len(srv.Journal())-before, res.Out, res.ErrOut)
	}
	// Carrying it out still needs them.
	res = cmdtest.Run{Env: map[string]string{"WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": "", "WBSCTL_BASE_URL": ""}}.Do(t, srv, "apply", "--plan", plan)
	if res.Code != cmdutil.ExitAuth {
		t.Fatalf("--plan without credentials: exit %d: %s", res.Code, res.ErrOut)
	}
}

// A CI job reads the problems of a file as data: with -o json the error
// names the file and each problem with its line (or cell), code, field
// and message; with --skip-invalid the report's line of each record left
// out carries its problems.
func TestProblemsAsData(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := cmdtest.WriteFile(t, dir, "bad.csv", "wbsElementCode,isActive,description\nA-1,maybe,x\nA-2,true,ok\nA-3,true,"+strings.Repeat("d", 101)+"\n")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "-o", "json")
	start := strings.Index(errOut, "{")
	var doc struct {
		ExitCode int    `json:"exitCode"`
		File     string `json:"file"`
		Problems []struct {
			Line    int    `json:"line"`
			Code    string `json:"wbsElementCode"`
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"problems"`
	}
	if code != cmdutil.ExitValidation || start < 0 || json.Unmarshal([]byte(errOut[start:]), &doc) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if doc.ExitCode != 5 || doc.File != file || len(doc.Problems) != 2 ||
		doc.Problems[0].Line != 2 || doc.Problems[0].Code != "A-1" || doc.Problems[0].Field != "isActive" || !strings.Contains(doc.Problems[0].Message, `"maybe" is not a boolean`) ||
		doc.Problems[1].Line != 4 || doc.Problems[1].Field != "description" {
		t.Fatalf("%+v", doc)
	}

	report := filepath.Join(dir, "r.ndjson")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--skip-invalid", "--report", report); code != cmdutil.ExitPartial {
		t.Fatalf("--skip-invalid: exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(report)
	var left []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		json.Unmarshal([]byte(line), &r)
		if r["status"] == "invalid" {
			left = append(left, r)
		}
	}
	if len(left) != 2 {
		t.Fatalf("%d records left out in the report:\n%s", len(left), b)
	}
	for _, r := range left {
		ps, _ := r["problems"].([]any)
		if len(ps) != 1 || ps[0].(map[string]any)["field"] == nil || ps[0].(map[string]any)["message"] == nil {
			t.Errorf("%v: no problem with field and message", r)
		}
	}
}

// codeQualitySchema is the GitLab Code Quality report as GitLab's
// documentation gives it: an array of issues, each with a description,
// check_name, fingerprint, severity and location (path and lines.begin).
const codeQualitySchema = `{
  "type": "array",
  "items": {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
      "description": {"type": "string", "minLength": 1},
      "check_name": {"type": "string", "minLength": 1},
      "fingerprint": {"type": "string", "minLength": 1},
      "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
      "location": {
        "type": "object",
        "required": ["path", "lines"],
        "properties": {
          "path": {"type": "string", "minLength": 1},
          "lines": {"type": "object", "required": ["begin"], "properties": {"begin": {"type": "integer", "minimum": 1}}}
        }
      }
    }
  }
}`

// --codequality writes the file's problems as a GitLab Code Quality
// report that GitLab's format accepts: three problems, three issues on
// their lines, fingerprints each once; a good file, an empty list.
func TestCodeQualityReport(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	bad := cmdtest.WriteFile(t, dir, "bad.csv", "wbsElementCode,isActive,description\nA-1,maybe,x\nA-2,true,ok\nA-3,true,"+strings.Repeat("d", 101)+"\nA-4,sometimes,y\n")
	report := filepath.Join(dir, "gl-code-quality-report.json")
	if code, _, errOut := run(t, srv, "", "apply", "-f", bad, "--rate", "0", "--codequality", report); code != cmdutil.ExitValidation {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	c := jsonschema.NewCompiler()
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(codeQualitySchema))
	if err := c.AddResource("cq.json", doc); err != nil {
		t.Fatal(err)
	}
	schema := c.MustCompile("cq.json")
	b, _ := os.ReadFile(report)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var issues []struct {
		Fingerprint string `json:"fingerprint"`
		Location    struct {
			Path  string              `json:"path"`
			Lines struct{ Begin int } `json:"lines"`
		} `json:"location"`
	}
	json.Unmarshal(b, &issues)
	seen, lines := map[string]bool{}, map[int]bool{}
	for _, is := range issues {
		if is.Location.Path != bad || seen[is.Fingerprint] {
			t.Fatalf("%+v:\n%s", is, b)
		}
		seen[is.Fingerprint], lines[is.Location.Lines.Begin] = true, true
	}
	if len(issues) != 3 || !lines[2] || !lines[4] || !lines[5] {
		t.Fatalf("issues on lines %v, want 2, 4 and 5:\n%s", lines, b)
	}
	good := cmdtest.WriteFile(t, dir, "good.csv", "wbsElementCode\nG-1\n")
	if code, _, errOut := run(t, srv, "", "apply", "-f", good, "--rate", "0", "--dry-run", "--codequality", report); code != 0 {
		t.Fatalf("good file: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(report); strings.TrimSpace(string(b)) != "[]" {
		t.Fatalf("a good file's report: %s", b)
	}
}

// The demo's own file in Markdown: one table, a row for each of its 40
// elements and four cells a row, as a reviewer sees it on the page.
func TestMarkdownPlanOfTheDemosFile(t *testing.T) {
	srv := wbstest.Start(t)
	code, out, errOut := run(t, srv, "", "apply", "-f", "../../../examples/wbs-elements.csv", "--dry-run", "-o", "markdown", "--rate", "0")
	if code != 0 || !strings.HasPrefix(out, "### wbsctl plan: 40 to create, 0 to update, 0 unchanged, 0 to delete\n") {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	rows, cells := 0, 0
	walk(renderGFM(t, out), func(n *html.Node) {
		switch {
		case n.Type != html.ElementNode:
		case n.Data == "tr":
			rows++
		case n.Data == "td":
			cells++
		}
	})
	if rows != 41 || cells != 40*4 {
		t.Fatalf("%d rows, %d cells:\n%s", rows, cells, out)
	}
}

// largePlanFile writes 20,000 elements with links, a plan of 20,000
// changes against an empty platform.
func largePlanFile(t *testing.T) string {
	var csv strings.Builder
	csv.WriteString("wbsElementCode,description,businessOrganizations\n")
	for i := range 20_000 {
		fmt.Fprintf(&csv, "L-%05d,Work package %d,company=1000;branch=B%d\n", i, i, i%7)
	}
	return cmdtest.WriteFile(t, t.TempDir(), "large.csv", csv.String())
}
