package wbsfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/unicodeprop"
)

// bidiControls are the bidi controls, each of which apply refuses in a
// code whether or not a version of Unicode counts it default-ignorable.
var bidiControls = []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}

// Every code point of Default_Ignorable_Code_Point, assigned or not, and
// every bidi control, makes a code's record invalid, its problem naming
// the line, the field and the code point; with AllowInvisibleCodes the
// file applies whole. No other character is refused for it.
func TestEveryInvisibleCodeIsRefused(t *testing.T) {
	var refused []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		want := unicodeprop.DefaultIgnorable(r)
		for _, b := range bidiControls {
			want = want || r == b
		}
		if got := invisibleRune("P-1" + string(r) + "x"); (got >= 0) != want || want && got != r {
			t.Errorf("invisibleRune(P-1 %U x) = %U, want refused %v", r, got, want)
		}
		if want {
			refused = append(refused, r)
		}
	}
	if len(refused) < 4000 {
		t.Fatalf("%d code points refused: the unassigned default-ignorables are missing", len(refused))
	}
	// One NDJSON file of a record a code point, read as apply reads it.
	var file bytes.Buffer
	for i, r := range refused {
		line, _ := json.Marshal(map[string]string{"wbsElementCode": fmt.Sprintf("C%d%c", i, r)})
		file.Write(append(line, '\n'))
	}
	f, err := ParseBytes(file.Bytes(), FormatNDJSON, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 0 || len(f.Invalid) != len(refused) {
		t.Fatalf("%d records valid, %d invalid; want every one of %d invalid", len(f.Records), len(f.Invalid), len(refused))
	}
	byLine := map[int]Problem{}
	for _, p := range f.Problems {
		byLine[p.Line] = p
	}
	for i, r := range refused {
		if i >= maxProblems {
			break // past the problems reported, still invalid
		}
		p := byLine[i+1]
		if p.Field != "wbsElementCode" || p.Code != fmt.Sprintf("C%d%c", i, r) || !strings.Contains(p.Message, fmt.Sprintf("%U,", r)) {
			t.Errorf("line %d, %U: problem %+v", i+1, r, p)
		}
	}
	f, err = ParseBytesChecked(file.Bytes(), FormatNDJSON, ReadOptions{}, Checks{AllowInvisibleCodes: true})
	if err != nil || len(f.Problems) != 0 || len(f.Records) != len(refused) {
		t.Fatalf("with AllowInvisibleCodes: %v, %d problems, %d records of %d", err, len(f.Problems), len(f.Records), len(refused))
	}
}

// In every format, a code with U+034F is refused by its place (line or
// cell), field and code point; --skip-invalid leaves it out and applies
// the rest; a description may hold it.
func TestInvisibleCodeInEveryFormat(t *testing.T) {
	const code = "P-1\u034f"
	for _, tt := range []struct {
		format Format
		data   []byte
		place  string
	}{
		{FormatCSV, []byte("wbsElementCode,description\nP-1,one\n" + code + ",two\nP-2,x\u034f\n"), "line 3"},
		{FormatJSON, []byte(`[{"wbsElementCode": "P-1"},` + "\n" + `{"wbsElementCode": "P-1\u034f"},` + "\n" + `{"wbsElementCode": "P-2", "description": "x\u034f"}]`), "line 2"},
		{FormatNDJSON, []byte(`{"wbsElementCode": "P-1"}` + "\n" + `{"wbsElementCode": "P-1\u034f"}` + "\n" + `{"wbsElementCode": "P-2", "description": "x\u034f"}` + "\n"), "line 2"},
		{FormatYAML, []byte("- wbsElementCode: P-1\n- wbsElementCode: \"P-1\\u034f\"\n- wbsElementCode: P-2\n  description: \"x\\u034f\"\n"), "line 2"},
		{FormatXLSX, streamed(t, []any{"description", "wbsElementCode"}, []any{"one", "P-1"}, []any{"two", code}, []any{"x\u034f", "P-2"}), "WBS!B3"},
	} {
		t.Run(string(tt.format), func(t *testing.T) {
			f, err := ParseBytes(tt.data, tt.format, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%s (code %q): wbsElementCode: holds the invisible character U+034F,", tt.place, code)
			if len(f.Problems) != 1 || !strings.HasPrefix(f.Problems[0].String(), want) {
				t.Fatalf("problems:\n%s\nwant one starting %q", problems(f), want)
			}
			if len(f.Records) != 2 || len(f.Invalid) != 1 || f.Invalid[0].Code != code || f.CodeUnknown != nil {
				t.Fatalf("records %+v, invalid %+v", f.Records, f.Invalid)
			}
			f, err = ParseBytesChecked(tt.data, tt.format, ReadOptions{}, Checks{AllowInvisibleCodes: true})
			if err != nil || len(f.Problems) != 0 || len(f.Records) != 3 || f.Records[1].Code != code {
				t.Fatalf("allowed: %v\n%s%+v", err, problems(f), f.Records)
			}
		})
	}
}

// A bidi control is named as one.
func TestBidiControlInACode(t *testing.T) {
	f, err := ParseBytes([]byte("wbsElementCode\nP-\u202e1\n"), FormatCSV, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := problems(f); !strings.Contains(got, "line 2 (code \"P-\\u202e1\"): wbsElementCode: holds the bidi control U+202E,") {
		t.Fatalf("problems:\n%s", got)
	}
}

// Codes of letters with marks, of any script, are no problem.
func TestCodesWithMarksAreValid(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("wbsElementCode\n")
	for _, code := range []string{"Việt-1", "Vie\u0323\u0302t-2", "हिन्दी-3", "ภาษา-4", "שָׁלוֹם-5", "Ärger-6", "e\u0301-7", "\u0301-8"} {
		csv.WriteString(code + "\n")
	}
	f, err := ParseBytes([]byte(csv.String()), FormatCSV, ReadOptions{})
	if err != nil || len(f.Problems) != 0 || len(f.Records) != 8 {
		t.Fatalf("%v\n%s", err, problems(f))
	}
}
