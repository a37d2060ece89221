package apply_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func run(t *testing.T, srv *wbstest.Server, stdin string, args ...string) (int, string, string) {
	return runMode(t, srv, false, stdin, args...)
}

func runMode(t *testing.T, srv *wbstest.Server, tty bool, stdin string, args ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run{TTY: tty, Stdin: stdin}.Do(t, srv, args...)
	return r.Code, r.Out, r.ErrOut
}

const csvFile = `wbsElementCode,description,isActive,businessOrganizations
P-1,Site preparation,true,company=1000;branch=B1
P-2,,false,
P-3,Foundations,yes,company=1000
`

func TestApplyDryRunExportAndPrune(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)

	code, out, _ := run(t, srv, "", "apply", "-f", file, "--dry-run", "--detailed-exitcode", "--rate", "0")
	if code != cmdutil.ExitPending || !strings.Contains(out, "+ create P-1  (line 2)") || len(srv.Elements()) != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	report := filepath.Join(dir, "report.ndjson")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--report", report, "--rate", "0")
	if code != 0 || len(srv.Elements()) != 3 || !strings.Contains(errOut, "create: 3 ok") {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	lines := readLines(t, report)
	if len(lines) != 4 || !strings.Contains(lines[3], `"summary"`) {
		t.Fatalf("report: %v", lines)
	}
	code, _, _ = run(t, srv, "", "apply", "-f", file, "--dry-run", "--detailed-exitcode", "--rate", "0")
	if code != 0 {
		t.Fatalf("second dry run: exit %d, want 0 (nothing to do)", code)
	}
	// export then apply is a no-op, in every format.
	for _, format := range []string{"csv", "json", "ndjson", "yaml"} {
		code, exported, errOut := run(t, srv, "", "export", "--format", format)
		if code != 0 {
			t.Fatalf("export %s: %s", format, errOut)
		}
		srv.ResetStats()
		code, _, errOut = run(t, srv, exported, "apply", "-f", "-", "--format", format, "--rate", "0")
		st := srv.Stats()
		if code != 0 || st.Requests[wbstest.OpCreate]+st.Requests[wbstest.OpUpdate]+st.Requests[wbstest.OpDeleteLinks] != 0 {
			t.Fatalf("apply of the %s export wrote: exit %d %v %s", format, code, st.Requests, errOut)
		}
	}
	srv.Put(wbstest.Element{Code: "EXTRA", IsActive: true})
	code, _, errOut = run(t, srv, "", "apply", "-f", file, "--prune", "--rate", "0")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--yes") {
		t.Fatalf("prune without --yes and no terminal: exit %d %s", code, errOut)
	}
	code, _, _ = run(t, srv, "", "apply", "-f", file, "--prune", "--yes", "--rate", "0")
	if _, ok := srv.Element("EXTRA"); code != 0 || ok {
		t.Fatalf("prune: exit %d, EXTRA still there: %v", code, ok)
	}
}

func TestBadFileSendsNothing(t *testing.T) {
	srv := wbstest.Start(t)
	bad := "wbsElementCode,description\nP-1," + strings.Repeat("x", 101) + "\nP-2,ok\n"
	code, _, errOut := run(t, srv, bad, "apply", "-f", "-", "--format", "csv")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, "line 2 (code \"P-1\"): description: is 101 characters long") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(srv.Journal()); n != 0 {
		t.Fatalf("%d requests sent for a bad file", n)
	}
	code, _, _ = run(t, srv, bad, "apply", "-f", "-", "--format", "csv", "--skip-invalid", "--rate", "0")
	if _, ok := srv.Element("P-2"); code != cmdutil.ExitPartial || !ok || len(srv.Elements()) != 1 {
		t.Fatalf("--skip-invalid: exit %d", code)
	}
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("report line is not JSON: %s", sc.Text())
		}
		lines = append(lines, sc.Text())
	}
	return lines
}

func TestProgressBarOnATerminal(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)
	code, _, errOut := runMode(t, srv, true, "", "apply", "-f", file, "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "applying") || !strings.Contains(errOut, "create: 3 ok") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	quiet := wbstest.Start(t)
	code, _, errOut = runMode(t, quiet, true, "", "apply", "-f", file, "--rate", "0", "--quiet")
	if code != 0 || strings.Contains(errOut, "applying") {
		t.Fatalf("--quiet: %q", errOut)
	}
}

// Without a terminal, progress lines come while the plan reads and the
// writes run, and stop before the summary, which is the last line.
func TestProgressLinesEndBeforeTheSummary(t *testing.T) {
	t.Parallel() // the interval is the run's own flag, no package state
	srv := wbstest.Start(t, wbstest.WithFaults(wbstest.FaultRule{Kind: wbstest.FaultLatency, Latency: 5 * time.Millisecond, Method: "POST"}))
	var b strings.Builder
	b.WriteString("wbsElementCode,description\n")
	for i := range 20 {
		fmt.Fprintf(&b, "PR-%02d,progress\n", i)
	}
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(b.String()), 0o600)
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--concurrency", "1", "--progress-interval", "1ms")
	// The plan's own lines come first, while it reads.
	for strings.HasPrefix(errOut, "planning: ") {
		_, errOut, _ = strings.Cut(errOut, "\n")
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != 0 || !strings.HasPrefix(errOut, "progress: ") || !strings.HasPrefix(lines[len(lines)-1], "create: 20 ok") {
		t.Fatalf("exit %d, want progress lines, then the summary last:\n%s", code, errOut)
	}
}

// A file whose records could be read other than written (two values on an
// NDJSON line, a second YAML document, a JSON member given twice or in
// another case) is refused whole: nothing is sent, and --prune deletes
// nothing that the file names.
func TestFileWithHiddenRecordsSendsNothing(t *testing.T) {
	for name, body := range map[string]string{
		"two.ndjson":      `{"wbsElementCode":"N-41"}{"wbsElementCode":"N-42"}` + "\n",
		"garbage.ndjson":  `{"wbsElementCode":"N-41"} and N-42` + "\n",
		"docs.yaml":       "- wbsElementCode: N-41\n---\n- wbsElementCode: N-42\n",
		"case.json":       `[{"wbsElementCode":"N-41","WBSELEMENTCODE":"x"},{"wbsElementCode":"N-42"}]`,
		"duplicate.json":  `[{"wbsElementCode":"N-41","wbsElementCode":"N-42"}]`,
		"orgs-case.json":  `[{"wbsElementCode":"N-41","businessOrganizations":[{"code":"1","entityType":"c","EntityType":"d"}]},{"wbsElementCode":"N-42"}]`,
		"duplicate.yaml":  "- wbsElementCode: N-41\n  wbsElementCode: N-42\n",
		"lower-case.json": `[{"wbselementcode":"N-41"},{"wbsElementCode":"N-42"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := wbstest.Start(t)
			srv.Put(wbstest.Element{Code: "N-41"}, wbstest.Element{Code: "N-42"})
			file := filepath.Join(t.TempDir(), name)
			os.WriteFile(file, []byte(body), 0o600)
			srv.ResetStats()
			code, _, errOut := run(t, srv, "", "apply", "-f", file, "--prune", "--yes", "--rate", "0")
			if code != cmdutil.ExitValidation || !strings.Contains(errOut, "line ") {
				t.Fatalf("exit %d, want %d with the line named: %s", code, cmdutil.ExitValidation, errOut)
			}
			if len(srv.Elements()) != 2 || len(srv.Journal()) != 0 {
				t.Fatalf("requests were sent: %v", srv.Journal())
			}
		})
	}
}

func TestCreateFromFileRefusesAMemberInAnotherCase(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "element.json")
	os.WriteFile(file, []byte(`{"wbsElementCode":"N-17","WBSELEMENTCODE":"x"}`), 0o600)
	code, _, errOut := run(t, srv, "", "element", "create", "--from-file", file)
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "WBSELEMENTCODE") || len(srv.Elements()) != 0 {
		t.Fatalf("exit %d: %s; elements %v", code, errOut, srv.Elements())
	}
}

// Control characters in a file's codes, descriptions or organizations are
// refused before sending; those the platform holds are printed escaped.
func TestControlCharactersNeverReachTheTerminal(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte("wbsElementCode,description,isActive,businessOrganizations\n"+
		"N-27\x1b[31mRED,,true,\n\"N-27\r\",,true,\nN-14\x00x,,true,\nN-15,bell\a,true,\nN-16,,true,company=1\x1b0\n"), 0o600)
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0")
	if code != cmdutil.ExitValidation || len(srv.Journal()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Journal()), errOut)
	}
	for _, want := range []string{"line 2", "line 3", "line 4", "line 5 (code \"N-15\"): description", "line 6"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no problem for %s:\n%s", want, errOut)
		}
	}
	if strings.ContainsAny(errOut, "\x1b\r\x00\a") {
		t.Errorf("a control character was printed: %q", errOut)
	}
	desc := "red\x1b[31m"
	srv.Put(wbstest.Element{Code: "N-27\x1b[31mRED", Description: &desc}, wbstest.Element{Code: "N-28\nsplit"})
	for _, tty := range []bool{true, false} {
		code, out, _ := runMode(t, srv, tty, "", "element", "list")
		if code != 0 || strings.ContainsAny(out, "\x1b") || !strings.Contains(out, `N-27\x1b[31mRED`) || !strings.Contains(out, `N-28\nsplit`) {
			t.Errorf("element list (terminal %v): exit %d %q", tty, code, out)
		}
	}
}

func TestDetailedExitcodeNeedsDryRun(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--detailed-exitcode", "--rate", "0")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--dry-run") || len(srv.Elements()) != 0 {
		t.Fatalf("exit %d, %d elements: %s", code, len(srv.Elements()), errOut)
	}
}

// The summary counts every request of the run, the plan's reads
// included, as reads, writes and token exchanges, as the server saw them.
func TestSummaryCountsTheWholeRun(t *testing.T) {
	srv := wbstest.Start(t)
	file := filepath.Join(t.TempDir(), "elements.csv")
	os.WriteFile(file, []byte(csvFile), 0o600)
	for _, pass := range []string{"first", "unchanged"} {
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0")
		gets, others, tokens := 0, 0, 0
		for _, e := range srv.Journal() {
			switch {
			case e.Operation == wbstest.OpToken:
				tokens++
			case e.Method == "GET":
				gets++
			default:
				others++
			}
		}
		want := fmt.Sprintf("(%s: %s, %s, %s; 0 throttled)", output.Count(gets+others+tokens, "request"),
			output.Count(gets, "read"), output.Count(others, "write"), output.Count(tokens, "token exchange"))
		if code != 0 || !strings.Contains(errOut, want) {
			t.Fatalf("%s: exit %d, want %q in:\n%s", pass, code, want, errOut)
		}
	}
}
