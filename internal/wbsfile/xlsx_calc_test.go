package wbsfile

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// LibreOffice Calc is the second reader of workbooks: what Calc converts
// to CSV (the cells as it shows them) is what apply reads from the
// workbook itself. The test needs soffice (Debian's
// libreoffice-calc-nogui); CI sets WBSCTL_LIBREOFFICE=1 to require it.
func TestXLSXReadsWhatCalcShows(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("WBSCTL_LIBREOFFICE") == "1" {
			t.Fatal("WBSCTL_LIBREOFFICE=1, but there is no soffice")
		}
		t.Skip("no soffice (LibreOffice Calc): WBSCTL_LIBREOFFICE=1 requires it")
	}
	style := func(f *excelize.File, sheet, cell, format string) {
		st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &format})
		if err != nil {
			t.Fatal(err)
		}
		f.SetCellStyle(sheet, cell, cell, st)
	}
	header := &[]any{"wbsElementCode", "description", "isActive", "businessOrganizations"}
	books := map[string][]byte{
		"text": workbook(t, "WBS", func(f *excelize.File, s string) {
			f.SetSheetRow(s, "A1", header)
			f.SetSheetRow(s, "A2", &[]any{"P-1", "Baugrube für Halle 3 😀", true, "company=1000;plant=P1"})
			f.SetSheetRow(s, "A3", &[]any{"P-2", "a, b; \"quoted\"", false, ""})
			f.SetSheetRow(s, "A4", &[]any{1000, "  spaces  ", nil, "company=2000"})
		}),
		"numbers": workbook(t, "WBS", func(f *excelize.File, s string) {
			f.SetSheetRow(s, "A1", header)
			for i, v := range []any{1000, 0.1 + 0.2, 123456789012345.0, 1.5e-7, -42, 1234.5, 0.25, 99999999999.0, 1e14, 2.5e-9} {
				f.SetSheetRow(s, fmt.Sprintf("A%d", i+2), &[]any{fmt.Sprintf("N-%d", i), v})
			}
			style(f, s, "B7", "0.00")
			style(f, s, "B8", "0%")
			style(f, s, "B9", "#,##0")
		}),
		// Formulas with the values a spreadsheet stored, and a hidden row.
		"formulas and hidden rows": withSheet(t, sheetXML(inline(1, "wbsElementCode", "description")+
			`<row r="2" hidden="1"><c r="A2" t="inlineStr"><is><t>F-1</t></is></c><c r="B2" t="inlineStr"><is><t>a</t></is></c></row>`+
			`<row r="3"><c r="A3" t="inlineStr"><is><t>F-2</t></is></c><c r="B3" t="str"><f>CONCATENATE("x","y")</f><v>xy</v></c></row>`+
			`<row r="4"><c r="A4" t="inlineStr"><is><t>F-3</t></is></c><c r="B4"><f>6*7</f><v>42</v></c></row>`)),
	}
	dir := t.TempDir()
	var names []string
	for name, data := range books {
		path := filepath.Join(dir, fmt.Sprintf("%x.xlsx", name))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		names = append(names, path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// 76 is UTF-8; the cells as shown.
	args := append([]string{"--headless", "-env:UserInstallation=file://" + filepath.Join(dir, "profile"),
		"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true", "--outdir", dir}, names...)
	if out, err := exec.CommandContext(ctx, soffice, args...).CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, out)
	}
	for name, data := range books {
		fromBook := parseXLSX(t, data, ReadOptions{})
		csvData, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%x.csv", name)))
		if err != nil {
			t.Fatalf("%s: Calc wrote no CSV: %v", name, err)
		}
		fromCalc, err := ParseBytes(csvData, FormatCSV, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(fromBook.Problems) != 0 || len(fromCalc.Problems) != 0 {
			t.Errorf("%s: problems of the workbook:\n%s\nof Calc's CSV:\n%s", name, problems(fromBook), problems(fromCalc))
			continue
		}
		if !reflect.DeepEqual(view(fromBook.Records), view(fromCalc.Records)) {
			t.Errorf("%s: apply reads\n%v\nCalc shows\n%v\n(Calc's CSV:\n%s)", name, view(fromBook.Records), view(fromCalc.Records), csvData)
		}
	}
}

// view is what a record says, without where it is.
func view(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		d, a := "<nil>", "<nil>"
		if r.Description != nil {
			d = *r.Description
		}
		if r.IsActive != nil {
			a = fmt.Sprint(*r.IsActive)
		}
		out[i] = fmt.Sprintf("%s|%q|%s|%v", r.Code, d, a, r.Organizations)
	}
	return out
}
