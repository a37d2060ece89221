package wbsfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// The writers' half of export's round trip (the whole of it, through the
// reference server and apply, is TestExportRoundTripsEveryValue in
// internal/cmd/export): a record of any text the platform can hold is
// written so that Parse reads it back the same, with no problem, or
// refused by its code, field and character before any of it is written.

// oddRunes are characters that a format, a reader or a spreadsheet may
// take for something else, or drop.
var oddRunes = []rune{
	// Noncharacters and the replacement character, first: a draw favours
	// the first few and the last.
	0xfffe, 0xffff, 0xfffd, 0x1fffe, 0x10ffff, 0xfdd0, 0xfdef, 0x1ffff, 0x2fffe, 0x10fffe,
	// Default-ignorables.
	0xfeff, 0x200b, 0x034f, 0xfe0f, 0xe0001, 0x00ad, 0x115f, 0x1160, 0x180e, 0x200c, 0x200d, 0x2060, 0x2064, 0x3164, 0xfe00, 0xffa0,
	0x1d173, 0xe0020, 0xe007f, 0xe0100, 0xe01ef, 0xe0fff,
	// Bidi controls.
	0x202e, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069,
	// Spaces and line breaks other than ASCII's.
	0x00a0, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
	// C0, DEL and C1 controls, which apply refuses.
	0x00, 0x01, 0x07, 0x08, '\t', '\n', 0x0b, 0x0c, '\r', 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	// Letters that case, compose or decompose, and the edges of the planes.
	0x0301, 0x00e9, 0x00c4, 0x00df, 0x0130, 0x0131, 0x212a, 0x1e9e, 0xd7ff, 0xe000, 0xf8ff, 0xf0000, 0x10fffd, 0x1f600, 0x1f1e9, 0x1d11e,
	// What the formats give a meaning to.
	'"', '\'', '\\', ',', ';', '=', '#', ':', '-', '?', '&', '*', '!', '|', '>', '<', '%', '@', '`', '{', '}', '[', ']', '_', '+', '.', '~', '$', ' ',
}

// oddWords are texts that a format or a spreadsheet may read as another
// type, a formula, an escape or a structure.
var oddWords = []string{
	"1000", "007", "0", "-0", "+1", "1e3", "1E-3", "0x1F", "0o17", "0b1", "1_000", ".5", "1.", "Infinity", "NaN", ".inf", "-.Inf", ".nan",
	"true", "TRUE", "False", "yes", "No", "on", "OFF", "y", "n", "WAHR", "null", "Null", "NULL", "~", "nil",
	"=1+1", "=SUM(A1:A2)", "+A1", "-A1", "@SUM(A1)", `=HYPERLINK("x")`, "2024-01-15", "2024-01-15T10:00:00Z", "12:30", "1:2:3",
	"_x000D_", "_x0041_", "_X0041_", "_x005F_", "&amp;", "&#x0;", "]]>", "<![CDATA[",
	`\ud800`, `\udc00`, `\uDBFF\uDFFF`, `\u0000`, `\\`, `\n`, `\t`, `\;`, `\=`,
	"---", "...", "- ", "? ", ": ", "# ", "&a", "*a", "!!str", "!x", "%YAML 1.2", "|", ">", "[]", "{}", "[a, b]", "{a: b}", "<<",
	"$schema", "wbsElementCode", "wbsElements", "\r\n", "  ", "a=b", "a;b",
}

// oddPiece is a piece of text: a character of the whole of Unicode (a
// lone surrogate, which a Go string cannot hold, as JSON's escape of it),
// an odd character, an odd word, or ASCII.
var oddPiece = rapid.OneOf(
	rapid.Map(rapid.SampledFrom(oddRunes), func(r rune) string { return string(r) }),
	rapid.Custom(func(t *rapid.T) string {
		// A plane and a place in it: a draw favours the edges, where
		// the noncharacters are (the C0 controls come from oddRunes).
		r := rapid.Int32Range(0, 16).Draw(t, "plane")<<16 | rapid.Int32Range(0x20, 0xffff).Draw(t, "code point")
		if r >= 0xd800 && r <= 0xdfff {
			return fmt.Sprintf(`\u%04x`, r)
		}
		return string(r)
	}),
	rapid.SampledFrom(oddWords),
	rapid.StringMatching(`[A-Za-z0-9 -]{1,4}`),
)

// oddText is a text of min to max characters made of pieces.
func oddText(min, max int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		runes := []rune(strings.Join(rapid.SliceOfN(oddPiece, 0, 6).Draw(t, "pieces"), ""))
		if len(runes) > max {
			runes = runes[:max]
		}
		for len(runes) < min {
			runes = append(runes, 'X')
		}
		return string(runes)
	})
}

// oddRecord is a record as export gives it: every field stated, each
// within the spec's lengths.
var oddRecord = rapid.Custom(func(t *rapid.T) Record {
	desc := oddText(0, sdk.MaxDescriptionLength).Draw(t, "description")
	active := rapid.Bool().Draw(t, "isActive")
	return Record{Code: oddText(sdk.MinCodeLength, sdk.MaxCodeLength).Draw(t, "code"), Description: &desc, IsActive: &active, OrganizationsSet: true,
		Organizations: rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) sdk.BusinessOrganization {
			return sdk.BusinessOrganization{Code: oddText(sdk.MinOrganizationFieldLength, 12).Draw(t, "org code"),
				EntityType: oddText(sdk.MinOrganizationFieldLength, 12).Draw(t, "entity type")}
		}), 0, 3, rapid.ID).Draw(t, "organizations")}
})

// writeShapes are the formats export writes, with the options of CSV.
var writeShapes = []struct {
	format Format
	opts   WriteOptions
	read   ReadOptions
}{
	{FormatCSV, WriteOptions{}, ReadOptions{}},
	{FormatCSV, WriteOptions{Delimiter: ';', BOM: true}, ReadOptions{}},
	{FormatCSV, WriteOptions{Delimiter: '\t'}, ReadOptions{}},
	{FormatCSV, WriteOptions{Delimiter: '|'}, ReadOptions{Delimiter: '|'}},
	{FormatJSON, WriteOptions{}, ReadOptions{}},
	{FormatNDJSON, WriteOptions{}, ReadOptions{}},
	{FormatYAML, WriteOptions{}, ReadOptions{}},
	{FormatXLSX, WriteOptions{}, ReadOptions{}},
}

var codePointRE = regexp.MustCompile(`U\+[0-9A-F]{4,6}`)

// Every writer writes any record of text the platform can hold so that
// Parse reads it back the same, with no problem, or refuses it, naming
// its code, the field and a character that field holds. The records
// written before a refusal read back the same.
func TestWriteRoundTripsEveryValue(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		recs := rapid.SliceOfNDistinct(oddRecord, 1, 4, func(r Record) string { return r.Code }).Draw(rt, "records")
		for _, shape := range writeShapes {
			var buf bytes.Buffer
			w, err := NewRecordWriterWith(&buf, shape.format, shape.opts)
			if err != nil {
				rt.Fatal(err)
			}
			written := recs
			for i, r := range recs {
				if err := w.Write(r); err != nil {
					if !namesWhatItRefuses(r, err.Error()) {
						rt.Fatalf("%s %+v: the refusal does not name the code, the field and a character it holds: %v", shape.format, shape.opts, err)
					}
					written = recs[:i]
					break
				}
			}
			if err := w.Close(); err != nil {
				rt.Fatalf("%s: %v", shape.format, err)
			}
			if len(written) == 0 {
				continue
			}
			// As apply --allow-invisible-codes reads it: the platform's
			// codes may hold what a file's should not.
			back, err := ParseBytesChecked(buf.Bytes(), shape.format, shape.read, Checks{AllowInvisibleCodes: true})
			if err != nil || len(back.Problems) > 0 || !sameRecords(written, back.Records) {
				rt.Fatalf("%s %+v: written without an error, read back otherwise: %v %v\nwritten %q\nread    %q\nthe file: %s",
					shape.format, shape.opts, err, back.Problems, printRecords(written), printRecords(back.Records), shownFile(shape.format, buf.Bytes()))
			}
		}
	})
}

// namesWhatItRefuses reports whether msg, the refusal of r, names r's
// code as Go quotes it, a field of r, and a character that field holds.
func namesWhatItRefuses(r Record, msg string) bool {
	if !strings.Contains(msg, strconv.Quote(r.Code)) {
		return false
	}
	orgs := ""
	for _, o := range r.Organizations {
		orgs += o.Code + o.EntityType
	}
	for field, value := range map[string]string{"wbsElementCode": r.Code, "description": deref(r.Description), "businessOrganizations": orgs} {
		if !strings.Contains(msg, "its "+field) {
			continue
		}
		for _, u := range codePointRE.FindAllString(msg, -1) {
			n, _ := strconv.ParseInt(u[2:], 16, 32)
			if strings.ContainsRune(value, rune(n)) {
				return true
			}
		}
	}
	return false
}

// printRecords shows records with their text escaped, for a failure.
func printRecords(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = fmt.Sprintf("%q %q %v %q", r.Code, deref(r.Description), r.IsActive == nil || *r.IsActive, r.Organizations)
	}
	return out
}

// shownFile is a text file, for a failure; a workbook is not text.
func shownFile(f Format, data []byte) string {
	if f == FormatXLSX {
		return fmt.Sprintf("(a workbook of %d bytes)", len(data))
	}
	return strconv.Quote(string(data))
}
