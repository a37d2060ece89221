package wbsfile

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	kflate "github.com/klauspost/compress/flate"

	"github.com/xuri/excelize/v2"
)

// A workbook is read in one pass over each of its parts: the package's
// and the workbook's relationships and the workbook part first, for its
// sheets; then every other part but the sheet read, the shared strings
// and the styles into tables, the rest read through to the end, so that
// a part that holds other than its header says is refused; then the sheet
// read, a row at a time (readSheet).

// workbookParts are the parts of a workbook, as the reader finds them.
type workbookParts struct {
	zr *zip.Reader
	// byName holds the parts by their names in lower case, with '/' for
	// '\': a spreadsheet takes a name in any case.
	byName   map[string]*zip.File
	wbPart   string // the workbook part, lower case
	rels     []byte // the workbook's relationships
	sheets   []sheetPart
	sst      *sharedStrings
	styles   *cellStyles
	stylesOf string // the name of the styles part read, or ""
}

// openWorkbook reads the directory of the workbook data and the parts that
// name its sheets. Past maxWorkbookBytes unzipped in all it refuses the
// workbook, before it unzips any part.
func openWorkbook(data []byte) (*workbookParts, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, errNotZip
	}
	// klauspost/compress inflates the same bytes as compress/flate with
	// less of the processor, which the sheet's XML shares.
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return kflate.NewReader(r) })
	wb := &workbookParts{zr: zr, byName: map[string]*zip.File{}, wbPart: "xl/workbook.xml"}
	var total uint64
	for _, f := range zr.File {
		if total += f.UncompressedSize64; total > maxWorkbookBytes {
			return nil, errUnzipsTooLarge
		}
		// Two names that differ only in case would be two parts to a
		// reader that takes them as written, and one to a spreadsheet.
		name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))
		if wb.byName[name] != nil {
			return nil, fmt.Errorf("it holds two parts named %s: the file is damaged", f.Name)
		}
		wb.byName[name] = f
	}
	// The workbook part is where the package's relationships say.
	if f := wb.byName["_rels/.rels"]; f != nil {
		b, err := readPart(f)
		if err != nil {
			return nil, err
		}
		if target := officeDocument(b); target != "" {
			wb.wbPart = target
		}
	}
	var workbook []byte
	if f := wb.byName[wb.wbPart]; f != nil {
		if workbook, err = readPart(f); err != nil {
			return nil, err
		}
	}
	if f := wb.byName[wb.relsPart()]; f != nil {
		if wb.rels, err = readPart(f); err != nil {
			return nil, err
		}
	}
	wb.sheets = sheetParts(workbook, wb.rels, path.Dir(wb.wbPart))
	return wb, nil
}

// relsPart is the part of the workbook's relationships, lower case.
func (wb *workbookParts) relsPart() string {
	return path.Join(path.Dir(wb.wbPart), "_rels", path.Base(wb.wbPart)+".rels")
}

// readParts reads every part but the sheet part skip, and refuses what
// openWorkbook could not: a part that holds other than its header says,
// parts held in memory past maxWorkbookInMemory, shared strings or styles
// a spreadsheet finds elsewhere than the reader, two sheets of one name.
func (wb *workbookParts) readParts(skip string) error {
	var inMemory uint64
	for _, f := range wb.zr.File {
		name := strings.ReplaceAll(f.Name, `\`, "/")
		lower := strings.ToLower(name)
		size := f.UncompressedSize64 // of the sheet read, checked as it is read
		if lower != skip && lower != wb.wbPart && lower != wb.relsPart() && lower != "_rels/.rels" {
			var err error
			if size, err = wb.readPart(f, name, lower); err != nil {
				return err
			}
		}
		// A sheet or the shared strings past workbookPartInMemory are
		// read as a stream.
		streamed := size > workbookPartInMemory && (strings.HasPrefix(name, "xl/worksheets/sheet") || name == sharedStringsPart)
		if !streamed {
			if inMemory += size; inMemory > maxWorkbookInMemory {
				return fmt.Errorf("its parts held in memory unzip to more than %d bytes", maxWorkbookInMemory)
			}
		}
	}
	if err := checkFixedParts(wb.rels, path.Dir(wb.wbPart), wb.byName); err != nil {
		return err
	}
	named := make(map[string]string, len(wb.sheets))
	for _, s := range wb.sheets {
		key := foldKey(s.name)
		if first, ok := named[key]; ok {
			return fmt.Errorf("it names two sheets %q and %q, which a spreadsheet does not tell apart: the file is damaged", first, s.name)
		}
		named[key] = s.name
	}
	return nil
}

// readPart reads the part f through: the shared strings and the styles
// into their tables, any other to its end. It returns the bytes read.
func (wb *workbookParts) readPart(f *zip.File, name, lower string) (uint64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("the part %s: %w", f.Name, err)
	}
	defer rc.Close()
	counted := &countingReader{r: rc}
	switch {
	case lower == strings.ToLower(sharedStringsPart):
		wb.sst, err = readSharedStrings(counted)
	case name == "xl/styles.xml":
		wb.styles, err = readStyles(counted, f.Name)
		wb.stylesOf = f.Name
	}
	if err == nil {
		_, err = io.Copy(io.Discard, counted)
	}
	switch {
	case err == nil:
		return counted.n, nil
	case err == errTextTooLong:
		return 0, fmt.Errorf("the part %s %w", f.Name, err)
	case err == errManySurrogates:
		return 0, err
	case isPartError(err):
		return 0, err
	case isXMLSyntax(err):
		return 0, fmt.Errorf("the part %s: %w", f.Name, err)
	case lower != strings.ToLower(sharedStringsPart) && name == "xl/styles.xml" && !isZipError(err):
		return 0, &stylesError{err}
	}
	return 0, fmt.Errorf("the part %s does not hold what it says: %w", f.Name, err)
}

// stylesError is a styles part that cannot be read.
type stylesError struct{ err error }

func (e *stylesError) Error() string { return e.err.Error() }

func isPartError(err error) bool {
	_, ok := err.(*partError)
	return ok
}

// isZipError reports whether err is of the zip file rather than of the
// part's XML.
func isZipError(err error) bool {
	return err == zip.ErrChecksum || err == zip.ErrFormat || err == io.ErrUnexpectedEOF
}

// readPart reads a small part whole.
func readPart(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("the part %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, workbookPartInMemory))
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
	}
	if err != nil {
		return nil, fmt.Errorf("the part %s does not hold what it says: %w", f.Name, err)
	}
	return b, nil
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

// sheetNameError is why excelize, and so this reader, does not read a
// sheet of that name, or nil.
func sheetNameError(name string) error {
	switch {
	case name == "":
		return excelize.ErrSheetNameBlank
	case len(utf16.Encode([]rune(name))) > excelize.MaxSheetNameLength:
		return excelize.ErrSheetNameLength
	case strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'"):
		return excelize.ErrSheetNameSingleQuote
	case strings.ContainsAny(name, ":\\/?*[]"):
		return excelize.ErrSheetNameInvalid
	}
	return nil
}

// sharedStrings are the shared strings of a workbook, in one string.
type sharedStrings struct {
	text string
	ends []uint32 // where each string ends in text
	// halves are the strings that hold half a character
	// (surrogateEscape), by index, with that escape.
	halves map[int]string
}

func (ss *sharedStrings) len() int {
	if ss == nil {
		return 0
	}
	return len(ss.ends)
}

// at is the string of index i < len().
func (ss *sharedStrings) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = ss.ends[i-1]
	}
	return ss.text[start:ss.ends[i]]
}

// half is the escape of half a character string i holds, or "".
func (ss *sharedStrings) half(i int) string { return ss.halves[i] }

// readSharedStrings reads a shared-strings part: each string (si) is its
// own t's text and then its runs', as excelize joins them (a phonetic
// guide, rPh, left out), with the escapes _xHHHH_ replaced by their
// characters. A string that holds half a character is noted; past
// maxSurrogatesNoted such strings it fails: the workbook is refused.
func readSharedStrings(r io.Reader) (*sharedStrings, error) {
	sc := newXMLScanner(r)
	ss := &sharedStrings{}
	var text strings.Builder
	var own, runs, run []byte
	siDepth, tDepth, rDepth := 0, 0, 0
	inRun := false
	for {
		tok, err := sc.next()
		if err != nil {
			return nil, err
		}
		switch tok {
		case xmlEOF:
			ss.text = text.String()
			return ss, nil
		case xmlStart:
			depth := sc.depth()
			_, l := localName(sc.name)
			switch {
			case depth == 2 && string(l) == "si":
				siDepth = depth
				own, runs = own[:0], runs[:0]
			case siDepth == 0:
			case depth == siDepth+1 && string(l) == "t":
				tDepth, inRun = depth, false
				own = own[:0]
			case depth == siDepth+1 && string(l) == "r":
				rDepth = depth
				run = run[:0]
			case rDepth > 0 && depth == rDepth+1 && string(l) == "t":
				tDepth, inRun = depth, true
				run = run[:0]
			}
		case xmlEnd:
			depth := sc.depth() + 1
			switch {
			case depth == tDepth:
				tDepth = 0
			case depth == rDepth:
				runs = append(runs, run...)
				rDepth = 0
			case depth == siDepth:
				siDepth = 0
				raw := append(own, runs...)
				if esc := surrogateEscape(raw); esc != "" {
					if len(ss.halves) == maxSurrogatesNoted {
						return nil, errManySurrogates
					}
					if ss.halves == nil {
						ss.halves = map[int]string{}
					}
					ss.halves[len(ss.ends)] = esc
				}
				if bytes.Contains(raw, []byte("_x")) {
					raw = appendUnescaped(nil, raw)
				}
				text.Write(raw)
				if text.Len() > 1<<32-1 {
					return nil, fmt.Errorf("its shared strings hold more than 4 GiB")
				}
				ss.ends = append(ss.ends, uint32(text.Len()))
				own = raw[:0]
			}
		case xmlText:
			if tDepth == 0 || sc.depth() != tDepth {
				continue
			}
			if inRun {
				run, err = appendText(run, sc.text, sc.cdata)
			} else {
				own, err = appendText(own, sc.text, sc.cdata)
			}
			if err != nil {
				return nil, err
			}
		}
	}
}

// appendUnescaped appends s to dst with each escape _xHHHH_ replaced by
// the character it escapes, _x005F_ by '_', as excelize reads a text; an
// escape of half a character is dropped.
func appendUnescaped(dst, s []byte) []byte {
	for {
		i := bytes.Index(s, []byte("_x"))
		if i < 0 || i+7 > len(s) {
			return append(dst, s...)
		}
		n, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 16)
		if err != nil || s[i+6] != '_' || !isHex4(s[i+2:i+6]) {
			dst = append(dst, s[:i+1]...)
			s = s[i+1:]
			continue
		}
		dst = append(dst, s[:i]...)
		if r := rune(n); !utf16.IsSurrogate(r) {
			dst = utf8.AppendRune(dst, r)
		}
		s = s[i+7:]
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
