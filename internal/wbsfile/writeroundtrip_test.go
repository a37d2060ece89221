package wbsfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/oddtext"
	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// The writers' half of export's round trip (the whole of it, through the
// reference server and apply, is TestExportRoundTripsEveryValue in
// internal/cmd/export): a record of any text the platform can hold is
// written so that Parse reads it back the same, with no problem, or
// refused by its code, field and character before any of it is written.

// oddPiece is a piece of text: a character of the whole of Unicode (a
// lone surrogate, which a Go string cannot hold, as JSON's escape of it),
// an odd character, an odd word, or ASCII.
var oddPiece = rapid.OneOf(
	rapid.Map(rapid.SampledFrom(oddtext.Runes), func(r rune) string { return string(r) }),
	rapid.Custom(func(t *rapid.T) string {
		// A plane and a place in it: a draw favours the edges, where
		// the noncharacters are (the C0 controls come from oddtext.Runes).
		r := rapid.Int32Range(0, 16).Draw(t, "plane")<<16 | rapid.Int32Range(0x20, 0xffff).Draw(t, "code point")
		if r >= 0xd800 && r <= 0xdfff {
			return fmt.Sprintf(`\u%04x`, r)
		}
		return string(r)
	}),
	rapid.SampledFrom(oddtext.Words),
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
	return Record{Code: oddText(sdk.MinCodeLength, sdk.MaxCodeLength).Draw(t, "code"), Texts: Texts{Description: &desc}, IsActive: &active, OrganizationsSet: true,
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
