package wbsfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// ReadOptions say how to read a file where its bytes do not.
type ReadOptions struct {
	// Sheet is the sheet of a workbook to read; "" reads the first.
	Sheet string
	// Delimiter separates the cells of a CSV file; 0 finds it from the
	// header, among ',', ';' and TAB.
	Delimiter rune
	// Encoding is the encoding of a text file (see Encodings); "" reads
	// UTF-8, with or without a byte-order mark, or UTF-16 by its
	// byte-order mark.
	Encoding string
}

// Encodings are the names ReadOptions.Encoding takes, lower case, and
// what each decodes with (nil: UTF-8 as it is).
var Encodings = map[string]encoding.Encoding{
	"utf-8":        nil,
	"windows-1252": charmap.Windows1252,
	"iso-8859-1":   charmap.ISO8859_1,
}

// encodingAliases are other names of the Encodings.
var encodingAliases = map[string]string{
	"utf8": "utf-8", "cp1252": "windows-1252", "latin1": "iso-8859-1", "latin-1": "iso-8859-1",
}

// Check refuses options that do not fit a file of format f, or that name
// nothing known.
func (o ReadOptions) Check(f Format) error {
	switch {
	case o.Sheet != "" && f != FormatXLSX:
		return fmt.Errorf("--sheet names a sheet of a workbook; the file is %s", f)
	case o.Delimiter != 0 && f != FormatCSV:
		return fmt.Errorf("--delimiter separates the cells of CSV; the file is %s", f)
	case o.Encoding != "" && f == FormatXLSX:
		return fmt.Errorf("--encoding is the encoding of a text file; a workbook states its own")
	}
	if o.Delimiter != 0 {
		if _, err := ParseDelimiter(string(o.Delimiter)); err != nil {
			return err
		}
	}
	if o.Encoding != "" {
		if _, err := encodingName(o.Encoding); err != nil {
			return err
		}
	}
	return nil
}

// encodingName is the name of Encodings that s names.
func encodingName(s string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if alias, ok := encodingAliases[name]; ok {
		name = alias
	}
	if _, ok := Encodings[name]; !ok {
		return "", fmt.Errorf("--encoding %q: use windows-1252, iso-8859-1 or utf-8 (UTF-16 is found by its byte-order mark)", s)
	}
	return name, nil
}

// ParseDelimiter reads the delimiter of a CSV file as a flag gives it: one
// character, or "tab" or `\t` for TAB.
func ParseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case "tab", `\t`:
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if s == "" || size != len(s) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' {
		return 0, fmt.Errorf("--delimiter %q: give one character other than a quote or a line break, such as ';' or tab", s)
	}
	return r, nil
}

var (
	bomUTF8    = []byte("\xef\xbb\xbf")
	bomUTF16LE = []byte("\xff\xfe")
	bomUTF16BE = []byte("\xfe\xff")
)

// DecodeText returns data, a text file, as UTF-8 without a byte-order
// mark, as apply reads its own: decoded from UTF-16 by its byte-order
// mark, or from opts.Encoding (checked by ReadOptions.Check). Bytes that
// are not text of that encoding give their problem instead, naming its
// line; no column, since the file's header need not be its first line.
func DecodeText(data []byte, opts ReadOptions) ([]byte, *Problem) {
	p := &parser{file: &File{}, opts: opts}
	text, ok := p.text(data, "")
	if !ok {
		return nil, &p.file.Problems[0]
	}
	return text, nil
}

// text returns data as UTF-8 without a byte-order mark: decoded from
// UTF-16 by its byte-order mark, or from the encoding of the options. It
// reports a problem, and false, for bytes that are not text of that
// encoding.
func (p *parser) text(data []byte, f Format) ([]byte, bool) {
	name := ""
	if p.opts.Encoding != "" {
		name, _ = encodingName(p.opts.Encoding) // checked by ParseBytes
	}
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, bomUTF16LE):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, bomUTF16BE):
		order = binary.BigEndian
	}
	if order != nil {
		if name != "" {
			p.problem(Problem{Line: 1, Message: fmt.Sprintf("starts with the byte-order mark of UTF-16, but --encoding says %s: leave --encoding out", name)})
			return nil, false
		}
		return p.utf16(data[2:], order)
	}
	if enc := Encodings[name]; enc != nil {
		if bytes.HasPrefix(data, bomUTF8) {
			p.problem(Problem{Line: 1, Message: fmt.Sprintf("starts with the byte-order mark of UTF-8, but --encoding says %s: leave --encoding out", name)})
			return nil, false
		}
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			p.problem(Problem{Line: 1, Message: fmt.Sprintf("cannot be read as %s: %v", name, err)})
			return nil, false
		}
		// Windows-1252 leaves five bytes undefined; they decode to
		// U+FFFD, which the file did not hold.
		if at := bytes.IndexRune(out, utf8.RuneError); at >= 0 {
			in := bytes.Count(out[:at], []byte(string(utf8.RuneError)))
			p.problem(Problem{Line: 1 + bytes.Count(out[:at], []byte("\n")), Message: fmt.Sprintf("holds the byte %#02x, which is no character in %s", undefinedByte(data, enc, in), name)})
			return nil, false
		}
		return out, true
	}
	data = bytes.TrimPrefix(data, bomUTF8)
	if !utf8.Valid(data) {
		at := firstInvalid(data)
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		field := ""
		if f == FormatCSV {
			field = csvColumnAt(data, at, p.delimiter(data))
		}
		msg := "is not valid UTF-8: give the file's encoding with --encoding (windows-1252 or iso-8859-1), or save it as UTF-8"
		if name != "" {
			msg = "is not valid UTF-8, which --encoding utf-8 says it is"
		}
		p.problem(Problem{Line: line, Field: field, Message: msg})
		return nil, false
	}
	return data, true
}

// undefinedByte is the byte of data that enc decodes to the (skip+1)th
// U+FFFD.
func undefinedByte(data []byte, enc encoding.Encoding, skip int) byte {
	for _, b := range data {
		if out, _ := enc.NewDecoder().Bytes([]byte{b}); bytes.Equal(out, []byte(string(utf8.RuneError))) {
			if skip == 0 {
				return b
			}
			skip--
		}
	}
	return 0
}

// utf16 decodes the UTF-16 of data, which follows its byte-order mark.
// A file cut short (an odd number of bytes) or a lone surrogate is
// refused, naming its line: decoding it would put U+FFFD in its place.
func (p *parser) utf16(data []byte, order binary.ByteOrder) ([]byte, bool) {
	units := make([]uint16, len(data)/2)
	for i := range units {
		units[i] = order.Uint16(data[2*i:])
	}
	lineAt := func(n int) int {
		line := 1
		for _, u := range units[:n] {
			if u == '\n' {
				line++
			}
		}
		return line
	}
	if len(data)%2 != 0 {
		p.problem(Problem{Line: lineAt(len(units)), Message: fmt.Sprintf("is UTF-16 by its byte-order mark, but has an odd number of bytes (%d): the file is cut short", len(data)+2)})
		return nil, false
	}
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] <= 0xdfff:
			i++
		case utf16.IsSurrogate(rune(u)):
			p.problem(Problem{Line: lineAt(i), Message: fmt.Sprintf("is UTF-16 by its byte-order mark, but holds a lone surrogate %#04x", u)})
			return nil, false
		}
	}
	out := make([]byte, 0, len(units)*3/2)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	// A byte-order mark written twice, or a UTF-8 one inside, is not text.
	return bytes.TrimPrefix(out, bomUTF8), true
}
