package export_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func erpExample(name string) string { return filepath.Join("..", "..", "..", "examples", "erp", name) }

// An ERP's export applied through its map, exported back through the same
// map, reads back as what the platform holds: apply --map plans no
// change, in a workbook, CSV of the ERP's delimiter, JSON and NDJSON. A
// link of a type the map does not name is left out and said; an element
// with two links of one type is left out and named (exit 6).
func TestExportThroughAMapReadsBack(t *testing.T) {
	for _, tt := range []struct{ export, wbsmap, format, file string }{
		{"sap-export.xlsx", "sap.wbsmap.yaml", "xlsx", "back.xlsx"},
		{"sap-export.xlsx", "sap.wbsmap.yaml", "csv", "back.csv"},
		{"sap-export-en.txt", "sap-en.wbsmap.yaml", "csv", "back.csv"},
		{"sap-export-en.txt", "sap-en.wbsmap.yaml", "xlsx", "back.xlsx"},
	} {
		t.Run(tt.wbsmap+" as "+tt.format, func(t *testing.T) {
			srv := wbstest.NewServer()
			t.Cleanup(srv.Close)
			cli := cmdtest.Run{}
			in := []string{"apply", "-f", erpExample(tt.export), "--map", erpExample(tt.wbsmap), "--rate", "0", "--format", map[bool]string{true: "csv", false: "xlsx"}[strings.HasSuffix(tt.export, ".txt")]}
			if res := cli.Do(t, srv, in...); res.Code != 0 {
				t.Fatalf("loading the example: exit %d: %s", res.Code, res.ErrOut)
			}
			// A link made by hand, of a type the map does not name. apply
			// creates in parallel, so the platform's order is not the file's:
			// the element is found by what the test needs of it, a plant.
			first := withPlant(t, srv)
			first.BusinessOrganizations = append(first.BusinessOrganizations, wbstest.BusinessOrganization{Code: "B9", EntityType: "branch"})
			srv.Put(first)

			exp := cli.Do(t, srv, "export", "--map", erpExample(tt.wbsmap), "--format", tt.format)
			if exp.Code != 0 || !strings.Contains(exp.ErrOut, "branch (1 element)") || !strings.Contains(exp.ErrOut, "where is not applied") {
				t.Fatalf("export --map: exit %d: %s", exp.Code, exp.ErrOut)
			}
			path := cmdtest.WriteFile(t, t.TempDir(), tt.file, exp.Out)
			res := cli.Do(t, srv, "apply", "-f", path, "--map", erpExample(tt.wbsmap), "--dry-run", "--detailed-exitcode", "--rate", "0")
			if res.Code != 0 || !strings.Contains(res.ErrOut, "0 to create, 0 to update, 6 unchanged") {
				t.Fatalf("the export does not read back as the platform holds it: exit %d: %s%s\n%s", res.Code, res.Out, res.ErrOut, exp.Out)
			}

			// Two plants cannot be one cell: that element is left out.
			first, _ = srv.Element(first.Code)
			first.BusinessOrganizations = append(first.BusinessOrganizations, wbstest.BusinessOrganization{Code: "9999", EntityType: "plant"})
			srv.Put(first)
			exp = cli.Do(t, srv, "export", "--map", erpExample(tt.wbsmap), "--format", tt.format)
			if exp.Code != cmdutil.ExitPartial || !strings.Contains(exp.ErrOut, `the element "`+first.Code+`": it has 2 links of type plant`) {
				t.Fatalf("an element with two plants: exit %d: %s", exp.Code, exp.ErrOut)
			}
		})
	}
}

// withPlant returns an element of srv linked to a plant.
func withPlant(t *testing.T, srv *wbstest.Server) wbstest.Element {
	t.Helper()
	for _, e := range srv.Elements() {
		for _, o := range e.BusinessOrganizations {
			if o.EntityType == "plant" {
				return e
			}
		}
	}
	t.Fatal("no element of the example is linked to a plant")
	return wbstest.Element{}
}

// A map whose code is an expression cannot be turned round: export
// refuses it before a request, naming the map's line.
func TestExportThroughAMapThatCannotTurnRound(t *testing.T) {
	srv := wbstest.NewServer()
	t.Cleanup(srv.Close)
	res := cmdtest.Run{}.Do(t, srv, "export", "--map", erpExample("dynamics.wbsmap.yaml"))
	if res.Code != cmdutil.ExitValidation || !strings.Contains(res.ErrOut, "dynamics.wbsmap.yaml:3: wbsElementCode: the expression concat(") || res.Out != "" {
		t.Fatalf("exit %d: %s%s", res.Code, res.Out, res.ErrOut)
	}
	if n := srv.Stats().TokenExchanges; n != 0 {
		t.Fatalf("%d token exchanges before the map was refused", n)
	}
	res = cmdtest.Run{}.Do(t, srv, "export", "--map", erpExample("sap.wbsmap.yaml"), "--format", "yaml")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "csv, xlsx, json or ndjson") {
		t.Fatalf("--format yaml: exit %d: %s", res.Code, res.ErrOut)
	}
}
