package apply_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"github.com/xuri/excelize/v2"
)

// Files as ERP users have them: workbooks, European CSV, Excel's Unicode
// text, each applied exactly.

// elementsText is what the server holds, one element a line, by code.
func elementsText(srv *wbstest.Server) string {
	var lines []string
	for _, e := range srv.Elements() {
		d := "<none>"
		if e.Description != nil {
			d = *e.Description
		}
		lines = append(lines, fmt.Sprintf("%s|%s|%v|%v\n", e.Code, d, e.IsActive, e.BusinessOrganizations))
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

const erpElements = "1000|Müller & Söhne|true|[{1000 company} {Köln branch}]\n" +
	"P-2|<none>|false|[]\n"

func TestApplyWorkbook(t *testing.T) {
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "notes, not elements")
	f.NewSheet("WBS")
	f.SetSheetRow("WBS", "A1", &[]any{"wbsElementCode", "description", "isActive", "businessOrganizations"})
	f.SetSheetRow("WBS", "A2", &[]any{1000, "Müller & Söhne", true, "company=1000;branch=Köln"})
	f.SetSheetRow("WBS", "A3", &[]any{"P-2", nil, false})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := cmdtest.WriteFile(t, t.TempDir(), "erp.xlsx", buf.String())
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, "", "apply", "-f", path, "--sheet", "WBS", "--rate", "0")
	if code != 0 || elementsText(srv) != erpElements {
		t.Fatalf("exit %d: %s\n%s", code, errOut, elementsText(srv))
	}
	// The first sheet, by default, is not a list of elements.
	srv.ResetStats()
	code, _, errOut = run(t, srv, "", "apply", "-f", path, "--rate", "0")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, "Sheet1!A1: notes, not elements: unknown column") || writes(srv) != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// A problem of a workbook names the sheet and the cell, the field and the
// limit; nothing is sent.
func TestApplyWorkbookProblem(t *testing.T) {
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "WBS")
	f.SetSheetRow("WBS", "A1", &[]any{"wbsElementCode", "description"})
	f.SetSheetRow("WBS", "A2", &[]any{"OK-1", "fine"})
	f.SetSheetRow("WBS", "A7", &[]any{"X-7", strings.Repeat("d", 101)})
	var buf bytes.Buffer
	f.Write(&buf)
	path := cmdtest.WriteFile(t, t.TempDir(), "erp.xlsx", buf.String())
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, "", "apply", "-f", path, "--rate", "0")
	want := `WBS!B7 (code "X-7"): description: is 101 characters long (limit: at most 100 characters)`
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, want) || len(srv.Elements()) != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// A semicolon CSV in Windows-1252, as Excel saves it in much of Europe:
// refused without --encoding, naming it, and applied with it.
func TestApplyWindows1252Semicolon(t *testing.T) {
	data := "wbsElementCode;description;isActive;businessOrganizations\r\n" +
		"1000;M\xfcller & S\xf6hne;true;\"company=1000;branch=K\xf6ln\"\r\n" +
		"P-2;;false;\r\n"
	path := cmdtest.WriteFile(t, t.TempDir(), "erp.csv", data)
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, "", "apply", "-f", path, "--rate", "0")
	if code != cmdutil.ExitValidation || !strings.Contains(errOut, "line 2: description: is not valid UTF-8: give the file's encoding with --encoding") || writes(srv) != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, srv, "", "apply", "-f", path, "--encoding", "windows-1252", "--rate", "0")
	if code != 0 || elementsText(srv) != erpElements {
		t.Fatalf("exit %d: %s\n%s", code, errOut, elementsText(srv))
	}
}

// Excel's "Unicode text": UTF-16LE with a byte-order mark, tab-separated,
// saved as .txt, applies as it is.
func TestApplyExcelUnicodeText(t *testing.T) {
	text := "wbsElementCode\tdescription\tisActive\tbusinessOrganizations\r\n" +
		"1000\tMüller & Söhne\tTRUE\tcompany=1000;branch=Köln\r\n" +
		"P-2\t\tFALSE\t\r\n"
	data := binary.LittleEndian.AppendUint16(nil, 0xfeff)
	for _, u := range utf16.Encode([]rune(text)) {
		data = binary.LittleEndian.AppendUint16(data, u)
	}
	path := cmdtest.WriteFile(t, t.TempDir(), "erp.txt", string(data))
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, "", "apply", "-f", path, "--rate", "0")
	if code != 0 || elementsText(srv) != erpElements {
		t.Fatalf("exit %d: %s\n%s", code, errOut, elementsText(srv))
	}
}

// Reading options that do not fit the file are usage errors, found before
// anything is read or sent.
func TestApplyReadFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	csvPath := cmdtest.WriteFile(t, dir, "a.csv", "wbsElementCode\nA-1\n")
	jsonPath := cmdtest.WriteFile(t, dir, "a.json", `[{"wbsElementCode":"A-1"}]`)
	srv := wbstest.Start(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", csvPath, "--sheet", "WBS"}, "--sheet names a sheet of a workbook; the file is csv"},
		{[]string{"-f", jsonPath, "--delimiter", ";"}, "--delimiter separates the cells of CSV; the file is json"},
		{[]string{"-f", csvPath, "--encoding", "utf-7"}, `--encoding "utf-7": use windows-1252, iso-8859-1 or utf-8`},
		{[]string{"-f", csvPath, "--delimiter", "::"}, `--delimiter "::": give one character`},
		{[]string{"--plan", filepath.Join(dir, "x.plan"), "--encoding", "windows-1252"}, "--plan carries out a saved plan as it is: --format, --sheet, --delimiter, --encoding and --map read the file it was made from"},
		{[]string{"--plan", filepath.Join(dir, "x.plan"), "--sheet", "WBS"}, "--plan carries out a saved plan as it is"},
	} {
		code, _, errOut := run(t, srv, "", append([]string{"apply", "--rate", "0"}, tt.args...)...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, tt.want) || len(srv.Elements()) != 0 {
			t.Errorf("%v: exit %d: %s", tt.args, code, errOut)
		}
	}
	code, _, errOut := run(t, srv, "", "apply", "--rate", "0", "-f", csvPath, "--delimiter", "tab", "--encoding", "latin1")
	if code != 0 || len(srv.Elements()) != 1 {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// erpServer starts a server holding the elements of an ERP's export,
// closed when t ends.
func erpServer(t *testing.T) *wbstest.Server {
	srv := wbstest.Start(t)
	srv.Put(
		wbstest.Element{Code: "1000", Description: str("Müller & Söhne"), IsActive: true,
			BusinessOrganizations: []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "K;1", EntityType: "branch"}}},
		wbstest.Element{Code: "007", IsActive: false},
		wbstest.Element{Code: "=SUM(A1)", Description: str("2024-01-15"), IsActive: true},
	)
	return srv
}

// export --format xlsx writes a workbook a spreadsheet shows with exactly the
// platform's values, which apply reads back unchanged.
func TestExportWorkbook(t *testing.T) {
	srv := erpServer(t)
	code, out, errOut := run(t, srv, "", "export", "--format", "xlsx")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wb, err := excelize.OpenReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, _ := wb.GetRows("WBS")
	want := [][]string{
		{"wbsElementCode", "description", "isActive", "businessOrganizations"},
		{"1000", "Müller & Söhne", "TRUE", `company=1000;branch=K\;1`},
		{"007", "", "FALSE"},
		{"=SUM(A1)", "2024-01-15", "TRUE"},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %q\nwant %q", rows, want)
	}
	path := cmdtest.WriteFile(t, t.TempDir(), "back.xlsx", out)
	code, _, errOut = run(t, srv, "", "apply", "-f", path, "--dry-run", "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "0 to create, 0 to update, 3 unchanged") {
		t.Fatalf("the workbook does not read back: exit %d: %s", code, errOut)
	}
	// Not to a terminal.
	code, _, errOut = runMode(t, srv, true, "", "export", "--format", "xlsx")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "redirect it to a file") {
		t.Fatalf("to a terminal: exit %d: %s", code, errOut)
	}
}

// export --delimiter ';' --bom writes what Excel opens in columns and as
// UTF-8; apply reads it back as it is.
func TestExportCSVForExcel(t *testing.T) {
	srv := erpServer(t)
	code, out, errOut := run(t, srv, "", "export", "--delimiter", ";", "--bom")
	want := "\xef\xbb\xbfwbsElementCode;description;isActive;businessOrganizations\n" +
		"1000;Müller & Söhne;true;\"company=1000;branch=K\\;1\"\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d: %s\n%q", code, errOut, out)
	}
	path := cmdtest.WriteFile(t, t.TempDir(), "back.csv", out)
	code, _, errOut = run(t, srv, "", "apply", "-f", path, "--dry-run", "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "0 to create, 0 to update, 3 unchanged") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, srv, "", "export", "--format", "json", "--bom")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--delimiter and --bom are options of CSV, not of --format json") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
