package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/sdk"
)

// A create refused because the element exists exits 9 however the
// platform said so, also behind a hint or other wrapping; a 409 of
// another request, and a 400 of a malformed field, keep their codes.
func TestExitCodeOfAnElementThatExists(t *testing.T) {
	create := func(status int, p *sdk.Problem) *sdk.APIError {
		return &sdk.APIError{StatusCode: status, Method: "POST", Path: "/v1/wbs-elements", Problem: p}
	}
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"409 bare", create(409, nil), ExitExists},
		{"409 problem", create(409, &sdk.Problem{Title: "Conflict", Status: 409}), ExitExists},
		{"400 duplicate problem", create(400, &sdk.Problem{Type: "https://example.com/problems/duplicate", Status: 400}), ExitExists},
		{"400 detail", create(400, &sdk.Problem{Title: "Bad Request", Detail: `an element with code "P-1" already exists`}), ExitExists},
		{"wrapped with a hint", &HintError{Err: fmt.Errorf("P-1 exists: %w", create(409, nil)), Hint: "update it"}, ExitExists},
		{"400 malformed field", create(400, &sdk.Problem{Title: "Bad Request", Detail: "wbsElementCode: is 31 characters long"}), ExitValidation},
		{"400 without problem details", create(400, nil), ExitValidation},
		{"409 of an update", &sdk.APIError{StatusCode: 409, Method: "PUT", Path: "/v1/wbs-elements/P-1"}, ExitError},
		{"404 with a hint", &HintError{Err: &sdk.APIError{StatusCode: 404}, Hint: "x"}, ExitNotFound},
	} {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// A HintError prints as its error does, then the hint on a line of its
// own; -o json adds it as "hint". The hint is escaped like the rest.
func TestPrintErrorWritesTheHint(t *testing.T) {
	apiErr := &sdk.APIError{StatusCode: 400, Method: "POST", Path: "/v1/wbs-elements",
		Problem: &sdk.Problem{Type: "https://example.com/problems/duplicate", Title: "Bad Request", Status: 400, Detail: "it exists"}}
	err := &HintError{Err: fmt.Errorf("P-1 exists: %w", apiErr), Hint: "change it with update\x1b[2J"}
	var b bytes.Buffer
	PrintError(&b, err, false)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "error: P-1 exists: POST /v1/wbs-elements: Bad Request" || lines[len(lines)-1] != `hint: change it with update\x1b[2J` {
		t.Fatalf("%q", lines)
	}
	b.Reset()
	PrintError(&b, &HintError{Err: errors.New("plain"), Hint: "do this"}, false)
	if b.String() != "error: plain\nhint: do this\n" {
		t.Fatalf("%q", b.String())
	}
	b.Reset()
	PrintError(&b, err, true)
	var doc map[string]any
	if json.Unmarshal(b.Bytes(), &doc) != nil || doc["hint"] != "change it with update\x1b[2J" || doc["exitCode"] != float64(ExitExists) || doc["status"] != float64(400) {
		t.Fatalf("%s", b.String())
	}
}

// exitCodeCases are an error of each kind ExitCode tells apart, and its
// code; TestExitCodesTableCoversExitCode holds them to ExitCodes. Add one
// with every case added to ExitCode.
var exitCodeCases = []struct {
	name string
	err  error
	want int
}{
	{"nil", nil, ExitOK},
	{"plain", errors.New("connection refused"), ExitError},
	{"500", &sdk.APIError{StatusCode: 500}, ExitError},
	{"usage", &UsageError{Err: errors.New("unknown flag")}, ExitUsage},
	{"OlderCommitError", &OlderCommitError{Err: errors.New("older")}, ExitOlderCommit},
	{"PartialPlanError", &PartialPlanError{Err: errors.New("partial")}, ExitPartialPlan},
	{"404", &sdk.APIError{StatusCode: 404}, ExitNotFound},
	{"AuthError", &AuthError{Err: errors.New("no credentials")}, ExitAuth},
	{"401", &sdk.APIError{StatusCode: 401}, ExitAuth},
	{"403", &sdk.APIError{StatusCode: 403}, ExitAuth},
	{"invalid credentials", fmt.Errorf("token: %w", sdk.ErrInvalidCredentials), ExitAuth},
	{"client certificate refused", &sdk.TLSError{Reason: sdk.TLSClientCertificateRefused, Err: errors.New("bad certificate")}, ExitAuth},
	{"400", &sdk.APIError{StatusCode: 400}, ExitValidation},
	{"local check", &sdk.ValidationError{Operation: "create"}, ExitValidation},
	{"partial", &PartialError{Failed: 1, Total: 3}, ExitPartial},
	{"pending", &PendingError{}, ExitPending},
	{"plan stale", &PlanStaleError{Err: errors.New("plan stale")}, ExitPlanStale},
	{"409 of a create", &sdk.APIError{StatusCode: 409, Method: "POST", Path: "/v1/wbs-elements"}, ExitExists},
	// wbsctl catches SIGINT and SIGTERM (signals.go, apply): 128 + their
	// numbers.
	{"ErrInterrupted", fmt.Errorf("apply: %w", ErrInterrupted), ExitInterrupted},
	{"SIGINT", &Interrupted{Signal: syscall.SIGINT}, 130},
	{"SIGTERM", &Interrupted{Signal: syscall.SIGTERM}, 143},
	{"no signal", &Interrupted{}, ExitInterrupted},
}

// ExitCodes has no code twice, and a meaning of one line for every row.
func TestExitCodesTableHasOneRowPerCode(t *testing.T) {
	seen := map[int]string{}
	for _, r := range ExitCodes {
		for _, c := range r.Codes() {
			if prev, ok := seen[c]; ok {
				t.Errorf("exit code %d is in the rows %q and %q", c, prev, r.Label())
			}
			seen[c] = r.Label()
		}
		if r.Meaning == "" || strings.ContainsAny(r.Meaning, "\n\r|") {
			t.Errorf("exit code %s: the meaning %q is empty, or not one line of a table", r.Label(), r.Meaning)
		}
	}
}

// Every code ExitCode returns is in ExitCodes: the cases of exitCodeCases
// give the codes they should and every row has one; every Exit constant
// has a row; and ExitCode, and Interrupted's exitCode, return only Exit
// constants, or 128 + the signal's number.
func TestExitCodesTableCoversExitCode(t *testing.T) {
	rows := map[int]bool{}
	for _, r := range ExitCodes {
		for _, c := range r.Codes() {
			rows[c] = true
		}
	}
	given := map[int]bool{}
	for _, tt := range exitCodeCases {
		got := ExitCode(tt.err)
		if got != tt.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
		if !rows[got] {
			t.Errorf("%s: ExitCode(%v) = %d, which ExitCodes does not list", tt.name, tt.err, got)
		}
		given[got] = true
	}
	for c := range rows {
		if !given[c] {
			t.Errorf("exit code %d of ExitCodes: no case of exitCodeCases gives it", c)
		}
	}

	// The package's source: its Exit constants and the returns of the two
	// functions.
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	consts := map[string]int{}
	returns := map[string][]ast.Expr{} // of ExitCode and exitCode
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if !strings.HasPrefix(id.Name, "Exit") {
							continue
						}
						n := -1
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
								n, _ = strconv.Atoi(lit.Value)
							}
						}
						if n < 0 {
							t.Fatalf("%s: %s is not a number this test can read", fset.Position(id.Pos()), id.Name)
						}
						consts[id.Name] = n
					}
				}
			case *ast.FuncDecl:
				if d.Name.Name != "ExitCode" && d.Name.Name != "exitCode" {
					continue
				}
				ast.Inspect(d.Body, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false
					}
					if ret, ok := n.(*ast.ReturnStmt); ok {
						returns[d.Name.Name] = append(returns[d.Name.Name], ret.Results...)
					}
					return true
				})
			}
		}
	}
	for name, c := range consts {
		if !rows[c] {
			t.Errorf("%s = %d has no row in ExitCodes", name, c)
		}
	}
	if len(returns["ExitCode"]) == 0 || len(returns["exitCode"]) == 0 {
		t.Fatalf("found the returns %v: where are ExitCode and Interrupted.exitCode?", returns)
	}
	for fn, exprs := range returns {
		for _, e := range exprs {
			src := types.ExprString(e)
			switch {
			case strings.HasPrefix(src, "Exit"):
				if _, ok := consts[src]; !ok {
					t.Errorf("%s: %s returns %s, not an Exit constant of the package", fset.Position(e.Pos()), fn, src)
				}
			case fn == "ExitCode" && src == "intr.exitCode()",
				fn == "exitCode" && src == "128 + int(s)": // SIGINT and SIGTERM, cases above
			default:
				t.Errorf("%s: %s returns %s: give it an Exit constant with a row in ExitCodes, or teach this test", fset.Position(e.Pos()), fn, src)
			}
		}
	}
}

// `wbsctl help exit-codes` is every row of ExitCodes in plain text, in
// order: its codes right-aligned, then its meaning without backquotes,
// in lines of at most exitCodesHelpWidth columns.
func TestExitCodesHelpListsTheTable(t *testing.T) {
	body, ok := strings.CutPrefix(ExitCodesHelp, "wbsctl exits with:\n\n")
	if !ok {
		t.Fatalf("%q", ExitCodesHelp)
	}
	var got [][2]string // label, meaning
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > exitCodesHelpWidth {
			t.Errorf("a line of %d columns: %q", n, line)
		}
		if strings.HasPrefix(line, strings.Repeat(" ", len("130, 143  "))) && len(got) > 0 {
			// A further line of the meaning, under its first.
			got[len(got)-1][1] += " " + strings.TrimSpace(line)
			continue
		}
		label, meaning, _ := strings.Cut(strings.TrimLeft(line, " "), "  ")
		got = append(got, [2]string{label, meaning})
	}
	var want [][2]string
	for _, r := range ExitCodes {
		want = append(want, [2]string{r.Label(), strings.ReplaceAll(r.Meaning, "`", "")})
	}
	if !slices.Equal(got, want) {
		t.Errorf("ExitCodesHelp lists\n%q\nExitCodes has\n%q", got, want)
	}
	if !strings.Contains(ExitCodesHelp, "\n       7  changes pending (apply --dry-run --detailed-exitcode)\n") ||
		!strings.Contains(ExitCodesHelp, "\n130, 143  interrupted: ") {
		t.Errorf("%s", ExitCodesHelp)
	}
}
