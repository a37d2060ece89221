package engine

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
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
func checkZip(data []byte, sheet string) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errNotZip
	}
	var total, inMemory uint64
	held := 0
	sheets := map[string]sheetFacts{} // by part
	var workbook, rels []byte
	for _, f := range zr.File {
		if total += f.UncompressedSize64; total > maxWorkbookBytes {
			return errUnzipsTooLarge
		}
		// excelize reads a part by its name with '/' for '\'.
		name := strings.ReplaceAll(f.Name, `\`, "/")
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("the part %s: %w", f.Name, err)
		}
		counted := &countingReader{r: rc}
		var facts sheetFacts
		switch {
		case strings.EqualFold(name, sharedStringsPart):
			held = countElements(counted, "si")
		case strings.EqualFold(name, "xl/workbook.xml"):
			workbook, err = io.ReadAll(io.LimitReader(counted, workbookPartInMemory))
		case strings.EqualFold(name, "xl/_rels/workbook.xml.rels"):
			rels, err = io.ReadAll(io.LimitReader(counted, workbookPartInMemory))
		case strings.HasSuffix(strings.ToLower(name), ".xml"):
			facts = scanSheet(counted)
			if facts.sheet {
				sheets[strings.ToLower(name)] = facts
			}
		}
		if err == nil {
			_, err = io.Copy(io.Discard, counted)
		}
		rc.Close()
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
	order := sheetParts(workbook, rels)
	for _, s := range order {
		if sheet == "" || strings.EqualFold(s.name, sheet) {
			if facts, ok := sheets[s.part]; ok {
				sheets = map[string]sheetFacts{s.part: facts}
			}
			break
		}
	}
	names := map[string]string{}
	for _, s := range order {
		names[s.part] = s.name
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

type countingReader struct {
	r io.Reader
	n uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

// countElements counts the elements named local of an XML part. XML it
// cannot read counts as far as it could: excelize judges it.
func countElements(r io.Reader, local string) int {
	n := 0
	d := xml.NewDecoder(r)
	for {
		tok, err := d.RawToken()
		if err != nil {
			return n
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == local {
			n++
		}
	}
}

// sheetFacts is what scanSheet reads of a part.
type sheetFacts struct {
	sheet    bool // the part has sheetData: it is a sheet
	elements int
	// highest is the highest index of a shared string a cell refers to,
	// -1 when none does, and highestCell that cell.
	highest     int
	highestCell string
	fault       *cellFault // the first cell excelize would misread
}

// scanSheet reads the cells of a sheet part, or counts the elements of
// another part. XML it cannot read is read as far as it could: excelize
// judges it.
func scanSheet(r io.Reader) sheetFacts {
	facts := sheetFacts{highest: -1}
	d := xml.NewDecoder(r)
	var (
		inSheetData, inValue bool
		row, col             int // of the row and cell being read, from 1
		ref, typ             string
		formula, valued      bool
		value                []byte
	)
	// fault notes the first cell misread: the one being read.
	fault := func(msg string) {
		if facts.fault == nil {
			name, _ := excelize.CoordinatesToCellName(max(col, 1), max(row, 1))
			facts.fault = &cellFault{cell: name, msg: msg}
		}
	}
	for {
		tok, err := d.RawToken()
		if err != nil {
			return facts
		}
		switch el := tok.(type) {
		case xml.StartElement:
			facts.elements++
			switch local := el.Name.Local; {
			case local == "sheetData":
				inSheetData, facts.sheet = true, true
			case !inSheetData:
			case local == "row":
				next := row + 1
				if r, err := strconv.Atoi(attr(el, "r")); err == nil {
					next = r
				}
				if next <= row && facts.fault == nil {
					facts.fault = &cellFault{cell: fmt.Sprintf("A%d", next), msg: fmt.Sprintf("row %d comes after row %d: the file is damaged", next, row)}
				}
				row, col = next, 0
			case local == "c":
				ref, typ = attr(el, "r"), attr(el, "t")
				formula, valued, value = false, false, value[:0]
				next := col + 1
				if ref != "" {
					if c, _, err := excelize.CellNameToCoordinates(ref); err == nil {
						next = c
					}
				}
				if next <= col {
					fault("comes after a cell right of it, or of the same column, in its row: the file is damaged")
				}
				col = next
			case local == "f":
				formula = true
			case local == "v":
				inValue, valued = true, true
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "sheetData":
				inSheetData = false
			case "v":
				inValue = false
			case "c":
				if !inSheetData {
					continue
				}
				switch {
				case typ == "s":
					i, err := strconv.Atoi(strings.TrimSpace(string(value)))
					if err != nil || i < 0 {
						fault(fmt.Sprintf("refers to shared string %q: the file is damaged", value))
					} else if i > facts.highest {
						facts.highest, facts.highestCell = i, ref
					}
				case typ == "e":
					fault(fmt.Sprintf("holds the error %s of a formula", value))
				case typ == "d":
					fault(fmt.Sprintf("is a date (%s), not text: format the column as text and type the value again", value))
				case formula && !valued:
					fault("holds a formula whose value was never calculated: open the workbook in a spreadsheet and save it, so that the values are stored")
				}
			}
		case xml.CharData:
			if inValue {
				value = append(value, el...)
			}
		}
	}
}

func attr(el xml.StartElement, local string) string {
	for _, a := range el.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// sheetPart is a sheet of a workbook and its part, lower case.
type sheetPart struct{ name, part string }

// sheetParts are the sheets of a workbook in its order, with their parts,
// from the workbook part and its relationships; what it cannot read is
// left out.
func sheetParts(workbook, rels []byte) []sheetPart {
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
		target := strings.ReplaceAll(r.Target, `\`, "/")
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join("xl", target)
		}
		targets[r.ID] = strings.ToLower(target)
	}
	var parts []sheetPart
	for _, s := range wb.Sheets {
		for _, a := range s.Attr {
			if target, ok := targets[a.Value]; ok && a.Name.Local == "id" {
				parts = append(parts, sheetPart{name: s.Name, part: target})
			}
		}
	}
	return parts
}
