package mapcmd_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmd/mapcmd"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/erpmap"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// examples is the folder of the ERP examples the docs show.
var examples = filepath.Join("..", "..", "..", "examples", "erp")

func example(name string) string { return filepath.Join(examples, name) }

// result is what a run printed and its exit code.
type result struct {
	code        int
	out, errOut string
}

// run runs `wbsctl ARGS` with the map commands, as root.Run runs a
// command: its error printed on stderr, its exit code returned. No
// credential is set: the map commands need none.
func run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	f := cmdutil.New(io)
	f.Getenv = func(k string) string { return env[k] }
	root := &cobra.Command{Use: "wbsctl", SilenceErrors: true, SilenceUsage: true}
	f.AddGlobalFlags(root)
	root.AddCommand(mapcmd.NewCmdMap(f))
	// As root.Run: an error before a command's RunE ran is cobra's
	// refusal of the command line, a usage error.
	ran := false
	var mark func(*cobra.Command)
	mark = func(c *cobra.Command) {
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error { ran = true; return run(c, args) }
		}
		for _, sub := range c.Commands() {
			mark(sub)
		}
	}
	mark(root)
	root.SetArgs(args)
	root.SetOut(errOut)
	root.SetErr(errOut)
	err := root.Execute()
	if err != nil && !ran {
		err = &cmdutil.UsageError{Err: err}
	}
	if err != nil {
		cmdutil.PrintError(errOut, err, f.Global.Output == "json")
	}
	return result{cmdutil.ExitCode(err), out.String(), errOut.String()}
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// map check prints the records of the SAP workbook, the SAP text export
// and the Dynamics CSV as wbsctl's own CSV, byte for byte their
// hand-converted files, with the counts on stderr.
func TestMapCheckExamples(t *testing.T) {
	for _, tt := range []struct{ export, mapFile, expected, golden string }{
		{"sap-export.xlsx", "sap.wbsmap.yaml", "sap-expected.csv", "check-sap.stderr"},
		{"sap-export-en.txt", "sap-en.wbsmap.yaml", "sap-expected.csv", "check-sap-en.stderr"},
		{"dynamics-export.csv", "dynamics.wbsmap.yaml", "dynamics-expected.csv", "check-dynamics.stderr"},
	} {
		t.Run(tt.export, func(t *testing.T) {
			res := run(t, nil, "map", "check", "-f", example(tt.export), "--map", example(tt.mapFile))
			want, err := os.ReadFile(example(tt.expected))
			if err != nil {
				t.Fatal(err)
			}
			if res.code != 0 || res.out != string(want) {
				t.Fatalf("exit %d\n--- stdout\n%s--- want\n%s--- stderr\n%s", res.code, res.out, want, res.errOut)
			}
			golden(t, tt.golden, strings.ReplaceAll(res.errOut, examples+string(filepath.Separator), ""))
		})
	}
}

// -o json, yaml and ndjson write the records as wbsctl files in those
// formats; -o table, --jq and --no-headers go through the output printer.
func TestMapCheckFormats(t *testing.T) {
	args := []string{"map", "check", "-f", example("dynamics-export.csv"), "--map", example("dynamics.wbsmap.yaml")}
	for _, format := range []wbsfile.Format{wbsfile.FormatJSON, wbsfile.FormatYAML, wbsfile.FormatNDJSON} {
		res := run(t, nil, append(args, "-o", string(format))...)
		file, err := wbsfile.ParseBytes([]byte(res.out), format, wbsfile.ReadOptions{})
		if res.code != 0 || err != nil || len(file.Problems) > 0 || len(file.Records) != 5 || file.Records[1].Code != "PRJ-0042-1.1" {
			t.Fatalf("-o %s: exit %d %v %v\n%s%s", format, res.code, err, file, res.out, res.errOut)
		}
	}
	res := run(t, nil, append(args, "-o", "table")...)
	if res.code != 0 || !strings.Contains(res.out, "PRJ-0042-1.1") || !strings.Contains(res.out, "company=USMF") {
		t.Fatalf("-o table: %d\n%s%s", res.code, res.out, res.errOut)
	}
	res = run(t, nil, append(args, "-o", "json", "--jq", ".[] | select(.isActive == false) | .wbsElementCode")...)
	if res.code != 0 || res.out != "PRJ-0042-1.1\nPRJ-0043-1\n" {
		t.Fatalf("--jq: %d %q %s", res.code, res.out, res.errOut)
	}
	res = run(t, nil, append(args, "-o", "csv", "--no-headers")...)
	if res.code != 0 || strings.Contains(res.out, "wbsElementCode") || !strings.HasPrefix(res.out, "PRJ-0042-1,Design,true,company=USMF\n") {
		t.Fatalf("--no-headers: %d %q %s", res.code, res.out, res.errOut)
	}
	var items []map[string]any
	res = run(t, map[string]string{"WBSCTL_MAP": example("dynamics.wbsmap.yaml")}, "map", "check", "-f", example("dynamics-export.csv"), "-o", "json")
	if err := json.Unmarshal([]byte(res.out), &items); err != nil || len(items) != 5 {
		t.Fatalf("WBSCTL_MAP: %d %v %s", res.code, err, res.errOut)
	}
}

// A problem of a row is printed naming the cell and the map's line, the
// other rows are printed, and the exit code is 5.
func TestMapCheckProblems(t *testing.T) {
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "sap.wbsmap.yaml")
	text, err := os.ReadFile(example("sap.wbsmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// CRTD is no longer listed: P-100.04 matches no entry.
	os.WriteFile(mapFile, []byte(strings.Replace(string(text), ", CRTD: true", "", 1)), 0o600)
	res := run(t, nil, "map", "check", "-f", example("sap-export.xlsx"), "--map", mapFile)
	want := `Daten!G12 (code "P-100.04"): isActive: "CRTD" matches no entry of isActive.map (` + mapFile + `:9)`
	if res.code != cmdutil.ExitValidation || !strings.Contains(res.errOut, want) || strings.Contains(res.out, "P-100.04") || !strings.Contains(res.out, "P-100.05") ||
		!strings.Contains(res.errOut, "6 mapped to 5 elements, 1 invalid") || !strings.Contains(res.errOut, "1 problem, the rows named above left out") {
		t.Fatalf("exit %d\n%s%s", res.code, res.out, res.errOut)
	}
}

// A map that names a column the export lacks is refused before a row is
// read, naming the map's line; nothing is printed on stdout.
func TestMapCheckRefusesAMisspelledColumn(t *testing.T) {
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "sap.wbsmap.yaml")
	text, _ := os.ReadFile(example("sap.wbsmap.yaml"))
	os.WriteFile(mapFile, []byte(strings.Replace(string(text), "trim(Bezeichnung)", "trim(Bezeichnug)", 1)), 0o600)
	res := run(t, nil, "map", "check", "-f", example("sap-export.xlsx"), "--map", mapFile)
	want := mapFile + ":5: description: unknown name Bezeichnug in the header, Daten row 4 (did you mean Bezeichnung?)"
	if res.code != cmdutil.ExitValidation || res.out != "" || !strings.Contains(res.errOut, want) {
		t.Fatalf("exit %d\n%s%s", res.code, res.out, res.errOut)
	}
}

// map init writes, from the SAP export's German header, a map of every
// column the issue lists, which map check reads without a problem.
func TestMapInitSAP(t *testing.T) {
	res := run(t, nil, "map", "init", "-f", example("sap-export.xlsx"))
	if res.code != 0 {
		t.Fatalf("exit %d %s", res.code, res.errOut)
	}
	golden(t, "init-sap.wbsmap.yaml", res.out)
	if _, err := erpmap.Parse("init", []byte(res.out)); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"wbsElementCode: PSP-Element", "description: Bezeichnung", "  column: Systemstatus", "  words: true",
		"  company: Buchungskreis", "  profitCenter: Profitcenter", "  plant: Werk", "  costCenter: {column: Kostenstelle, alpha: true}",
	} {
		if !strings.Contains(res.out, line+" ") && !strings.Contains(res.out, line+"\n") {
			t.Errorf("no %q in\n%s", line, res.out)
		}
	}
	mapFile := filepath.Join(t.TempDir(), "sap.wbsmap.yaml")
	os.WriteFile(mapFile, []byte(res.out), 0o600)
	res = run(t, nil, "map", "check", "-f", example("sap-export.xlsx"), "--map", mapFile)
	if res.code != 0 || !strings.Contains(res.errOut, "0 filtered by where, 9 mapped to 8 elements, 0 invalid") {
		t.Fatalf("check of the map written: exit %d\n%s", res.code, res.errOut)
	}
	res = run(t, nil, "map", "init", "-f", example("dynamics-export.csv"))
	if res.code != 0 {
		t.Fatalf("exit %d %s", res.code, res.errOut)
	}
	golden(t, "init-dynamics.wbsmap.yaml", res.out)
}

// Command lines the map commands cannot use are refused with exit 2.
func TestMapUsage(t *testing.T) {
	for _, args := range [][]string{
		{"map", "check", "-f", example("dynamics-export.csv")},
		{"map", "init"},
		{"map", "init", "-f", "elements.yaml"},
		{"map", "check", "-f", example("dynamics-export.csv"), "--map", example("dynamics.wbsmap.yaml"), "-o", "plain"},
		{"map", "init", "-f", example("dynamics-export.csv"), "--sheet", "Daten"},
	} {
		if res := run(t, nil, args...); res.code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d %s", args, res.code, res.errOut)
		}
	}
}
