package output

import (
	"io"
	"slices"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/unicodeprop"
)

// Escape writes what a terminal would act on, or would show as nothing,
// as Go escapes (\x1b, \u202e, \u200b, \u034f, \x9b for a byte that is
// not UTF-8), so that text from a file or the platform reaches a terminal
// as text: no escape sequence runs, no carriage return or newline splits
// a line or a row, no right-to-left override reorders what follows, and
// two codes that differ by an invisible character do not look alike.
// What it escapes is unsafeOnTerminal's, and the combining marks that
// could hide or overprint what is around them (see marks). Everything
// else is kept as it is. Every string from the platform or a file that a
// command prints for people goes through Escape, or, written as data to
// a terminal, through TerminalWriter.
func Escape(s string) string { return escape(s, false, false) }

// Quote is s quoted as Go quotes it, with Escape's characters escaped
// too: strconv.Quote leaves the ones Go counts as printable, such as a
// Hangul filler or the combining grapheme joiner, as they are. A mark
// is judged by where it stands in s: one that s starts with is escaped,
// though the quote would give it something to sit on.
func Quote(s string) string { return escape(s, false, true) }

// EscapeLines is Escape for a message of several lines: its newlines and
// tabs are kept, everything else escaped.
func EscapeLines(s string) string { return escape(s, true, false) }

// shownASCII says which bytes Escape keeps as they are, without looking
// further: printable ASCII. shownQuoted is the same for Quote, which
// escapes " and \ too, and shownOnTerminal for TerminalWriter, which
// keeps newlines and tabs.
var shownASCII, shownQuoted, shownOnTerminal [256]bool

func init() {
	for c := 0x20; c < 0x7f; c++ {
		shownASCII[c], shownQuoted[c], shownOnTerminal[c] = true, c != '"' && c != '\\', true
	}
	shownOnTerminal['\n'], shownOnTerminal['\t'] = true, true
}

// escape is Escape, EscapeLines (lines: newlines and tabs kept) and
// Quote (quote). Text that needs nothing is returned as it is, with no
// copy; printable ASCII is passed over a run at a time.
func escape(s string, lines, quote bool) string {
	shown := &shownASCII
	if quote {
		shown = &shownQuoted
	}
	var b []byte // nil until something is escaped
	done := 0    // s[:done] is in b
	var m marks
	change := func(i int) {
		if b == nil {
			b = make([]byte, 0, len(s)+len(s)/4+8)
			if quote {
				b = append(b, '"')
			}
		}
		b = append(b, s[done:i]...)
	}
	for i := 0; i < len(s); {
		if shown[s[i]] {
			j := i + 1
			for j < len(s) && shown[s[j]] {
				j++
			}
			m.base(s[j-1] != ' ')
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			change(i)
			b = appendHex(b, `\x`, rune(s[i]), 2)
			m.escaped()
		case lines && (r == '\n' || r == '\t'):
			m.base(false)
			i += size
			continue
		case quote && (r == '"' || r == '\\'):
			change(i)
			b = append(b, '\\', byte(r))
			m.base(true)
		case unsafeOnTerminal(r) || quote && !strconv.IsPrint(r) || m.hides(r):
			change(i)
			b = appendGoEscape(b, r)
			m.escaped()
		default:
			m.shown(r)
			i += size
			continue
		}
		i += size
		done = i
	}
	if b == nil {
		if quote {
			return `"` + s + `"`
		}
		return s
	}
	b = append(b, s[done:]...)
	if quote {
		b = append(b, '"')
	}
	return string(b)
}

// appendGoEscape appends r as Go writes it in a string: \a, \x1b,
// \u202e, or \U000e0100 above U+FFFF.
func appendGoEscape(b []byte, r rune) []byte {
	start := len(b)
	if b = strconv.AppendQuoteRune(b, r); b[start+1] == '\\' {
		// '\x1b', '\a', '\u202e' without the quotes.
		copy(b[start:], b[start+1:len(b)-1])
		return b[:len(b)-2]
	}
	// A character Go prints as it is: a Hangul filler, a mark.
	b = b[:start]
	if r > 0xffff {
		return appendHex(b, `\U`, r, 8)
	}
	return appendHex(b, `\u`, r, 4)
}

// appendHex appends prefix and the digits lowest hexadecimal digits of
// v, in lower case.
func appendHex(b []byte, prefix string, v rune, digits int) []byte {
	const hex = "0123456789abcdef"
	b = append(b, prefix...)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b = append(b, hex[v>>shift&0xf])
	}
	return b
}

// unsafeOnTerminal reports whether a terminal acts on r instead of
// showing it, or shows nothing for it: C0 controls, DEL, C1 controls,
// the line and paragraph separators, the format characters (category
// Cf: among them the bidi controls, zero-width spaces and joiners, the
// word joiner and the byte order mark), and every code point of
// Unicode's Default_Ignorable_Code_Point property, assigned or not
// (unicodeprop.DefaultIgnorable): the combining grapheme joiner, the variation
// selectors, the Hangul fillers, which show as blanks of no letter, and
// the code points kept for more of them.
func unsafeOnTerminal(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r < firstInvisible:
		return r == 0xad // the soft hyphen, in Latin-1
	}
	return unicode.Is(invisibleTable(), r)
}

// firstInvisible is the first code point above U+00AD that
// unsafeOnTerminal escapes, U+034F: what is below it is told by a
// comparison (TestFirstInvisible).
const firstInvisible = 0x34f

// invisibleTable holds the code points above C1 that unsafeOnTerminal
// escapes: Default_Ignorable_Code_Point, Cf, Zl and Zp, merged into one
// table from the unicode package's, so that a character costs one
// search. It is made when first needed: a command that prints ASCII
// alone never makes it.
var invisibleTable = sync.OnceValue(func() *unicode.RangeTable {
	var all []rune
	for _, t := range []*unicode.RangeTable{unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Cf, unicode.Zl, unicode.Zp} {
		eachRune(t, func(r rune) {
			if r > 0x9f && (unicodeprop.DefaultIgnorable(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)) {
				all = append(all, r)
			}
		})
	}
	slices.Sort(all)
	return rangeTable(slices.Compact(all))
})

// eachRune calls f with every code point of t, in order.
func eachRune(t *unicode.RangeTable, f func(rune)) {
	for _, rg := range t.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			f(r)
		}
	}
	for _, rg := range t.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			f(r)
		}
	}
}

// rangeTable is the table of sorted, distinct code points.
func rangeTable(rs []rune) *unicode.RangeTable {
	t := &unicode.RangeTable{}
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if rs[j] <= 0xffff {
			t.R16 = append(t.R16, unicode.Range16{Lo: uint16(rs[i]), Hi: uint16(rs[j]), Stride: 1})
			if rs[j] <= unicode.MaxLatin1 {
				t.LatinOffset++
			}
		} else {
			lo := rs[i]
			if lo <= 0xffff { // a run across U+FFFF: split
				t.R16 = append(t.R16, unicode.Range16{Lo: uint16(lo), Hi: 0xffff, Stride: 1})
				lo = 0x10000
			}
			t.R32 = append(t.R32, unicode.Range32{Lo: uint32(lo), Hi: uint32(rs[j]), Stride: 1})
		}
		i = j + 1
	}
	return t
}

// maxMarks bounds the nonspacing and enclosing marks (Mn, Me) in a row
// that are shown on one character: 4, the bound UTS #39 (Unicode
// Security Mechanisms, 5.4) gives for text that must not deceive. Real
// writing needs fewer: Vietnamese stacks 2 (ệ as e, dot below,
// circumflex), Thai a vowel and a tone mark, Devanagari a nukta and a
// vowel sign, pointed Hebrew and Tibetan stacks 3 or 4. More are what
// "Zalgo" text piles up to overprint the lines around it, or to make
// one code look like another.
const maxMarks = 4

// marks follows the combining marks of text as it is escaped, a
// character at a time. A combining mark is drawn on what stands before
// it, so it is escaped where it would be drawn on nothing, on a blank,
// on an escape, or where it would hide or overprint: one that starts
// the text or follows whitespace or something escaped (a control, an
// invisible character, another mark escaped), one beyond maxMarks in a
// row, one that repeats the mark before it (two acute accents show as
// one; UTS #39 5.4), and the overlay marks, which strike through the
// character before them (overlayMarks).
type marks struct {
	// ok: the character before was shown and can carry a mark.
	ok bool
	// n counts the marks shown on it so far, last is the latest.
	n    int
	last rune
}

// base records a character shown that is no mark: one a mark can sit on
// (carries), or whitespace, which gives it none.
func (m *marks) base(carries bool) { *m = marks{ok: carries} }

// escaped records a character escaped: what follows has nothing to sit
// on.
func (m *marks) escaped() { *m = marks{} }

// shown records r shown as it is.
func (m *marks) shown(r rune) {
	if isMark(r) {
		m.n, m.last = m.n+1, r
		return
	}
	m.base(!unicode.IsSpace(r))
}

// hides reports whether r is a combining mark that must be escaped where
// it stands.
func (m *marks) hides(r rune) bool {
	return isMark(r) && (!m.ok || m.n >= maxMarks || m.n > 0 && r == m.last || unicode.Is(overlayMarks, r))
}

// isMark reports whether r is a nonspacing or enclosing combining mark.
func isMark(r rune) bool {
	return r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r))
}

// overlayMarks are the marks of canonical combining class 1 (Overlay)
// that no writing system needs: the Latin overlays (tilde, short and
// long stroke, short and long solidus: U+0334..0338), the overlays of
// the marks for symbols, and the musical tremolos. Drawn through the
// character before them, they make it look like another (ø as o and
// U+0338) or strike text out. The overlays that scripts use (Vedic,
// Kharoshthi, Bassa Vah, Duployan) are not among them.
var overlayMarks = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x0334, Hi: 0x0338, Stride: 1},
		{Lo: 0x20d2, Hi: 0x20d3, Stride: 1},
		{Lo: 0x20d8, Hi: 0x20da, Stride: 1},
		{Lo: 0x20e5, Hi: 0x20e6, Stride: 1},
		{Lo: 0x20ea, Hi: 0x20eb, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1d167, Hi: 0x1d169, Stride: 1},
	},
}

// TerminalWriter returns a writer to a terminal that passes data on with
// every character Escape escapes, other than newline and tab, written as
// a \uXXXX escape (a pair of them above U+FFFF): in JSON that is the same
// string, and in YAML, CSV, plain rows, --jq and --template output it is
// text to read. A combining mark is judged by what stands before it in
// the data, across writes. A byte that is not UTF-8 is written as \xNN.
// Data written to a pipe or a file stays exact: use w there.
func TerminalWriter(w io.Writer) io.Writer { return &terminalWriter{w: w} }

type terminalWriter struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence held for the next Write
	m    marks
}

func (t *terminalWriter) Write(b []byte) (int, error) {
	n := len(b)
	if len(t.tail) > 0 {
		b = append(t.tail, b...)
		t.tail = nil
	}
	var out []byte // nil while b is written as it is
	done := 0      // b[:done] is in out
	for i := 0; i < len(b); {
		if shownOnTerminal[b[i]] {
			j := i + 1
			for j < len(b) && shownOnTerminal[b[j]] {
				j++
			}
			c := b[j-1]
			t.m.base(c != ' ' && c != '\n' && c != '\t')
			i = j
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1 && !utf8.FullRune(b[i:]):
			t.tail = append([]byte(nil), b[i:]...)
			b = b[:i]
			continue
		case r == utf8.RuneError && size == 1:
			out = append(out, b[done:i]...)
			out = appendHex(out, `\x`, rune(b[i]), 2)
			t.m.escaped()
		case unsafeOnTerminal(r) || t.m.hides(r):
			out = append(out, b[done:i]...)
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = appendHex(appendHex(out, `\u`, r1, 4), `\u`, r2, 4)
			} else {
				out = appendHex(out, `\u`, r, 4)
			}
			t.m.escaped()
		default:
			t.m.shown(r)
			i += size
			continue
		}
		i += size
		done = i
	}
	if out == nil {
		if _, err := t.w.Write(b); err != nil {
			return 0, err
		}
		return n, nil
	}
	out = append(out, b[done:]...)
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}
