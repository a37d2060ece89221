// The workbook pre-scan: before excelize opens a workbook, this reads its
// parts and refuses what a spreadsheet would show otherwise than the cells
// read (parts no relationship names, hidden formats, escaped surrogate
// halves, numbers past 15 digits, formulas never calculated) and what
// would cost more memory than a workbook of its size should.

package wbsfile

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/xuri/excelize/v2"
	"golang.org/x/net/html/charset"
)

// What excelize keeps in memory while it reads a workbook is bounded here,
// before it opens the file: every part but a large sheet or shared-strings
// part (those go to a temporary file), and the styles it parses whole.
const (
	maxWorkbookInMemory = 128 << 20
	// maxPartElements bounds the XML elements of a part excelize parses
	// whole, such as the styles: Excel itself holds at most 64,000 cell
	// formats.
	maxPartElements = 500_000
)

// sharedStringsPart is the part of a workbook that holds its shared
// strings, where excelize reads them.
const sharedStringsPart = "xl/sharedStrings.xml"

// cellFault is a cell of a sheet that excelize would read other than as
// the file holds it.
type cellFault struct {
	sheet string // the sheet's name, or its part where the workbook does not name it
	cell  string // such as "B7"
	msg   string
}

func (f *cellFault) Error() string { return f.sheet + "!" + f.cell + ": " + f.msg }

// checkZip reads every part of the workbook data through before excelize
// opens it, and refuses
//   - a part that holds other than its header says (excelize reads what a
//     part says it holds and would take a part cut short for a whole one),
//     parts that unzip past maxWorkbookBytes in all, parts kept in memory
//     past maxWorkbookInMemory, a part parsed whole of more than
//     maxPartElements elements;
//   - a cell excelize would read other than as written (a *cellFault): a
//     shared string the workbook does not hold, a formula with no value
//     stored, a formula's error, a date stored as such (t="d"), a cell or
//     row that does not come after the one before it. excelize reads the
//     first two as empty, which would clear what the file did not clear.
//     Only the cells of the sheet read count (sheet, or the first when
//     ""), or of every sheet where the workbook does not say which part
//     that is.
func checkZip(data []byte, sheet string) (read sheetFacts, err error) {
	err = checkZipParts(data, sheet, &read)
	return read, err
}

// checkZipParts is checkZip, which sets *read to the facts of the sheet
// read, where the workbook says which part that is.
func checkZipParts(data []byte, sheet string, readFacts *sheetFacts) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errNotZip
	}
	var total, inMemory uint64
	// excelize reads a part by its name with '/' for '\'; two names that
	// differ only in case would be two parts to it and one to checks that
	// ignore case, as a spreadsheet does.
	byName := map[string]*zip.File{}
	for _, f := range zr.File {
		if total += f.UncompressedSize64; total > maxWorkbookBytes {
			return errUnzipsTooLarge
		}
		name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))
		if byName[name] != nil {
			return fmt.Errorf("it holds two parts named %s: the file is damaged", f.Name)
		}
		byName[name] = f
	}
	// The workbook part is where the package's relationships say, as
	// excelize and a spreadsheet find it.
	wbPart := "xl/workbook.xml"
	if f := byName["_rels/.rels"]; f != nil {
		b, err := readPart(f)
		if err != nil {
			return err
		}
		if target := officeDocument(b); target != "" {
			wbPart = target
		}
	}
	relsPart := path.Join(path.Dir(wbPart), "_rels", path.Base(wbPart)+".rels")
	held := 0
	var surrogates map[int]string     // the shared strings that hold half a character, by index
	sheets := map[string]sheetFacts{} // by part
	tooLong := map[string]string{}    // the parts with a text too long, by part
	var workbook, rels []byte
	for _, f := range zr.File {
		name := strings.ReplaceAll(f.Name, `\`, "/")
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("the part %s: %w", f.Name, err)
		}
		counted := &countingReader{r: rc}
		var facts sheetFacts
		switch lower := strings.ToLower(name); lower {
		case strings.ToLower(sharedStringsPart):
			held, surrogates, err = scanSharedStrings(counted)
		case wbPart:
			workbook, err = io.ReadAll(io.LimitReader(counted, workbookPartInMemory))
		case relsPart:
			rels, err = io.ReadAll(io.LimitReader(counted, workbookPartInMemory))
		default:
			// Any part may be a sheet, whatever its name ends with. A
			// text too long for a cell matters only in the sheet read:
			// an image's part holds long runs too.
			if facts = scanSheet(counted, nil); facts.sheet {
				sheets[lower] = facts
			}
			if facts.err != nil {
				tooLong[lower] = f.Name
			}
		}
		if err == nil {
			_, err = io.Copy(io.Discard, counted)
		}
		rc.Close()
		if errors.Is(err, errTextTooLong) {
			return fmt.Errorf("the part %s %w", f.Name, err)
		}
		if errors.Is(err, errManySurrogates) {
			return err
		}
		if err != nil {
			return fmt.Errorf("the part %s does not hold what it says: %w", f.Name, err)
		}
		onDisk := counted.n > workbookPartInMemory && (strings.HasPrefix(name, "xl/worksheets/sheet") || name == sharedStringsPart)
		if !onDisk {
			if inMemory += counted.n; inMemory > maxWorkbookInMemory {
				return fmt.Errorf("its parts held in memory unzip to more than %d bytes", maxWorkbookInMemory)
			}
		}
		if !facts.sheet && facts.elements > maxPartElements {
			return fmt.Errorf("the part %s holds more than %d XML elements", f.Name, maxPartElements)
		}
	}
	if err := checkFixedParts(rels, path.Dir(wbPart), byName); err != nil {
		return err
	}
	order := sheetParts(workbook, rels, path.Dir(wbPart))
	named := make(map[string]string, len(order))
	for _, s := range order {
		key := foldKey(s.name)
		if first, ok := named[key]; ok {
			return fmt.Errorf("it names two sheets %q and %q, which a spreadsheet does not tell apart: the file is damaged", first, s.name)
		}
		named[key] = s.name
	}
	read := "" // the part of the sheet read, where the workbook says
	for _, s := range order {
		if sheet == "" && !s.hidden || sheet != "" && strings.EqualFold(s.name, sheet) {
			read = s.part
			if facts, ok := sheets[s.part]; ok {
				sheets = map[string]sheetFacts{s.part: facts}
				*readFacts = facts
			}
			readFacts.name = s.name
			break
		}
	}
	for part, name := range tooLong {
		if read == "" || part == read {
			return fmt.Errorf("the part %s %w", name, errTextTooLong)
		}
	}
	names := map[string]string{}
	for _, s := range order {
		names[s.part] = s.name
	}
	if len(surrogates) > 0 {
		if err := findSurrogateCell(byName[read], names[read], surrogates); err != nil {
			return err
		}
	}
	for part, facts := range sheets {
		name := names[part]
		if name == "" {
			name = part
		}
		if facts.fault != nil {
			facts.fault.sheet = name
			return facts.fault
		}
		if facts.highest >= held {
			return &cellFault{sheet: name, cell: facts.highestCell,
				msg: fmt.Sprintf("refers to shared string %d, but the workbook holds %d: the file is damaged", facts.highest, held)}
		}
	}
	return nil
}

// readPart reads a small part whole.
func readPart(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("the part %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, workbookPartInMemory))
	if err != nil {
		return nil, fmt.Errorf("the part %s does not hold what it says: %w", f.Name, err)
	}
	return b, nil
}

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
		// excelize takes the first of this type, its target as written.
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

// newDecoder is an XML decoder of r that reads the encodings a part may
// declare, as excelize's does.
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.CharsetReader = charset.NewReaderLabel
	return d
}

type countingReader struct {
	r io.Reader
	n uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

// scanSharedStrings counts the shared strings of a shared-strings part,
// and notes those that hold half a character (surrogateEscape) in their
// text as excelize joins it: every run's, not the phonetic guide's. Past
// maxSurrogatesNoted such strings it fails: the workbook is refused.
func scanSharedStrings(r io.Reader) (n int, surrogates map[int]string, err error) {
	depth, phonetic := 0, 0
	var text []byte // of the string being read, up to maxSharedStringText
	bounded := &textBound{r: r}
	d := newDecoder(bounded)
	for {
		tok, err := d.RawToken()
		if err != nil {
			return n, surrogates, bounded.err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 2 && el.Name.Local == "si":
				n++
				text = text[:0]
			case el.Name.Local == "rPh":
				phonetic++
			}
		case xml.EndElement:
			depth--
			switch {
			case el.Name.Local == "rPh":
				phonetic--
			case depth == 1 && el.Name.Local == "si":
				if esc := surrogateEscape(text); esc != "" {
					if len(surrogates) == maxSurrogatesNoted {
						return n, surrogates, errManySurrogates
					}
					if surrogates == nil {
						surrogates = map[int]string{}
					}
					surrogates[n-1] = esc
				}
			}
		case xml.CharData:
			if depth >= 3 && phonetic == 0 && len(text) < maxSharedStringText {
				text = append(text, el[:min(len(el), maxSharedStringText-len(text))]...)
			}
		}
	}
}

// errManySurrogates refuses a workbook with more shared strings that hold
// half a character than are noted.
var errManySurrogates = fmt.Errorf("more than %d of its shared strings hold half of a character escaped as Excel writes one (an emoji, say), which would be lost: save the workbook again in LibreOffice", maxSurrogatesNoted)

// maxSharedStringText bounds the text of one shared string that is looked
// at: a cell holds at most 32,767 characters.
const maxSharedStringText = 32767 * 4

// maxSurrogatesNoted bounds the shared strings noted as holding half a
// character: one is enough to refuse the workbook.
const maxSurrogatesNoted = 1000

// surrogateEscape returns the first escape of value that is half of a
// character, _xD800_ to _xDFFF_, such as _xD83D_ of an emoji escaped as
// _xD83D__xDE00_, or "". excelize drops such halves, where a spreadsheet
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

// findSurrogateCell returns the fault of the first cell of the sheet part
// f (the sheet name) that refers to one of the shared strings surrogates,
// or, where the workbook does not say which part its sheet is, the
// fault of the first such string.
func findSurrogateCell(f *zip.File, name string, surrogates map[int]string) error {
	if f != nil {
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("the part %s: %w", f.Name, err)
		}
		facts := scanSheet(rc, surrogates)
		rc.Close()
		if facts.fault == nil {
			return nil // no cell of the sheet read refers to one
		}
		facts.fault.sheet = name
		return facts.fault
	}
	first := -1
	for i := range surrogates {
		if first < 0 || i < first {
			first = i
		}
	}
	return fmt.Errorf("its shared string %d %s", first, lostHalf(surrogates[first]))
}

// sheetFacts is what scanSheet reads of a part.
type sheetFacts struct {
	sheet    bool // the part has sheetData: it is a sheet
	elements int
	// highest is the highest index of a shared string a cell refers to,
	// -1 when none does, and highestCell that cell.
	highest     int
	highestCell string
	// hidden counts the rows of the sheet's data that are hidden, and
	// hiddenRows are the first of their numbers.
	hidden     int
	hiddenRows []int
	// surrogates are the shared strings that hold half a character, by
	// index: a cell that refers to one is a fault.
	surrogates map[int]string
	// name is the sheet's name where the workbook names the sheet read:
	// the reader reads that one.
	name  string
	fault *cellFault // the first cell excelize would misread
	err   error      // errTextTooLong, or nil
}

// maxHiddenRowsNamed bounds the hidden rows a note names.
const maxHiddenRowsNamed = 10

// The bounds of a sheet, as a spreadsheet has them.
const (
	maxSheetRows = 1 << 20
	maxSheetCols = 1 << 14
)

// scanSheet reads the cells of a sheet part, or counts the elements of
// another part. XML it cannot read is read as far as it could: excelize
// judges it. What excelize would read other than a spreadsheet shows it
// is a fault: a row outside the sheet's data or in another namespace
// (excelize reads every row element of the part), a value a cell's type
// cannot hold, an attribute given twice.
func scanSheet(r io.Reader, surrogates map[int]string) sheetFacts {
	facts := sheetFacts{highest: -1, surrogates: surrogates}
	bounded := &textBound{r: r}
	d := newDecoder(bounded)
	var (
		root, inSheetData bool
		prefix            string // of the part's own elements
		depth, cellDepth  int    // of the element read, of the cell
		inValue           bool
		row, col          int // of the row and cell being read, from 1
		ref, typ          string
		formula, valued   bool
		value             []byte
	)
	// fault notes the first cell misread: the one being read.
	fault := func(msg string) {
		if facts.fault == nil {
			name, _ := excelize.CoordinatesToCellName(min(max(col, 1), maxSheetCols), min(max(row, 1), maxSheetRows))
			facts.fault = &cellFault{cell: name, msg: msg}
		}
	}
	for {
		if facts.fault != nil && facts.sheet {
			return facts // the first fault is what is reported
		}
		tok, err := d.RawToken()
		if err != nil {
			facts.err = bounded.err
			return facts
		}
		switch el := tok.(type) {
		case xml.StartElement:
			facts.elements++
			depth++
			if !root {
				root, prefix = true, el.Name.Space
			}
			local := el.Name.Local
			if inSheetData && el.Name.Space != prefix {
				fault(fmt.Sprintf("holds the element %s:%s of another namespace, which a spreadsheet leaves out: the file is damaged", el.Name.Space, local))
			}
			if (local == "row" || local == "c") && repeatedAttr(el) {
				fault(fmt.Sprintf("a %s element gives an attribute twice: the file is damaged", local))
			}
			switch {
			case local == "sheetData":
				inSheetData, facts.sheet = true, true
			case !inSheetData:
				if local == "row" {
					fault("a row outside the sheet's data, which a spreadsheet leaves out: the file is damaged")
				}
			case local == "row":
				next := row + 1
				if r, err := strconv.Atoi(attr(el, "r")); err == nil {
					next = r
				}
				if next <= row && facts.fault == nil {
					facts.fault = &cellFault{cell: fmt.Sprintf("A%d", next), msg: fmt.Sprintf("row %d comes after row %d: the file is damaged", next, row)}
				}
				row, col = next, 0
				if h := attr(el, "hidden"); h == "1" || h == "true" {
					if facts.hidden++; len(facts.hiddenRows) < maxHiddenRowsNamed {
						facts.hiddenRows = append(facts.hiddenRows, row)
					}
				}
				if row > maxSheetRows {
					fault(fmt.Sprintf("a row past the sheet's last, %d: the file is damaged", maxSheetRows))
				}
			case local == "c" && cellDepth > 0:
				fault("holds a cell inside a cell: the file is damaged")
			case local == "c":
				ref, typ, cellDepth = attr(el, "r"), attr(el, "t"), depth
				formula, valued, value = false, false, value[:0]
				next := col + 1
				if ref != "" {
					if c, r, err := excelize.CellNameToCoordinates(ref); err == nil {
						next = c
						if r != row {
							fault(fmt.Sprintf("is named %s in row %d: the file is damaged", ref, row))
						}
					}
				}
				if next <= col {
					fault("comes after a cell right of it, or of the same column, in its row: the file is damaged")
				}
				col = next
			case depth == cellDepth+1 && local == "f":
				formula = true
			case depth == cellDepth+1 && local == "v":
				inValue, valued = true, true
			case depth > cellDepth+1 && local == "t" && typ == "inlineStr":
				inValue = true
			}
		case xml.EndElement:
			depth--
			switch el.Name.Local {
			case "sheetData":
				inSheetData = false
			case "v", "t":
				inValue = false
			case "c":
				if inSheetData && depth == cellDepth-1 {
					checkValue(typ, formula, valued, value, fault, &facts, ref)
					cellDepth = 0
				}
			}
		case xml.CharData:
			if inValue {
				value = append(value, el...)
			}
		}
	}
}

// notCalculated is the fault of a formula whose value is not stored.
const notCalculated = "holds a formula whose value was never calculated: open the workbook in a spreadsheet and save it, so that the values are stored"

// checkValue faults a cell whose value excelize would read other than a
// spreadsheet shows it, and notes the shared strings it refers to.
func checkValue(typ string, formula, valued bool, value []byte, fault func(string), facts *sheetFacts, ref string) {
	switch typ {
	case "", "n":
		f, err := strconv.ParseFloat(string(value), 64)
		switch {
		case formula && len(value) == 0:
			fault(notCalculated)
		case len(value) == 0:
			// Empty, as a spreadsheet shows it.
		case err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f == 0 && math.Signbit(f):
			fault(fmt.Sprintf("holds %q, which a spreadsheet does not show as a number: the file is damaged", value))
		case math.Abs(f) >= 1e15 || f != 0 && math.Abs(f) < 1e-9:
			// Past 15 digits a spreadsheet keeps no more; there, and
			// far below 1, Excel, LibreOffice and excelize each write
			// the number their own way (1E+20, 1E+020, 100000…).
			fault(fmt.Sprintf("holds the number %s, which spreadsheets show rounded or in scientific notation, each its own way: format the column as text and type the value again", value))
		}
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(string(value)))
		if formula {
			// A formula's text is t="str"; excelize reads this one's
			// index as its text, a spreadsheet calculates it anew.
			fault("holds a formula whose value is a shared string, which no spreadsheet writes: the file is damaged")
		} else if err != nil || i < 0 {
			fault(fmt.Sprintf("refers to shared string %q: the file is damaged", value))
		} else if esc, ok := facts.surrogates[i]; ok {
			fault(lostHalf(esc))
		} else if i > facts.highest {
			facts.highest, facts.highestCell = i, ref
		}
	case "b":
		if v := string(value); valued && v != "0" && v != "1" {
			fault(fmt.Sprintf("holds %q, which is not a boolean (0 or 1): the file is damaged", value))
		} else if !valued && formula {
			fault(notCalculated)
		}
	case "e":
		fault(fmt.Sprintf("holds the error %s of a formula", value))
	case "d":
		fault(fmt.Sprintf("is a date (%s), not text: format the column as text and type the value again", value))
	case "str", "inlineStr":
		if formula && !valued {
			fault(notCalculated)
		}
		// A spreadsheet shows _x000D_ in a value as the character it
		// escapes; excelize gives a formula's text as written.
		if esc := escapedChar(value); typ == "str" && esc != "" {
			fault(fmt.Sprintf("holds the escaped character %s in a formula's text, which would be read as written: enter the text without it", esc))
		}
		if esc := surrogateEscape(value); typ == "inlineStr" && esc != "" {
			fault(lostHalf(esc))
		}
	default:
		fault(fmt.Sprintf("has the type %q, which no spreadsheet writes: the file is damaged", typ))
	}
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

// repeatedAttr reports whether el gives an attribute twice.
func repeatedAttr(el xml.StartElement) bool {
	for i, a := range el.Attr {
		for _, b := range el.Attr[:i] {
			if a.Name == b.Name {
				return true
			}
		}
	}
	return false
}

// maxTextRun bounds the text between two XML tags of a part: a cell holds
// at most 32,767 characters, which take at most 10 bytes each as a
// character reference.
const maxTextRun = 32767 * 10

// errTextTooLong is a part with a text longer than any cell holds.
var errTextTooLong = fmt.Errorf("holds a text of more than %d bytes between two tags, more than any cell holds: the file is damaged", maxTextRun)

// textBound reads r and fails with errTextTooLong at a text run past
// maxTextRun, before an XML decoder would hold it whole.
type textBound struct {
	r   io.Reader
	run int
	err error
}

func (t *textBound) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		if c == '<' {
			t.run = 0
		} else if t.run++; t.run > maxTextRun {
			t.err = errTextTooLong
			return 0, t.err
		}
	}
	return n, err
}

func attr(el xml.StartElement, local string) string {
	for _, a := range el.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// fixedParts are the parts excelize reads by their usual names, not where
// the workbook's relationships name them, as a spreadsheet does.
var fixedParts = []struct{ kind, what, part string }{
	{"sharedStrings", "shared strings", strings.ToLower(sharedStringsPart)},
	{"styles", "styles", "xl/styles.xml"},
}

// checkFixedParts refuses a workbook whose shared strings or styles a
// spreadsheet finds elsewhere than excelize reads them: the
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
			// excelize reads the styles by their name exactly; a
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

// sheetPart is a sheet of a workbook and its part, lower case, and
// whether it is hidden (its state hidden or veryHidden).
type sheetPart struct {
	name, part string
	hidden     bool
}

// sheetParts are the sheets of a workbook in its order, with their parts,
// from the workbook part and its relationships, whose targets are relative
// to dir; what it cannot read is left out.
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
		// Visible only when its state, in any namespace, says so or
		// is not given, as excelize and a spreadsheet read it.
		hidden := false
		for _, a := range s.Attr {
			hidden = hidden || a.Name.Local == "state" && a.Value != "" && a.Value != "visible"
		}
		for _, a := range s.Attr {
			if target, ok := targets[a.Value]; ok && a.Name.Local == "id" {
				parts = append(parts, sheetPart{name: s.Name, part: target, hidden: hidden})
			}
		}
	}
	return parts
}
