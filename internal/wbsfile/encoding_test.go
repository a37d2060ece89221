package wbsfile

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16File is s in UTF-16 of the byte order, after its byte-order mark.
func utf16File(s string, order binary.AppendByteOrder) []byte {
	var b []byte
	b = order.AppendUint16(b, 0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

// CSV as it comes: the delimiter found from the header or given, UTF-8
// with or without a byte-order mark, UTF-16 by its byte-order mark, or the
// encoding given.
func TestCSVAsItComes(t *testing.T) {
	const umlauts = "wbsElementCode;description;isActive\nA-1;Müller & Söhne, Köln;true\nA-2;€ 5;false\n"
	tests := []struct {
		name string
		data []byte
		opts ReadOptions
	}{
		{"semicolon", []byte(umlauts), ReadOptions{}},
		{"semicolon with a byte-order mark", append([]byte("\xef\xbb\xbf"), umlauts...), ReadOptions{}},
		{"tab", []byte(strings.ReplaceAll(umlauts, ";", "\t")), ReadOptions{}},
		{"comma, quoted", []byte("wbsElementCode,description,isActive\nA-1,\"Müller & Söhne, Köln\",true\nA-2,€ 5,false\n"), ReadOptions{}},
		{"delimiter given", []byte(umlauts), ReadOptions{Delimiter: ';'}},
		{"Excel's Unicode text: UTF-16LE, tab", utf16File(strings.ReplaceAll(umlauts, ";", "\t"), binary.LittleEndian), ReadOptions{}},
		{"UTF-16BE", utf16File(umlauts, binary.BigEndian), ReadOptions{}},
		{"windows-1252", []byte("wbsElementCode;description;isActive\nA-1;M\xfcller & S\xf6hne, K\xf6ln;true\nA-2;\x80 5;false\n"), ReadOptions{Encoding: "windows-1252"}},
		{"utf-8 given", []byte(umlauts), ReadOptions{Encoding: "UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := ParseWith(bytes.NewReader(tt.data), FormatCSV, tt.opts)
			if err != nil || len(file.Problems) > 0 {
				t.Fatalf("%v %v", err, file.Problems)
			}
			if len(file.Records) != 2 || file.Records[0].Code != "A-1" || deref(file.Records[0].Description) != "Müller & Söhne, Köln" ||
				file.Records[1].Code != "A-2" || deref(file.Records[1].Description) != "€ 5" || *file.Records[1].IsActive || file.Records[1].Line != 3 {
				t.Fatalf("%+v", file.Records)
			}
		})
	}
	t.Run("iso-8859-1", func(t *testing.T) {
		file, err := ParseWith(strings.NewReader("wbsElementCode,description\nA-1,Gr\xfc\xdfe\n"), FormatCSV, ReadOptions{Encoding: "iso-8859-1"})
		if err != nil || len(file.Problems) > 0 || deref(file.Records[0].Description) != "Grüße" {
			t.Fatalf("%v %v %+v", err, file.Problems, file.Records)
		}
	})
}

// What cannot be read as text of its encoding is refused, naming the line
// and what to do.
func TestCSVEncodingProblems(t *testing.T) {
	odd := utf16File("wbsElementCode\nA-1\n", binary.LittleEndian)
	lone := utf16File("wbsElementCode\nA-1\n", binary.LittleEndian)
	lone = binary.LittleEndian.AppendUint16(lone, 0xd800)
	lone = append(lone, utf16File("B\n", binary.LittleEndian)[2:]...)
	tests := []struct {
		name string
		data []byte
		opts ReadOptions
		want string
	}{
		{"Windows-1252 without --encoding", []byte("wbsElementCode;description\nA-1;M\xfcller\n"), ReadOptions{},
			"line 2: description: is not valid UTF-8: give the file's encoding with --encoding (windows-1252 or iso-8859-1), or save it as UTF-8"},
		{"not UTF-8, as --encoding utf-8 says", []byte("wbsElementCode\nM\xfcller\n"), ReadOptions{Encoding: "utf-8"},
			"line 2: wbsElementCode: is not valid UTF-8, which --encoding utf-8 says it is"},
		{"a byte windows-1252 leaves undefined", []byte("wbsElementCode\nA-1\nA\x81\n"), ReadOptions{Encoding: "windows-1252"},
			"line 3: holds the byte 0x81, which is no character in windows-1252"},
		{"UTF-16 cut short", odd[:len(odd)-1], ReadOptions{},
			"line 2: is UTF-16 by its byte-order mark, but has an odd number of bytes (39): the file is cut short"},
		{"a lone surrogate", lone, ReadOptions{},
			"line 3: is UTF-16 by its byte-order mark, but holds a lone surrogate 0xd800"},
		{"UTF-16 with --encoding", utf16File("wbsElementCode\n", binary.BigEndian), ReadOptions{Encoding: "windows-1252"},
			"line 1: starts with the byte-order mark of UTF-16, but --encoding says windows-1252: leave --encoding out"},
		{"UTF-8 with --encoding", []byte("\xef\xbb\xbfwbsElementCode\nA-1\n"), ReadOptions{Encoding: "windows-1252"},
			"line 1: starts with the byte-order mark of UTF-8, but --encoding says windows-1252: leave --encoding out"},
		{"a header of two delimiters", []byte("wbsElementCode;description,isActive\nA;b,true\n"), ReadOptions{},
			"line 1: the header holds ',' and ';': give the one that separates the cells with --delimiter"},
		{"a header of three", []byte("wbsElementCode;description,isActive\tx\n"), ReadOptions{},
			"line 1: the header holds ',' and ';' and TAB: give the one that separates the cells with --delimiter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := ParseWith(bytes.NewReader(tt.data), FormatCSV, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Problems) != 1 || file.Problems[0].String() != tt.want || len(file.Records) != 0 {
				t.Fatalf("problems %v, records %+v\nwant %s", file.Problems, file.Records, tt.want)
			}
		})
	}
}

// --delimiter decides where the header would not: a ';' header whose
// cells hold commas, or a header with a comma in a quoted name.
func TestCSVDelimiterGiven(t *testing.T) {
	file, err := ParseWith(strings.NewReader("wbsElementCode|description\nA-1|a, b; c\n"), FormatCSV, ReadOptions{Delimiter: '|'})
	if err != nil || len(file.Problems) > 0 || deref(file.Records[0].Description) != "a, b; c" {
		t.Fatalf("%v %v %+v", err, file.Problems, file.Records)
	}
}

// Options that do not fit the format, or name nothing known, are refused
// before the file is read.
func TestReadOptionsCheck(t *testing.T) {
	tests := []struct {
		f    Format
		opts ReadOptions
		want string
	}{
		{FormatCSV, ReadOptions{Sheet: "WBS"}, "--sheet names a sheet of a workbook; the file is csv"},
		{FormatJSON, ReadOptions{Delimiter: ';'}, "--delimiter separates the cells of CSV; the file is json"},
		{FormatXLSX, ReadOptions{Encoding: "windows-1252"}, "--encoding is the encoding of a text file; a workbook states its own"},
		{FormatCSV, ReadOptions{Encoding: "ebcdic"}, `--encoding "ebcdic": use windows-1252, iso-8859-1 or utf-8 (UTF-16 is found by its byte-order mark)`},
		{FormatCSV, ReadOptions{Delimiter: '"'}, `--delimiter "\"": give one character other than a quote or a line break, such as ';' or tab`},
		{FormatYAML, ReadOptions{Encoding: "latin1"}, ""},
		{FormatCSV, ReadOptions{Encoding: "CP1252", Delimiter: '\t'}, ""},
	}
	for _, tt := range tests {
		err := tt.opts.Check(tt.f)
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.want {
				t.Errorf("%s %+v: %q, want %q", tt.f, tt.opts, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%s %+v: no error, want %q", tt.f, tt.opts, tt.want)
		}
	}
	for in, want := range map[string]rune{";": ';', ",": ',', "tab": '\t', `\t`: '\t', "\t": '\t', "TAB": '\t', "|": '|'} {
		if got, err := ParseDelimiter(in); err != nil || got != want {
			t.Errorf("ParseDelimiter(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", ";;", "\n", `"`} {
		if _, err := ParseDelimiter(in); err == nil {
			t.Errorf("ParseDelimiter(%q): no error", in)
		}
	}
}

// A German Excel's CSV, saved in Windows-1252 with ';', says WAHR and
// FALSCH; other languages' spreadsheets say VRAI, FALSO, FAŁSZ and so on.
// Each is read as the boolean it means; anything else is refused, naming
// the cell's text.
func TestSpreadsheetBooleansOfOtherLanguages(t *testing.T) {
	german := "wbsElementCode;description;isActive\r\nA-1;Baugrube f\xfcr Halle;WAHR\r\nA-2;Stra\xdfe;FALSCH\r\nA-3;x;Wahr\r\n"
	f, err := ParseBytes([]byte(german), FormatCSV, ReadOptions{Encoding: "windows-1252"})
	if err != nil || len(f.Problems) != 0 || len(f.Records) != 3 {
		t.Fatalf("%v %v", err, f.Problems)
	}
	for i, want := range []bool{true, false, true} {
		if r := f.Records[i]; r.IsActive == nil || *r.IsActive != want {
			t.Errorf("%s: isActive %v, want %v", r.Code, r.IsActive, want)
		}
	}
	if *f.Records[1].Description != "Straße" {
		t.Errorf("description %q", *f.Records[1].Description)
	}
	for text, want := range map[string]bool{"VRAI": true, "FAUX": false, "VERO": true, "FALSO": false, "VERDADERO": true,
		"WAAR": true, "ONWAAR": false, "PRAWDA": true, "FAŁSZ": false, "TOSI": true, "EPÄTOSI": false, "IGAZ": true, "HAMIS": false} {
		f, err := ParseBytes([]byte("wbsElementCode,isActive\nA-1,"+text+"\n"), FormatCSV, ReadOptions{})
		if err != nil || len(f.Records) != 1 || *f.Records[0].IsActive != want {
			t.Errorf("%s: %v %v", text, err, f.Problems)
		}
	}
	f, _ = ParseBytes([]byte("wbsElementCode,isActive\nA-1,VIELLEICHT\n"), FormatCSV, ReadOptions{})
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].String(), `isActive: "VIELLEICHT" is not a boolean`) {
		t.Fatalf("%v", f.Problems)
	}
}
