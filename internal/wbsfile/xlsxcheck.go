// The checks of a workbook read: what a spreadsheet would show otherwise
// than the cells read (parts no relationship names, hidden formats,
// escaped surrogate halves, numbers past 15 digits, formulas never
// calculated) and what would cost more memory than a workbook of its size
// should. The reader (xlsxread.go) applies them as it reads each part
// once.

package wbsfile

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// What a workbook's parts may hold: every part but a large sheet or
// shared-strings part counts towards maxWorkbookInMemory, and the styles,
// parsed whole, hold at most maxPartElements elements.
const (
	maxWorkbookInMemory = 128 << 20
	// maxPartElements bounds the XML elements of a part the reader parses
	// whole, such as the styles: Excel itself holds at most 64,000 cell
	// formats.
	maxPartElements = 500_000
)

// sharedStringsPart is the part of a workbook that holds its shared
// strings, where the reader reads them (in any case).
const sharedStringsPart = "xl/sharedStrings.xml"

// cellFault is a cell of a sheet that would be read other than a
// spreadsheet shows it.
type cellFault struct {
	sheet string // the sheet's name, or its part where the workbook does not name it
	cell  string // such as "B7"
	msg   string
}

func (f *cellFault) Error() string { return f.sheet + "!" + f.cell + ": " + f.msg }

// officeDocument is the part the package relationships rels name as the
// workbook, lower case, or "".
func officeDocument(rels []byte) string {
	var rs struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if xml.Unmarshal(rels, &rs) != nil {
		return ""
	}
	for _, r := range rs.Rel {
		// The first of this type, its target as written, as excelize
		// takes it.
		if r.Type == officeDocumentType || r.Type == strictOfficeDocumentType {
			return strings.ToLower(strings.TrimPrefix(r.Target, "/"))
		}
	}
	return ""
}

// The relationship types of the workbook part, transitional and strict.
const (
	officeDocumentType       = transitionalRelationships + "officeDocument"
	strictOfficeDocumentType = strictRelationships + "officeDocument"
)

// foldKey is name with each letter replaced by the least of the letters a
// spreadsheet takes for it regardless of case ("ſ", "S" and "s" give "S"),
// so that two names strings.EqualFold matches have one key.
func foldKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// errManySurrogates refuses a workbook with more shared strings that hold
// half a character than are noted.
var errManySurrogates = fmt.Errorf("more than %d of its shared strings hold half of a character escaped as Excel writes one (an emoji, say), which would be lost: save the workbook again in LibreOffice", maxSurrogatesNoted)

// maxSurrogatesNoted bounds the shared strings noted as holding half a
// character: one is enough to refuse the workbook.
const maxSurrogatesNoted = 1000

// surrogateEscape returns the first escape of value that is half of a
// character, _xD800_ to _xDFFF_, such as _xD83D_ of an emoji escaped as
// _xD83D__xDE00_, or "". The reader drops such halves, where a spreadsheet
// joins them into the character.
func surrogateEscape(value []byte) string {
	for rest := value; ; {
		i := bytes.Index(rest, []byte("_x"))
		if i < 0 || i+7 > len(rest) {
			return ""
		}
		if n, err := strconv.ParseUint(string(rest[i+2:i+6]), 16, 16); err == nil && rest[i+6] == '_' && n >= 0xd800 && n <= 0xdfff {
			return string(rest[i : i+7])
		}
		rest = rest[i+1:]
	}
}

// lostHalf is the fault of a cell that holds half of a character.
func lostHalf(esc string) string {
	return fmt.Sprintf("holds %s, half of a character escaped as Excel writes one (an emoji, say), which would be lost: type the text again without it, or save the workbook again in LibreOffice", esc)
}

// notCalculated is the fault of a formula whose value is not stored.
const notCalculated = "holds a formula whose value was never calculated: open the workbook in a spreadsheet and save it, so that the values are stored"

// checkValue is the fault of a cell of type typ whose value (its v)
// would be read other than a spreadsheet shows it, or "". A shared
// string's index is checked against the table by the reader, and so is an
// inline string's text.
func checkValue(typ string, formula, valued bool, value []byte) string {
	switch typ {
	case "", "n":
		if len(value) == 0 {
			if formula {
				return notCalculated
			}
			return "" // empty, as a spreadsheet shows it
		}
		f, err := strconv.ParseFloat(string(value), 64)
		switch {
		case err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f == 0 && math.Signbit(f) || bytes.ContainsAny(value, "_xX"):
			return fmt.Sprintf("holds %q, which a spreadsheet does not show as a number: the file is damaged", value)
		case math.Abs(f) >= 1e15 || f != 0 && math.Abs(f) < 1e-9:
			// Past 15 digits a spreadsheet keeps no more; there, and
			// far below 1, Excel, LibreOffice and excelize each write
			// the number their own way (1E+20, 1E+020, 100000…).
			return fmt.Sprintf("holds the number %s, which spreadsheets show rounded or in scientific notation, each its own way: format the column as text and type the value again", value)
		}
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(string(value)))
		if formula {
			// A formula's text is t="str"; a spreadsheet calculates
			// this one anew.
			return "holds a formula whose value is a shared string, which no spreadsheet writes: the file is damaged"
		} else if err != nil || i < 0 {
			return fmt.Sprintf("refers to shared string %q: the file is damaged", value)
		}
	case "b":
		if v := string(value); valued && v != "0" && v != "1" {
			return fmt.Sprintf("holds %q, which is not a boolean (0 or 1): the file is damaged", value)
		} else if !valued && formula {
			return notCalculated
		}
	case "e":
		return fmt.Sprintf("holds the error %s of a formula", value)
	case "d":
		return fmt.Sprintf("is a date (%s), not text: format the column as text and type the value again", value)
	case "str", "inlineStr":
		if formula && !valued {
			return notCalculated
		}
		// A spreadsheet shows _x000D_ in a value as the character it
		// escapes; a formula's text is read as written.
		if esc := escapedChar(value); typ == "str" && esc != "" {
			return fmt.Sprintf("holds the escaped character %s in a formula's text, which would be read as written: enter the text without it", esc)
		}
	default:
		return fmt.Sprintf("has the type %q, which no spreadsheet writes: the file is damaged", typ)
	}
	return ""
}

// escapedChar returns the first character escape of value, such as
// _x000D_, or "".
func escapedChar(value []byte) string {
	for i := bytes.Index(value, []byte("_x")); i >= 0 && i+7 <= len(value); {
		hex := value[i+2 : i+6]
		if value[i+6] == '_' && len(bytes.Trim(hex, "0123456789abcdefABCDEF")) == 0 {
			return string(value[i : i+7])
		}
		next := bytes.Index(value[i+1:], []byte("_x"))
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return ""
}

// maxTextRun bounds the text between two XML tags of a part: a cell holds
// at most 32,767 characters, which take at most 10 bytes each as a
// character reference.
const maxTextRun = 32767 * 10

// errTextTooLong is a part with a text longer than any cell holds.
var errTextTooLong = fmt.Errorf("holds a text of more than %d bytes between two tags, more than any cell holds: the file is damaged", maxTextRun)

// fixedParts are the parts the reader reads by their usual names, not where
// the workbook's relationships name them, as a spreadsheet does.
var fixedParts = []struct{ kind, what, part string }{
	{"sharedStrings", "shared strings", strings.ToLower(sharedStringsPart)},
	{"styles", "styles", "xl/styles.xml"},
}

// checkFixedParts refuses a workbook whose shared strings or styles a
// spreadsheet finds elsewhere than the reader reads them: the
// relationships name another part, or none beside a part of the usual
// name, which a spreadsheet then leaves unread.
func checkFixedParts(rels []byte, dir string, byName map[string]*zip.File) error {
	var rs struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	_ = xml.Unmarshal(rels, &rs) // what cannot be read names no part
	for _, fixed := range fixedParts {
		var named []string
		for _, r := range rs.Rel {
			if r.Type == transitionalRelationships+fixed.kind || r.Type == strictRelationships+fixed.kind {
				named = append(named, resolveTarget(r.Target, dir))
			}
		}
		f, usual := byName[fixed.part]
		if usual && fixed.kind == "styles" && strings.ReplaceAll(f.Name, `\`, "/") != "xl/styles.xml" {
			name := strings.ReplaceAll(f.Name, `\`, "/")
			// The reader reads the styles by their name exactly; a
			// spreadsheet takes any capitals.
			return fmt.Errorf("its styles are in %s, where this reader, which looks for xl/styles.xml, would not find them: open it in Excel or LibreOffice and save it again", name)
		}
		switch {
		case len(named) > 1:
			return fmt.Errorf("its relationships name %d parts for its %s: the file could be read two ways", len(named), fixed.what)
		case len(named) == 1 && named[0] != fixed.part && usual:
			return fmt.Errorf("its relationships name %s for its %s, beside a part %s that a spreadsheet does not read: the file could be read two ways", named[0], fixed.what, fixed.part)
		case len(named) == 1 && named[0] != fixed.part:
			return fmt.Errorf("it keeps its %s in %s, where this reader does not look (it reads %s): open it in Excel or LibreOffice and save it again", fixed.what, named[0], fixed.part)
		case len(named) == 0 && usual:
			return fmt.Errorf("its relationships name no part for its %s, so a spreadsheet does not read the part %s that this reader would: the file could be read two ways", fixed.what, fixed.part)
		}
	}
	return nil
}

// The prefixes of the relationship types of a workbook's parts,
// transitional and strict.
const (
	transitionalRelationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
	strictRelationships       = "http://purl.oclc.org/ooxml/officeDocument/relationships/"
)

// resolveTarget is the part a relationship's target names, relative to
// dir, lower case.
func resolveTarget(target, dir string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if !strings.HasPrefix(target, "/") {
		target = dir + "/" + target
	}
	return strings.ToLower(strings.TrimPrefix(path.Clean("/"+target), "/"))
}

// sheetPart is a sheet of a workbook and its part, lower case ("" where
// the relationships name none), and whether it is hidden (its state hidden
// or veryHidden).
type sheetPart struct {
	name, part string
	hidden     bool
}

// sheetParts are the sheets of a workbook in its order, with their parts,
// from the workbook part and its relationships, whose targets are relative
// to dir; none when it cannot read them.
func sheetParts(workbook, rels []byte, dir string) []sheetPart {
	var wb struct {
		Sheets []struct {
			Name string     `xml:"name,attr"`
			Attr []xml.Attr `xml:",any,attr"`
		} `xml:"sheets>sheet"`
	}
	var rs struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if xml.Unmarshal(workbook, &wb) != nil || xml.Unmarshal(rels, &rs) != nil {
		return nil
	}
	targets := map[string]string{}
	for _, r := range rs.Rel {
		targets[r.ID] = resolveTarget(r.Target, dir)
	}
	var parts []sheetPart
	for _, s := range wb.Sheets {
		part := ""
		// Visible only when its state, in any namespace, says so or
		// is not given, as excelize and a spreadsheet read it.
		hidden := false
		for _, a := range s.Attr {
			hidden = hidden || a.Name.Local == "state" && a.Value != "" && a.Value != "visible"
		}
		for _, a := range s.Attr {
			if target, ok := targets[a.Value]; ok && a.Name.Local == "id" && part == "" {
				part = target
			}
		}
		parts = append(parts, sheetPart{name: s.Name, part: part, hidden: hidden})
	}
	return parts
}
