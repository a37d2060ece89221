package wbsfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// sheetFacts is what reading a sheet learns besides its rows.
type sheetFacts struct {
	// hidden counts the rows of the sheet's data that are hidden, and
	// hiddenRows are the first of their numbers.
	hidden     int
	hiddenRows []int
	// highest is the highest index of a shared string a cell refers to,
	// -1 when none does, and highestCell that cell.
	highest     int
	highestCell string
}

// maxHiddenRowsNamed bounds the hidden rows a note names.
const maxHiddenRowsNamed = 10

// The bounds of a sheet, as a spreadsheet has them.
const (
	maxSheetRows = 1 << 20
	maxSheetCols = 1 << 14
)

// errTwoSheetData is a sheet part with two sheetData elements: a reader
// could take the rows of either.
var errTwoSheetData = errors.New("holds two sheetData elements: the file is damaged")

// sheetRow receives a row of a sheet: its number, its cells as a
// spreadsheet shows them, up to the last that is not empty (or holds a
// formula), or why the row cannot be read; and the bytes of the part read
// up to the row's end. cols is good until the next call.
type sheetRow func(row int, cols []string, read int64, unreadable error)

// sheetCell is a cell of the row being read: its column from 0 and its
// text, or where its text is in the row's buffer.
type sheetCell struct {
	col        int
	text       string
	start, end int
	inBuffer   bool
}

// sheetReader reads the rows of a sheet part in one pass, and refuses a
// cell a spreadsheet would show otherwise than it is read (a *cellFault)
// or a part that does not hold XML.
type sheetReader struct {
	sc     *xmlScanner
	sst    *sharedStrings
	styles *cellStyles
	emit   sheetRow
	facts  sheetFacts
	fault  *cellFault

	row, col   int // of the row and the cell being read, from 1
	rowOpen    bool
	unreadable error // of the row being read
	cells      []sheetCell
	buf        []byte // the texts of the row's cells not held elsewhere
	cols       []string

	// The cell being read.
	ref                   []byte
	typ                   string
	style                 int
	formula, valued, isIn bool
	value                 []byte // of its v
	is                    []byte // its inline string's text, t then the runs'
	inlineT               []byte // the text of the inline string's own t
	runs                  []byte // the texts of its runs (r) read
	run                   []byte // the text of the run being read
}

// readSheet reads the sheet part r: each row goes to emit as it is read.
// It stops at the first fault, which it returns.
func readSheet(r io.Reader, sst *sharedStrings, styles *cellStyles, emit sheetRow) (sheetFacts, error) {
	sr := &sheetReader{sc: newXMLScanner(r), sst: sst, styles: styles, emit: emit, facts: sheetFacts{highest: -1}}
	err := sr.read()
	if err == nil && sr.fault != nil {
		err = sr.fault
	}
	return sr.facts, err
}

// faultAt notes the fault of the cell being read, the first only.
func (sr *sheetReader) faultAt(msg string) {
	if sr.fault == nil {
		name, _ := excelize.CoordinatesToCellName(min(max(sr.col, 1), maxSheetCols), min(max(sr.row, 1), maxSheetRows))
		sr.fault = &cellFault{cell: name, msg: msg}
	}
}

func (sr *sheetReader) read() error {
	sc := sr.sc
	var (
		root, inSheetData, sheetDataSeen bool
		prefix                           []byte // of the part's own elements
		cellDepth                        int    // of the cell being read, 0 outside one
		inV                              bool
		textDepth                        int // of the t whose text is read, 0 when none
		isDepth, runDepth                int // of the inline string and of its run being read
		textInRun                        bool
	)
	for sr.fault == nil {
		tok, err := sc.next()
		if err != nil {
			return err
		}
		switch tok {
		case xmlEOF:
			if sr.rowOpen {
				sr.endRow()
			}
			return nil
		case xmlStart:
			depth := sc.depth()
			p, l := localName(sc.name)
			if !root {
				root, prefix = true, bytes.Clone(p)
			}
			if inSheetData && !bytes.Equal(p, prefix) {
				sr.faultAt(fmt.Sprintf("holds the element %s:%s of another namespace, which a spreadsheet leaves out: the file is damaged", p, l))
			}
			if (string(l) == "row" || string(l) == "c") && sc.repeatedAttr() {
				sr.faultAt(fmt.Sprintf("a %s element gives an attribute twice: the file is damaged", l))
			}
			switch local := l; {
			case string(local) == "sheetData":
				if sheetDataSeen {
					return errTwoSheetData
				}
				inSheetData, sheetDataSeen = true, true
			case !inSheetData:
				if string(local) == "row" {
					sr.faultAt("a row outside the sheet's data, which a spreadsheet leaves out: the file is damaged")
				}
			case string(local) == "row":
				if err := sr.startRow(); err != nil {
					return err
				}
			case string(local) == "c" && cellDepth > 0:
				sr.faultAt("holds a cell inside a cell: the file is damaged")
			case string(local) == "c":
				if err := sr.startCell(); err != nil {
					return err
				}
				if len(prefix) == 0 && !sc.closing && sr.fault == nil {
					read, err := sr.leafCell()
					if err != nil {
						return err
					}
					if read {
						continue
					}
				}
				cellDepth = depth
			case cellDepth == 0:
			case depth == cellDepth+1 && string(local) == "f":
				sr.formula = true
			case depth == cellDepth+1 && string(local) == "v":
				sr.valued, inV = true, true
				sr.value = sr.value[:0]
			case depth == cellDepth+1 && string(local) == "is":
				sr.isIn, isDepth = true, depth
				sr.inlineT, sr.runs = sr.inlineT[:0], sr.runs[:0]
			case isDepth > 0 && depth == isDepth+1 && string(local) == "t":
				textDepth, textInRun = depth, false
				sr.inlineT = sr.inlineT[:0]
			case isDepth > 0 && depth == isDepth+1 && string(local) == "r":
				runDepth = depth
				sr.run = sr.run[:0]
			case runDepth > 0 && depth == runDepth+1 && string(local) == "t":
				textDepth, textInRun = depth, true
				sr.run = sr.run[:0]
			}
		case xmlEnd:
			depth := sc.depth() + 1 // of the element ended
			_, l := localName(sc.name)
			switch {
			case string(l) == "sheetData" && inSheetData:
				inSheetData = false
				if sr.rowOpen {
					sr.endRow()
				}
			case cellDepth > 0 && depth == cellDepth:
				sr.endCell()
				cellDepth, inV, isDepth, runDepth, textDepth = 0, false, 0, 0, 0
			case depth == textDepth:
				textDepth = 0
			case depth == runDepth:
				sr.runs = append(sr.runs, sr.run...)
				runDepth = 0
			case depth == isDepth:
				// excelize joins the string's own t and then its runs'.
				sr.is = append(append(sr.is[:0], sr.inlineT...), sr.runs...)
				isDepth = 0
			case cellDepth > 0 && depth == cellDepth+1:
				inV = false
			}
		case xmlText:
			if cellDepth == 0 || sc.depth() == 0 {
				continue
			}
			var err error
			switch depth := sc.depth(); {
			case inV && depth == cellDepth+1:
				sr.value, err = appendText(sr.value, sc.text, sc.cdata)
			case textDepth > 0 && depth == textDepth && textInRun:
				sr.run, err = appendText(sr.run, sc.text, sc.cdata)
			case textDepth > 0 && depth == textDepth:
				sr.inlineT, err = appendText(sr.inlineT, sc.text, sc.cdata)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// startRow begins the row of the tag read, ending the one before.
func (sr *sheetReader) startRow() error {
	if sr.rowOpen {
		sr.endRow()
	}
	next := sr.row + 1
	rv, given, err := sr.sc.attrValue("r")
	if err != nil {
		return err
	}
	sr.unreadable = nil
	if given {
		if r, err := strconv.Atoi(string(rv)); err == nil {
			next = r
		} else {
			sr.unreadable = err
		}
	}
	if next <= sr.row && sr.fault == nil {
		sr.fault = &cellFault{cell: fmt.Sprintf("A%d", next), msg: fmt.Sprintf("row %d comes after row %d: the file is damaged", next, sr.row)}
	}
	sr.row, sr.col = next, 0
	if h, _, _ := sr.sc.attrValue("hidden"); string(h) == "1" || string(h) == "true" {
		if sr.facts.hidden++; len(sr.facts.hiddenRows) < maxHiddenRowsNamed {
			sr.facts.hiddenRows = append(sr.facts.hiddenRows, sr.row)
		}
	}
	if sr.row > maxSheetRows {
		sr.faultAt(fmt.Sprintf("a row past the sheet's last, %d: the file is damaged", maxSheetRows))
	}
	sr.rowOpen = true
	sr.cells, sr.buf = sr.cells[:0], sr.buf[:0]
	return nil
}

// endRow gives the row read to emit.
func (sr *sheetReader) endRow() {
	sr.rowOpen = false
	if sr.fault != nil {
		return
	}
	if sr.unreadable != nil {
		sr.emit(sr.row, nil, sr.sc.offset(), sr.unreadable)
		return
	}
	text := string(sr.buf)
	n := 0
	if len(sr.cells) > 0 {
		n = sr.cells[len(sr.cells)-1].col + 1
	}
	sr.cols = sr.cols[:0]
	for range n {
		sr.cols = append(sr.cols, "")
	}
	for _, c := range sr.cells {
		if c.inBuffer {
			sr.cols[c.col] = text[c.start:c.end]
		} else {
			sr.cols[c.col] = c.text
		}
	}
	sr.emit(sr.row, sr.cols, sr.sc.offset(), nil)
}

// startCell begins the cell of the tag read.
func (sr *sheetReader) startCell() error {
	// The attributes in one pass, the last of a name given twice, as
	// attrValue takes them.
	var ref, typ, style []byte
	given, styled := false, false
	for _, a := range sr.sc.attrs {
		switch string(attrLocal(a.name)) {
		case "r":
			ref, given = a.value, true
		case "t":
			typ = a.value
		case "s":
			style, styled = a.value, true
		}
	}
	ref, err := decodeAttr(ref)
	if err != nil {
		return err
	}
	if typ, err = decodeAttr(typ); err != nil {
		return err
	}
	sr.ref = append(sr.ref[:0], ref...)
	sr.typ = cellType(typ)
	sr.formula, sr.valued, sr.isIn = false, false, false
	sr.value, sr.is = sr.value[:0], sr.is[:0]
	sr.style = 0
	next := sr.col + 1
	if given && len(ref) > 0 {
		col, row, ok := cellRef(ref)
		if !ok {
			var err error
			col, row, err = excelize.CellNameToCoordinates(string(ref))
			if err != nil && sr.unreadable == nil {
				sr.unreadable = err
			}
			ok = err == nil
		}
		if ok {
			next = col
			if row != sr.row {
				sr.faultAt(fmt.Sprintf("is named %s in row %d: the file is damaged", ref, sr.row))
			}
		}
	}
	if next <= sr.col {
		sr.faultAt("comes after a cell right of it, or of the same column, in its row: the file is damaged")
	}
	sr.col = next
	if style, err = decodeAttr(style); err != nil {
		return err
	} else if styled {
		v, err := strconv.ParseInt(string(style), 10, 64)
		if err != nil {
			sr.faultAt(fmt.Sprintf("has the style %q, which no spreadsheet writes: the file is damaged", style))
		}
		if v >= 0 && v <= math.MaxInt32 {
			sr.style = int(v)
		} else {
			sr.style = -1
		}
	}
	return nil
}

// leafCell reads the content and the end of the cell begun where it is
// written as spreadsheets write most cells, a value (<v>1</v>) or an
// inline string of one text (<is><t>a</t></is>), and reports whether it
// did; read reads any other.
func (sr *sheetReader) leafCell() (bool, error) {
	var ok bool
	var err error
	if sr.value, ok, err = sr.sc.leafContent(sr.value[:0], "<v>", "</v>"); ok {
		sr.valued = true
	} else if err == nil {
		if sr.is, ok, err = sr.sc.leafContent(sr.is[:0], "<is><t>", "</t></is>"); ok {
			sr.isIn = true
		}
	}
	if !ok || err != nil {
		return false, err
	}
	sr.endCell()
	return true, nil
}

// cellType is the type t of a cell, without an allocation for the types
// spreadsheets write.
func cellType(t []byte) string {
	switch string(t) {
	case "":
		return ""
	case "s":
		return "s"
	case "n":
		return "n"
	case "b":
		return "b"
	case "str":
		return "str"
	case "inlineStr":
		return "inlineStr"
	case "e":
		return "e"
	case "d":
		return "d"
	}
	return string(t)
}

// cellRef reads a reference such as B7 in capitals, within a sheet's
// bounds.
func cellRef(ref []byte) (col, row int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' && i < 3 {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 || i == len(ref) || ref[i] == '0' || col > maxSheetCols {
		return 0, 0, false
	}
	for ; i < len(ref); i++ {
		if ref[i] < '0' || ref[i] > '9' || row > maxSheetRows {
			return 0, 0, false
		}
		row = row*10 + int(ref[i]-'0')
	}
	return col, row, row <= maxSheetRows
}

// endCell checks the cell read and adds its text to the row.
func (sr *sheetReader) endCell() {
	if msg := checkValue(sr.typ, sr.formula, sr.valued, sr.value); msg != "" {
		sr.faultAt(msg)
		return
	}
	if sr.typ == "inlineStr" {
		if esc := surrogateEscape(sr.is); esc != "" {
			sr.faultAt(lostHalf(esc))
			return
		}
	}
	if !sr.rowOpen {
		return // excelize reads no cell outside a row
	}
	text, start, inBuffer, err := sr.shown()
	if err != nil {
		sr.faultAt(err.Error())
		return
	}
	if sr.fault != nil || text == "" && !inBuffer && !sr.formula || inBuffer && start == len(sr.buf) && !sr.formula {
		return
	}
	c := sheetCell{col: sr.col - 1, text: text, inBuffer: inBuffer}
	if inBuffer {
		c.start, c.end = start, len(sr.buf)
	}
	if n := len(sr.cells); n > 0 && sr.cells[n-1].col >= c.col {
		return // faulted above
	}
	sr.cells = append(sr.cells, c)
}

// shown is the cell's text as a spreadsheet shows it: in text, or from
// start to the end of the row's buffer.
func (sr *sheetReader) shown() (text string, start int, inBuffer bool, err error) {
	start = len(sr.buf)
	switch sr.typ {
	case "s":
		i, _ := strconv.Atoi(strings.TrimSpace(string(sr.value)))
		if i >= sr.sst.len() {
			if i > sr.facts.highest {
				sr.facts.highest, sr.facts.highestCell = i, string(sr.ref)
			}
			return "", start, false, nil
		}
		if esc := sr.sst.half(i); esc != "" {
			return "", start, false, fmt.Errorf("%s", lostHalf(esc))
		}
		if i > sr.facts.highest {
			sr.facts.highest, sr.facts.highestCell = i, string(sr.ref)
		}
		s := sr.sst.at(i)
		if sr.styles.plainText(sr.style) {
			return s, start, false, nil
		}
		text, err = sr.styles.showText(sr.style, s)
		return text, start, false, err
	case "str":
		sr.buf = append(sr.buf, sr.value...)
		return "", start, true, nil
	case "inlineStr":
		raw := sr.value
		if sr.isIn {
			raw = sr.is
		}
		if !sr.isIn || !bytes.Contains(raw, []byte("_x")) {
			sr.buf = append(sr.buf, raw...)
		} else {
			sr.buf = appendUnescaped(sr.buf, raw)
		}
		if sr.styles.plainText(sr.style) {
			return "", start, true, nil
		}
		s := string(sr.buf[start:])
		sr.buf = sr.buf[:start]
		text, err = sr.styles.showText(sr.style, s)
		return text, start, false, err
	case "b":
		switch string(sr.value) {
		case "1":
			return "TRUE", start, false, nil
		case "0":
			return "FALSE", start, false, nil
		}
		return "", start, false, nil
	default:
		if len(sr.value) == 0 && sr.style == 0 {
			return "", start, false, nil
		}
		if plainInteger(sr.value) && sr.styles.plainNumber(sr.style, len(sr.value)) {
			sr.buf = append(sr.buf, sr.value...)
			return "", start, true, nil
		}
		text, err = sr.styles.showNumber(sr.style, normalNumber(string(sr.value)))
		return text, start, false, err
	}
}

// plainInteger reports whether v is an integer of at most 15 digits, as
// excelize and a spreadsheet show it: no sign, no leading zero.
func plainInteger(v []byte) bool {
	if len(v) == 0 || len(v) > 15 || v[0] == '0' && len(v) > 1 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// normalNumber is the number v as excelize gives it before its format:
// 15 significant digits at most, without an exponent where it fits.
func normalNumber(v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || strings.Contains(v, "_") {
		return v
	}
	plain := strconv.FormatFloat(f, 'f', -1, 64)
	if digits := len(plain) - strings.Count(plain, "."); digits > 15 && !withinPrecision(v) {
		return strconv.FormatFloat(f, 'G', 15, 64)
	}
	return plain
}

// withinPrecision reports whether v is an integer whose digits past the
// 15th are zeros.
func withinPrecision(v string) bool {
	if strings.ContainsAny(v, ".Ee") {
		return false
	}
	v = strings.TrimLeft(v, "+-0")
	return len(strings.TrimRight(v, "0")) <= 15
}
