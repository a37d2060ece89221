package apply_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// erpExample is the path of a file of examples/erp.
func erpExample(name string) string { return filepath.Join("..", "..", "..", "examples", "erp", name) }

// An ERP export applied through its map makes the platform its
// hand-converted equivalent makes; applied again it changes nothing;
// a link of a type the map does not name, made by hand, survives.
func TestApplyThroughAMap(t *testing.T) {
	for _, ex := range []struct{ export, wbsmap, expected string }{
		{"sap-export.xlsx", "sap.wbsmap.yaml", "sap-expected.csv"},
		{"sap-export-en.txt", "sap-en.wbsmap.yaml", "sap-expected.csv"},
		{"dynamics-export.csv", "dynamics.wbsmap.yaml", "dynamics-expected.csv"},
	} {
		t.Run(ex.export, func(t *testing.T) {
			mapped, converted := wbstest.Start(t), wbstest.Start(t)
			args := []string{"apply", "-f", erpExample(ex.export), "--map", erpExample(ex.wbsmap), "--rate", "0"}
			if strings.HasSuffix(ex.export, ".txt") {
				args = append(args, "--format", "csv")
			}
			if code, _, errOut := run(t, mapped, "", args...); code != 0 || !strings.Contains(errOut, "mapped to") {
				t.Fatalf("through the map: exit %d: %s", code, errOut)
			}
			if code, _, errOut := run(t, converted, "", "apply", "-f", erpExample(ex.expected), "--rate", "0"); code != 0 {
				t.Fatalf("the hand-converted file: exit %d: %s", code, errOut)
			}
			if got, want := held(mapped), held(converted); !maps.Equal(got, want) {
				t.Fatalf("through the map the platform holds\n%v\nwant, as the hand-converted file makes it,\n%v", got, want)
			}
			// A branch linked by hand is no type of the map's: it stays.
			first := mapped.Elements()[0]
			first.BusinessOrganizations = append(first.BusinessOrganizations, wbstest.BusinessOrganization{Code: "B9", EntityType: "handmade"})
			mapped.Put(first)
			code, _, errOut := run(t, mapped, "", append(args, "--dry-run", "--detailed-exitcode")...)
			if code != 0 || !strings.Contains(errOut, "0 to create, 0 to update") {
				t.Fatalf("applied again, with a link of another type made by hand: exit %d: %s", code, errOut)
			}
		})
	}
}

// A map that names a column the export does not have is refused before
// a row is read, naming the map's line; nothing is sent.
func TestApplyThroughAMapWithAMisspelledColumn(t *testing.T) {
	srv := wbstest.Start(t)
	b, err := os.ReadFile(erpExample("sap.wbsmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := cmdtest.WriteFile(t, t.TempDir(), "bad.wbsmap.yaml", strings.Replace(string(b), "plant: Werk", "plant: Wrek", 1))
	code, _, errOut := run(t, srv, "", "apply", "-f", erpExample("sap-export.xlsx"), "--map", bad, "--rate", "0")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, "bad.wbsmap.yaml:") || !strings.Contains(errOut, "Wrek") || len(srv.Journal()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Journal()), errOut)
	}
	code, _, errOut = cmdtest.Run{Env: map[string]string{"WBSCTL_MAP": bad}}.Do(t, srv, "apply", "--plan", "x.plan").Code, "", ""
	if code != cmdutil.ExitUsage {
		t.Fatalf("--plan with WBSCTL_MAP set: exit %d, want the plan's own error (usage) %s", code, errOut)
	}
	if res := (cmdtest.Run{}).Do(t, srv, "apply", "--plan", "x.plan", "--map", bad); res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "--map read the file") {
		t.Fatalf("--plan with --map: exit %d: %s", res.Code, res.ErrOut)
	}
}
