package wbsfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// xmlToken is the kind of token an xmlScanner read.
type xmlToken uint8

const (
	xmlEOF xmlToken = iota
	xmlStart
	xmlEnd
	xmlText
)

// xmlAttr is an attribute of a start tag, its value as written (with its
// references undecoded).
type xmlAttr struct {
	name, value []byte
}

// xmlScanner reads the tokens of a part's XML in one pass over a buffer,
// without a value per token: a name, an attribute or a text is a slice of
// the buffer, good until the next token is read. It refuses what is not
// well-formed (end tags that do not match, references that are not
// XML's, characters XML cannot hold in a text read), and, as textBound
// does, a run of more than maxTextRun bytes between two '<'. Comments and
// processing instructions are left out; CDATA is text.
type xmlScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	off      int64 // the offset of buf[0] in the part
	lastLT   int64 // the offset of the last '<', -1 before the first
	eof      bool
	err      error // of the reader, once the buffer is drained
	started  bool

	name    []byte    // of the start or end tag read
	attrs   []xmlAttr // of the start tag read
	text    []byte    // the text read, as written
	cdata   bool      // the text is a CDATA section
	closing bool      // the start tag read was <a/>: its end comes next
	open    []byte    // the names of the open elements, one after the other
	opens   []int     // where each starts in open
}

// xmlBufferSize is the buffer a scanner begins with: it grows where a
// run between two '<' does not fit.
const xmlBufferSize = 64 << 10

func newXMLScanner(r io.Reader) *xmlScanner {
	return &xmlScanner{r: r, buf: make([]byte, xmlBufferSize), lastLT: -1}
}

// errXMLSyntax is a part's XML that is not well-formed.
type errXMLSyntax struct{ msg string }

func (e *errXMLSyntax) Error() string { return "its XML is not well-formed: " + e.msg }

func syntaxErr(format string, a ...any) error {
	return &errXMLSyntax{msg: fmt.Sprintf(format, a...)}
}

// fill reads more of the part after what is left from s.pos, which moves
// to the start of the buffer. It reports whether any was read.
func (s *xmlScanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// lt notes a '<' at i in the buffer: the run before it is bounded.
func (s *xmlScanner) lt(i int) error {
	at := s.off + int64(i)
	if at-s.lastLT-1 > maxTextRun {
		return errTextTooLong
	}
	s.lastLT = at
	return nil
}

// start reads the XML declaration, and where it names an encoding other
// than UTF-8 reads the part through a decoder of it, as encoding/xml does
// with charset.NewReaderLabel.
func (s *xmlScanner) start() error {
	s.started = true
	for s.end-s.pos < 512 && s.fill() {
	}
	head := s.buf[s.pos:s.end]
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		s.pos += 3
		head = head[3:]
	}
	if !bytes.HasPrefix(head, []byte("<?xml")) || len(head) > 5 && !isSpace(head[5]) {
		return nil
	}
	end := bytes.Index(head, []byte("?>"))
	if end < 0 {
		return syntaxErr("an XML declaration that does not end")
	}
	enc := declaredEncoding(head[:end])
	if enc == "" || strings.EqualFold(enc, "utf-8") {
		return nil
	}
	if err := s.lt(s.pos); err != nil {
		return err
	}
	rest := s.buf[s.pos+end+2 : s.end]
	r, err := charset.NewReaderLabel(enc, io.MultiReader(bytes.NewReader(bytes.Clone(rest)), s.r))
	if err != nil {
		return syntaxErr("the encoding %q: %v", enc, err)
	}
	s.r, s.eof, s.err = r, false, nil
	s.off += int64(s.pos + end + 2)
	s.pos, s.end = 0, 0
	return nil
}

// declaredEncoding is the encoding an XML declaration names, or "".
func declaredEncoding(decl []byte) string {
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
		return ""
	}
	end := bytes.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return ""
	}
	return string(rest[1 : 1+end])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func trimSpaceLeft(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func trimSpaceRight(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// next reads the next token.
func (s *xmlScanner) next() (xmlToken, error) {
	if !s.started {
		if err := s.start(); err != nil {
			return xmlEOF, err
		}
	}
	if s.closing {
		s.closing = false
		s.pop()
		return xmlEnd, nil
	}
	for {
		if s.pos >= s.end && !s.fill() {
			if s.err != nil {
				return xmlEOF, s.err
			}
			if s.off+int64(s.end)-s.lastLT-1 > maxTextRun {
				return xmlEOF, errTextTooLong
			}
			if len(s.opens) > 0 {
				return xmlEOF, syntaxErr("the part ends inside the element %s", s.open[s.opens[len(s.opens)-1]:])
			}
			return xmlEOF, nil
		}
		if s.buf[s.pos] != '<' {
			i := bytes.IndexByte(s.buf[s.pos:s.end], '<')
			for i < 0 && !s.eof {
				if s.off+int64(s.end)-s.lastLT-1 > maxTextRun {
					return xmlEOF, errTextTooLong
				}
				start := s.end - s.pos
				s.fill()
				if j := bytes.IndexByte(s.buf[s.pos+start:s.end], '<'); j >= 0 {
					i = start + j
				}
			}
			if i < 0 {
				i = s.end - s.pos
			}
			s.text, s.cdata = s.buf[s.pos:s.pos+i], false
			s.pos += i
			return xmlText, nil
		}
		tok, err := s.tag()
		if err != nil || tok != xmlEOF {
			return tok, err
		}
		// A comment or a processing instruction: read on.
	}
}

// need makes n bytes from s.pos available, as far as the part goes, and
// reports whether they are.
func (s *xmlScanner) need(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// until finds sep from s.pos+from, reading more as needed; it returns its
// index from s.pos, or -1 at the end of the part or past the run bound.
// Each '<' on the way is noted.
func (s *xmlScanner) until(from int, sep string) (int, error) {
	for {
		rest := s.buf[s.pos+from : s.end]
		if i := bytes.Index(rest, []byte(sep)); i >= 0 {
			if err := s.lts(from, from+i); err != nil {
				return -1, err
			}
			return from + i, nil
		}
		scanned := max(from, s.end-s.pos-len(sep)+1)
		if err := s.lts(from, scanned); err != nil {
			return -1, err
		}
		from = scanned
		if s.off+int64(s.end)-s.lastLT-1 > maxTextRun {
			return -1, errTextTooLong
		}
		if !s.fill() {
			return -1, syntaxErr("the part ends inside %q", sep)
		}
	}
}

// lts notes each '<' from s.pos+from up to s.pos+to.
func (s *xmlScanner) lts(from, to int) error {
	for i := from; i < to; i++ {
		if s.buf[s.pos+i] == '<' {
			if err := s.lt(s.pos + i); err != nil {
				return err
			}
		}
	}
	return nil
}

// tag reads the markup at s.pos, a '<': a start or end tag, a CDATA
// section (xmlText), or a comment or a processing instruction (xmlEOF, to
// read on).
func (s *xmlScanner) tag() (xmlToken, error) {
	if err := s.lt(s.pos); err != nil {
		return xmlEOF, err
	}
	s.need(2)
	if s.end-s.pos > 1 && (s.buf[s.pos+1] == '?' || s.buf[s.pos+1] == '!') {
		return s.markup()
	}
	end, err := s.tagEnd()
	if err != nil {
		return xmlEOF, err
	}
	t := s.buf[s.pos+1 : s.pos+end]
	s.pos += end + 1
	if len(t) > 0 && t[0] == '/' {
		name := trimSpaceRight(t[1:])
		if !validName(name) {
			return xmlEOF, syntaxErr("the end tag %q", t)
		}
		if len(s.opens) == 0 || !bytes.Equal(s.open[s.opens[len(s.opens)-1]:], name) {
			return xmlEOF, syntaxErr("an end tag </%s> that no start tag opened", name)
		}
		s.name = name
		s.pop()
		return xmlEnd, nil
	}
	if len(t) > 0 && t[len(t)-1] == '/' {
		s.closing = true
		t = t[:len(t)-1]
	}
	n := 0
	for n < len(t) && !isSpace(t[n]) {
		n++
	}
	s.name = t[:n]
	if !validName(s.name) {
		return xmlEOF, syntaxErr("the tag <%s>", t)
	}
	s.attrs = s.attrs[:0]
	for rest := t[n:]; ; {
		rest = trimSpaceLeft(rest)
		if len(rest) == 0 {
			break
		}
		eq := bytes.IndexByte(rest, '=')
		if eq <= 0 {
			return xmlEOF, syntaxErr("an attribute without a value in <%s>", s.name)
		}
		name := trimSpaceRight(rest[:eq])
		rest = trimSpaceLeft(rest[eq+1:])
		if !validName(name) || len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
			return xmlEOF, syntaxErr("an attribute of <%s> that is not quoted", s.name)
		}
		close := bytes.IndexByte(rest[1:], rest[0])
		if close < 0 {
			return xmlEOF, syntaxErr("an attribute of <%s> that is not closed", s.name)
		}
		s.attrs = append(s.attrs, xmlAttr{name: name, value: rest[1 : 1+close]})
		rest = rest[2+close:]
		if len(rest) > 0 && !isSpace(rest[0]) {
			return xmlEOF, syntaxErr("attributes of <%s> not apart", s.name)
		}
	}
	s.opens = append(s.opens, len(s.open))
	s.open = append(s.open, s.name...)
	return xmlStart, nil
}

// markup reads a comment or a processing instruction (xmlEOF, to read on)
// or a CDATA section (xmlText) at s.pos.
func (s *xmlScanner) markup() (xmlToken, error) {
	s.need(9)
	rest := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(rest, []byte("<?")):
		end, err := s.until(2, "?>")
		if err != nil {
			return xmlEOF, err
		}
		s.pos += end + 2
		return xmlEOF, nil
	case bytes.HasPrefix(rest, []byte("<!--")):
		end, err := s.until(4, "-->")
		if err != nil {
			return xmlEOF, err
		}
		s.pos += end + 3
		return xmlEOF, nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		end, err := s.until(9, "]]>")
		if err != nil {
			return xmlEOF, err
		}
		s.text, s.cdata = s.buf[s.pos+9:s.pos+end], true
		s.pos += end + 3
		return xmlText, nil
	case bytes.HasPrefix(rest, []byte("<!")):
		return xmlEOF, syntaxErr("a document type or declaration, which no spreadsheet writes")
	}
	return xmlEOF, syntaxErr("a '<' that starts no tag")
}

// tagEnd finds the end of the tag at s.pos, reading more as needed: the
// first '>' outside quotes, with no '<' before it. It returns its index
// from s.pos.
func (s *xmlScanner) tagEnd() (int, error) {
	for {
		// Scanned again from its start after more is read: a tag is
		// short, and few span the end of what was read.
		var quote byte
		lt := false
		rest := s.buf[s.pos:s.end]
		for i := 1; i < len(rest); i++ {
			c := rest[i]
			if c > '>' {
				continue // a letter, say: none of the bytes below
			}
			switch {
			case c == '>' && lt:
				return 0, syntaxErr("'<' inside a tag")
			case c == '>' && quote == 0:
				return i, nil
			case c == '<':
				lt = true
			case c == quote:
				quote = 0
			case quote == 0 && (c == '"' || c == '\''):
				quote = c
			}
		}
		if s.off+int64(s.end)-s.lastLT-1 > maxTextRun {
			return 0, errTextTooLong
		}
		if !s.fill() {
			return 0, syntaxErr("the part ends inside a tag")
		}
	}
}

// leafContent reads the content and the end tag of the element open when
// the buffer holds them as open, a text without markup, close and the end
// tag, and nothing else: leafContent(dst, "<v>", "</v>") reads <v>1</v></c>
// after <c>. It appends the text to dst as XML reads it, and reports
// whether it read them: it reads nothing otherwise.
func (s *xmlScanner) leafContent(dst []byte, open, close string) ([]byte, bool, error) {
	b := s.buf[s.pos:s.end]
	if len(b) < len(open) || string(b[:len(open)]) != open {
		return dst, false, nil
	}
	n := bytes.IndexByte(b[len(open):], '<')
	if n < 0 {
		return dst, false, nil
	}
	text := b[len(open) : len(open)+n]
	rest := b[len(open)+n:]
	elem := s.open[s.opens[len(s.opens)-1]:]
	end := len(close) + len("</") + len(elem) + len(">")
	if len(rest) < end || string(rest[:len(close)]) != close || string(rest[len(close):len(close)+2]) != "</" ||
		!bytes.Equal(rest[len(close)+2:end-1], elem) || rest[end-1] != '>' {
		return dst, false, nil
	}
	// In the order of the tokens, as next reads them.
	if err := s.lts(0, len(open)); err != nil {
		return dst, false, err
	}
	dst, err := appendText(dst, text, false)
	if err != nil {
		return dst, false, err
	}
	if err := s.lts(len(open)+n, len(open)+n+end); err != nil {
		return dst, false, err
	}
	s.pos += len(open) + n + end
	s.pop()
	return dst, true, nil
}

func (s *xmlScanner) pop() {
	last := s.opens[len(s.opens)-1]
	s.open, s.opens = s.open[:last], s.opens[:len(s.opens)-1]
}

// offset is the bytes of the part read.
func (s *xmlScanner) offset() int64 { return s.off + int64(s.pos) }

// depth is the number of elements open.
func (s *xmlScanner) depth() int { return len(s.opens) }

// validName reports whether name can be an XML name: not empty, and
// without what would end or quote one.
func validName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	if c := name[0]; c == '-' || c == '.' || c >= '0' && c <= '9' {
		return false
	}
	for _, c := range name {
		switch c {
		case ' ', '\t', '\r', '\n', '<', '>', '=', '"', '\'', '/', '&', '!', '?':
			return false
		}
	}
	return true
}

// localName is name without its prefix, and prefix that prefix ("" when
// none).
func localName(name []byte) (prefix, local []byte) {
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return nil, name
}

// attrValue is the value of the attribute of the tag read whose local
// name is local, decoded, and whether there is one; the last such when
// there are several, as excelize reads them.
func (s *xmlScanner) attrValue(local string) ([]byte, bool, error) {
	var raw []byte
	found := false
	for _, a := range s.attrs {
		if string(attrLocal(a.name)) == local {
			raw, found = a.value, true
		}
	}
	if !found {
		return nil, false, nil
	}
	v, err := decodeAttr(raw)
	return v, true, err
}

// attrLocal is the local name of an attribute, after its last ':'.
func attrLocal(name []byte) []byte {
	return name[bytes.LastIndexByte(name, ':')+1:]
}

// decodeAttr is an attribute's value raw as XML reads it.
func decodeAttr(raw []byte) ([]byte, error) {
	for _, c := range raw {
		if c == '&' || c == '\r' {
			return appendText(nil, raw, false)
		}
	}
	return raw, nil
}

// repeatedAttr reports whether the tag read gives an attribute twice.
func (s *xmlScanner) repeatedAttr() bool {
	for i, a := range s.attrs {
		for _, b := range s.attrs[:i] {
			if bytes.Equal(a.name, b.name) {
				return true
			}
		}
	}
	return false
}

// appendText appends to dst the text raw as XML reads it: references
// replaced by their characters (not in CDATA), each line break "\r\n" or
// "\r" as "\n". A reference that is not XML's, a byte that is not UTF-8
// or a character XML cannot hold is an error.
func appendText(dst, raw []byte, cdata bool) ([]byte, error) {
	plain := true
	for _, c := range raw {
		if c < 0x20 || c >= 0x80 || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		return append(dst, raw...), nil
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\r':
			dst = append(dst, '\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
		case c == '&' && !cdata:
			end := bytes.IndexByte(raw[i:], ';')
			if end < 0 {
				return dst, syntaxErr("an '&' that starts no reference")
			}
			r, ok := reference(raw[i+1 : i+end])
			if !ok {
				return dst, syntaxErr("the reference %q", raw[i:i+end+1])
			}
			dst = utf8.AppendRune(dst, r)
			i += end + 1
		case c < 0x80:
			if c < 0x20 && c != '\t' && c != '\n' {
				return dst, syntaxErr("the character %U, which XML cannot hold", c)
			}
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return dst, syntaxErr("a byte that is not UTF-8")
			}
			if !xmlChar(r) {
				return dst, syntaxErr("the character %U, which XML cannot hold", r)
			}
			dst = append(dst, raw[i:i+size]...)
			i += size
		}
	}
	return dst, nil
}

// reference is the character of the reference &name;.
func reference(name []byte) (rune, bool) {
	switch string(name) {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "apos":
		return '\'', true
	case "quot":
		return '"', true
	}
	if len(name) < 2 || name[0] != '#' {
		return 0, false
	}
	var n uint64
	var err error
	if name[1] == 'x' {
		n, err = strconv.ParseUint(string(name[2:]), 16, 32)
	} else {
		n, err = strconv.ParseUint(string(name[1:]), 10, 32)
	}
	if err != nil || !xmlChar(rune(n)) {
		return 0, false
	}
	return rune(n), true
}

// xmlChar reports whether XML 1.0 can hold r.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// isXMLSyntax reports whether err is XML that is not well-formed.
func isXMLSyntax(err error) bool {
	var e *errXMLSyntax
	return errors.As(err, &e)
}
