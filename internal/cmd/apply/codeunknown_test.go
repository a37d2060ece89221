package apply_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"github.com/xuri/excelize/v2"
)

// A prune of a workbook with a row whose code could not be read is
// refused, naming the cell: its sheet's name escaped, so that a bidi
// control in it cannot reorder the message on a terminal or in a log.
func TestPruneRefusalEscapesTheSheetName(t *testing.T) {
	sheet := "WBS\u202egpj.exe"
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		t.Fatal(err)
	}
	f.SetSheetRow(sheet, "A1", &[]any{"wbsElementCode", "description"})
	f.SetSheetRow(sheet, "A2", &[]any{"OK-1", "fine"})
	f.SetSheetRow(sheet, "A3", &[]any{"", "a row whose code is lost"})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := cmdtest.WriteFile(t, t.TempDir(), "erp.xlsx", buf.String())
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, "", "apply", "-f", path, "--prune", "--skip-invalid", "--dry-run", "--rate", "0")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, "no code could be read there") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.ContainsRune(errOut, '\u202e') || !strings.Contains(errOut, `\u202e`) {
		t.Fatalf("the sheet's name is not escaped: %q", errOut)
	}
}
