package wbsfile

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/xuri/excelize/v2"
	"golang.org/x/net/html/charset"
)

// xfClass is how a cell format (an xf of the styles) shows a value.
type xfClass uint8

const (
	xfGeneral   xfClass = iota // General: a number as it is, up to 11 characters
	xfText                     // @: a value as it is
	xfDate                     // a date or a time: a number is refused
	xfUnshown                  // a number excelize shows otherwise than a spreadsheet
	xfHidden                   // a format that hides some values: code shows hiddenMarker there
	xfFormatted                // any other: excelize formats the value
)

// xfFormat is the number format of a cell format.
type xfFormat struct {
	class xfClass
	id    int    // the built-in format's id, where code is ""
	code  string // the custom format's code
	// textAsIs says that text shows as it is: the format has no text
	// section.
	textAsIs bool
}

// cellStyles are the number formats of a workbook's cell formats, by the
// index a cell's s gives, read once; a value in a format other than
// General, @ or a date is shown by excelize's formatter, through a
// workbook of one cell (shown), as excelize reads a cell.
type cellStyles struct {
	xfs []xfFormat

	scratch *excelize.File
	ids     map[int]int // the style in scratch of each xf used
	shown   map[string]string
}

// maxShownCached bounds the values whose shown text is kept.
const maxShownCached = 1 << 14

// readStyles reads the number formats of a styles part. Past
// maxPartElements elements it fails: the part is parsed whole.
func readStyles(r io.Reader, part string) (*cellStyles, error) {
	d := xml.NewDecoder(r)
	d.CharsetReader = charset.NewReaderLabel
	type custom struct {
		code          string // as excelize shows it: formatCode16, or formatCode
		date, unshown bool
		hides         string // the code that hides a value, or ""
	}
	customs := map[int]*custom{}
	var xfs []*int // the numFmtId of each cell format, nil when none
	var inNumFmts, inCellXfs bool
	elements := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if elements++; elements > maxPartElements {
				return nil, &partError{fmt.Errorf("the part %s holds more than %d XML elements", part, maxPartElements)}
			}
			switch {
			case el.Name.Local == "numFmts":
				inNumFmts = true
			case el.Name.Local == "cellXfs":
				inCellXfs = true
			case inNumFmts && el.Name.Local == "numFmt":
				var id int
				var code, code16 string
				for _, a := range el.Attr {
					switch {
					case a.Name.Local == "numFmtId" && a.Name.Space == "":
						if id, err = strconv.Atoi(a.Value); err != nil {
							return nil, err
						}
					case a.Name.Local == "formatCode" && a.Name.Space == "":
						code = a.Value
					case a.Name.Local == "formatCode16" && a.Name.Space == x16r2:
						code16 = a.Value
					}
				}
				// excelize shows the first format of an id; a spreadsheet
				// may show another of them.
				f, dup := customs[id]
				if !dup {
					f = &custom{code: code}
					if code16 != "" {
						f.code = code16
					}
					customs[id] = f
				}
				for _, c := range []string{code, code16} {
					if f.hides == "" && hidingFormat(c) {
						f.hides = c
					}
				}
				f.date = f.date || isDateFormat(code) || isDateFormat(code16)
				f.unshown = f.unshown || dup || unshownFormat(code) || unshownFormat(code16)
			case inCellXfs && el.Name.Local == "xf":
				var id *int
				for _, a := range el.Attr {
					if a.Name.Local == "numFmtId" && a.Name.Space == "" {
						n, err := strconv.Atoi(a.Value)
						if err != nil {
							return nil, err
						}
						id = &n
					}
				}
				xfs = append(xfs, id)
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "numFmts":
				inNumFmts = false
			case "cellXfs":
				inCellXfs = false
			}
		}
	}
	st := &cellStyles{xfs: make([]xfFormat, len(xfs))}
	for i, idp := range xfs {
		id := 0
		if idp != nil {
			id = *idp
		}
		f, ok := customs[id]
		x := xfFormat{class: xfFormatted, id: id}
		switch {
		case ok && f.hides != "":
			x = xfFormat{class: xfHidden, code: hidingMarker(f.hides)}
		case ok && f.date || !ok && isBuiltInDate(id):
			x.class = xfDate
		case ok && f.unshown || !ok && (id >= 5 && id <= 8 || id == 48):
			x.class = xfUnshown
		case ok:
			x.code = f.code
			x.textAsIs = len(formatSections(f.code)) < 4 && !showsText(f.code)
		case id == 0:
			x.class = xfGeneral
		case id == 49:
			x.class = xfText
		default:
			// The accounting formats 41 to 44 have a text section.
			x.textAsIs = id < 41 || id > 44
		}
		st.xfs[i] = x
	}
	return st, nil
}

// x16r2 is the namespace of formatCode16.
const x16r2 = "http://schemas.microsoft.com/office/spreadsheetml/2015/02/main"

// partError is an error of a part that refuses the whole workbook.
type partError struct{ err error }

func (e *partError) Error() string { return e.err.Error() }
func (e *partError) Unwrap() error { return e.err }

// format is the format of cell format s, or nil where excelize shows a
// value as it is (no style, or one the styles do not have).
func (st *cellStyles) format(s int) *xfFormat {
	if st == nil || s <= 0 || s >= len(st.xfs) {
		return nil
	}
	return &st.xfs[s]
}

// plainText reports whether text in cell format s shows as it is.
func (st *cellStyles) plainText(s int) bool {
	f := st.format(s)
	if f == nil {
		return true
	}
	switch f.class {
	case xfGeneral, xfText, xfDate, xfUnshown:
		return true
	case xfFormatted:
		return f.textAsIs
	}
	return false
}

// plainNumber reports whether an integer of n digits in cell format s
// shows as it is.
func (st *cellStyles) plainNumber(s, n int) bool {
	f := st.format(s)
	return f == nil || f.class == xfText || f.class == xfGeneral && n <= 10
}

// showText is text in cell format s as a spreadsheet shows it.
func (st *cellStyles) showText(s int, text string) (string, error) {
	if st.plainText(s) {
		return text, nil
	}
	return st.show(s, text, true)
}

// showNumber is the number v (as normalNumber gives it) in cell format s
// as a spreadsheet shows it, or dateMarker or formatMarker where it is a
// date or a number excelize shows otherwise.
func (st *cellStyles) showNumber(s int, v string) (string, error) {
	f := st.format(s)
	switch {
	case f == nil || f.class == xfText:
		return v, nil
	case v == "" && (f.class == xfDate || f.class == xfUnshown || f.class == xfGeneral):
		return "", nil
	case f.class == xfDate:
		return dateMarker, nil
	case f.class == xfUnshown:
		return formatMarker, nil
	}
	return st.show(s, v, false)
}

// show is value in cell format s as excelize shows it: a cell of a
// workbook of its own, in the same format, read back.
func (st *cellStyles) show(s int, value string, text bool) (string, error) {
	key := strconv.Itoa(s) + "n" + value
	if text {
		key = strconv.Itoa(s) + "t" + value
	}
	if v, ok := st.shown[key]; ok {
		return v, nil
	}
	if st.scratch == nil {
		st.scratch, st.ids, st.shown = excelize.NewFile(), map[int]int{}, map[string]string{}
	}
	const sheet, cell = "Sheet1", "A1"
	f := st.scratch
	id, ok := st.ids[s]
	if !ok {
		x := st.xfs[s]
		style := &excelize.Style{NumFmt: x.id}
		switch {
		case x.code != "":
			code := x.code
			style = &excelize.Style{CustomNumFmt: &code}
		case x.id == 0:
			// A style of its own: the default one is not formatted.
			style = &excelize.Style{NumFmt: 0, Font: &excelize.Font{Bold: true}}
		}
		var err error
		if id, err = f.NewStyle(style); err != nil {
			return "", fmt.Errorf("cannot read the workbook's styles: %w", err)
		}
		if x.code == "" && x.id != 0 && (f.Styles.CellXfs == nil || f.Styles.CellXfs.Xf[id].NumFmtID == nil || *f.Styles.CellXfs.Xf[id].NumFmtID != x.id) {
			id = -1 // a format excelize does not know: it shows the value as it is
		}
		st.ids[s] = id
	}
	if id < 0 {
		return value, nil
	}
	var err error
	if text {
		err = f.SetCellStr(sheet, cell, value)
	} else {
		err = f.SetCellDefault(sheet, cell, value)
	}
	if err == nil {
		err = f.SetCellStyle(sheet, cell, cell, id)
	}
	var v string
	if err == nil {
		v, err = f.GetCellValue(sheet, cell)
	}
	if err != nil {
		return "", fmt.Errorf("cannot be shown in its number format: %w", err)
	}
	if len(st.shown) < maxShownCached {
		st.shown[key] = v
	}
	return v, nil
}

// close releases the workbook that shows values, if there is one.
func (st *cellStyles) close() {
	if st != nil && st.scratch != nil {
		st.scratch.Close()
	}
}
