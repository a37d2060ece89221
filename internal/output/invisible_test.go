package output

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/unicodeprop"

	"golang.org/x/text/unicode/norm"
	"pgregory.net/rapid"
)

// escapedOnTerminal is what unsafeOnTerminal must escape: controls, the
// line and paragraph separators, every format character (as before the
// property was), and the property.
func escapedOnTerminal(r rune) bool {
	return unicode.IsControl(r) || r == 0x7f || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || unicodeprop.DefaultIgnorable(r)
}

// Every code point of Default_Ignorable_Code_Point, assigned or not, is
// escaped, and nothing that shows is.
func TestEveryDefaultIgnorableIsEscaped(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := unsafeOnTerminal(r), escapedOnTerminal(r); got != want {
			t.Errorf("unsafeOnTerminal(%U) = %v, want %v", r, got, want)
		}
		if !unicodeprop.DefaultIgnorable(r) {
			continue
		}
		n++
		raw := string(r)
		code := "P-1" + raw
		for name, got := range map[string]string{"Escape": Escape(code), "EscapeLines": EscapeLines(code), "Quote": Quote(code), "TerminalWriter": terminal(code)} {
			if strings.Contains(got, raw) || !strings.HasPrefix(strings.Trim(got, `"`), `P-1\`) {
				t.Errorf("%s(%q) = %q: %U is not escaped", name, code, got, r)
			}
		}
		if back, err := strconv.Unquote(Quote(code)); err != nil || back != code {
			t.Errorf("Quote(%q) = %s does not read back: %q %v", code, Quote(code), back, err)
		}
	}
	if n < 4000 {
		t.Fatalf("%d default-ignorable code points: the unassigned ones are missing", n)
	}
}

// terminal is s written through TerminalWriter.
func terminal(s string) string {
	var b bytes.Buffer
	TerminalWriter(&b).Write([]byte(s))
	return b.String()
}

// Below firstInvisible only U+00AD, of what is above C1, is escaped.
func TestFirstInvisible(t *testing.T) {
	for r := rune(0xa0); r <= firstInvisible; r++ {
		if want := r == 0xad || r == firstInvisible; escapedOnTerminal(r) != want {
			t.Errorf("%U: escaped %v, want %v: firstInvisible is wrong", r, escapedOnTerminal(r), want)
		}
	}
}

// "P-1" and "P-1" with an invisible character never print alike: not in a
// table, a plain row, or a quoted value.
func TestInvisibleCodeInATable(t *testing.T) {
	for _, format := range []string{"table", "plain"} {
		for _, terminal := range []bool{true, false} {
			var buf bytes.Buffer
			p, err := New(&buf, Options{Format: format, Terminal: terminal}, "CODE", "DESCRIPTION")
			if err != nil {
				t.Fatal(err)
			}
			for _, code := range []string{"P-1", "P-1\u034f", "P-1\ufe0f", "P-1\U000e0041", "P-1\u2065", "\u0301P-1"} {
				if err := p.Add(nil, code, "x"); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, want := range []string{`P-1\u034f`, `P-1\ufe0f`, `P-1\U000e0041`, `P-1\u2065`, `\u0301P-1`} {
				if !strings.Contains(out, want) {
					t.Errorf("%s (terminal %v): no %s in\n%s", format, terminal, want, out)
				}
			}
			if strings.ContainsAny(out, "\u034f\ufe0f\U000e0041\u2065\u0301") {
				t.Errorf("%s (terminal %v): an invisible character or a mark on nothing is printed raw:\n%q", format, terminal, out)
			}
		}
	}
}

// The rules for combining marks: a mark on nothing, on a blank or on an
// escape, past maxMarks in a row, repeating the one before, or an
// overlay, is escaped.
func TestMarksOnNothingStackedOrOverlaidAreEscaped(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\u0301P-1", `\u0301P-1`},                                 // first
		{"P \u0301", `P \u0301`},                                   // on a blank
		{"P\u00a0\u0301", "P\u00a0\\u0301"},                        // on a no-break space
		{"P\u200b\u0301", `P\u200b\u0301`},                         // on an escape
		{"P\x1b\u0301", `P\x1b\u0301`},                             // on a control
		{"P\xff\u0301", `P\xff\u0301`},                             // on a byte that is not UTF-8
		{"P\u0301\u0301", "P\u0301\\u0301"},                        // repeated
		{"P\u0336-1", `P\u0336-1`},                                 // overlay
		{"o\u0338", `o\u0338`},                                     // an o that looks like ø
		{"a\u20e5b", `a\u20e5b`},                                   // a symbols' overlay
		{"x\u0300\u0301\u0302\u0303", "x\u0300\u0301\u0302\u0303"}, // maxMarks
		{"x\u0300\u0301\u0302\u0303\u0304\u0305", "x\u0300\u0301\u0302\u0303\\u0304\\u0305"},
		{"\u20dd", `\u20dd`}, // an enclosing mark on nothing
		{"1\u20e3", "1\u20e3"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// A terminal's escapes are JSON's: \u001b for \x1b.
		if got, want := terminal(tt.in), strings.ReplaceAll(tt.want, `\x1b`, `\u001b`); got != want {
			t.Errorf("TerminalWriter(%q) = %q, want %q", tt.in, got, want)
		}
	}
	// A mark that starts a line of a message, or a quoted text, is on
	// nothing too.
	if got := EscapeLines("one\n\u0301two\t\u0301"); got != "one\n\\u0301two\t\\u0301" {
		t.Errorf("EscapeLines: %q", got)
	}
	if got := Quote("\u0301P"); got != `"\u0301P"` {
		t.Errorf("Quote: %s", got)
	}
	if got := Quote("P\u200b\u0301"); got != `"P\u200b\u0301"` {
		t.Errorf("Quote: %s", got)
	}
	// A terminal's marks are judged across writes.
	var b bytes.Buffer
	w := TerminalWriter(&b)
	for _, part := range []string{"e", "\u0301", " ", "\u0301", "\u0301"[:1], "\u0301"[1:]} {
		w.Write([]byte(part))
	}
	if b.String() != "e\u0301 \\u0301\\u0301" {
		t.Errorf("across writes: %q", b.String())
	}
}

// What people write, composed or decomposed, is shown as it is: the
// rules for marks let real scripts through.
func TestMarksOfRealScriptsAreShown(t *testing.T) {
	for _, s := range []string{
		"Crème brûlée, Ärger über Öl, façade, naïve, Ångström, Łódź, Dvořák, Ελληνικά, Ῥόδος",
		"Tiếng Việt: Nguyễn, Phạm, Trần, Lê, Hồ Chí Minh, người, được, những",
		"हिन्दी, क्षत्रिय, संस्कृतम्, श्रृंगार, ज़िंदगी, ॐ",
		"ภาษาไทย, กรุงเทพมหานคร, น้ำ",
		"שָׁלוֹם, בְּרֵאשִׁית",
		"مُحَمَّد, الْعَرَبِيَّة",
		"བོད་སྐད, བསྒྲུབས",
		"বাংলা, தமிழ், తెలుగు, ಕನ್ನಡ, മലയാളം, ગુજરાતી, ਪੰਜਾਬੀ, සිංහල, ລາວ, ខ្មែរ, မြန်မာ",
		"がぎぐげご パピプペポ, 한국어",
	} {
		for _, form := range []norm.Form{norm.NFC, norm.NFD} {
			text := form.String(s)
			if got := Escape(text); got != text {
				t.Errorf("Escape(%q) = %q", text, got)
			}
			if got := Quote(text); got != strconv.Quote(text) {
				t.Errorf("Quote(%q) = %s, want %s", text, got, strconv.Quote(text))
			}
			if got := EscapeLines(text + "\n" + text); got != text+"\n"+text {
				t.Errorf("EscapeLines(%q) = %q", text, got)
			}
			if got := terminal(text); got != text {
				t.Errorf("TerminalWriter(%q) = %q", text, got)
			}
		}
	}
}

// Where nothing needs escaping, Quote is strconv.Quote, and Escape keeps
// its text, for every character Go prints that shows.
func TestQuoteIsGoQuoteOfWhatShows(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || unsafeOnTerminal(r) || isMark(r) {
			continue
		}
		s := "a" + string(r) + `"\`
		if got, want := Quote(s), strconv.Quote(s); got != want {
			t.Fatalf("Quote(%q) = %s, want %s", s, got, want)
		}
		if strconv.IsPrint(r) && Escape(s) != s {
			t.Fatalf("Escape(%q) = %q", s, Escape(s))
		}
	}
}

// An escape is Go's, and reads back: above U+FFFF as \U, never as a \u
// that would take the next character's digits.
func TestEscapesReadBack(t *testing.T) {
	for _, r := range []rune{0x034f, 0xe0100, 0xe01ef, 0x1d173, 0xe0fff, 0x3164, 0x1d167} {
		s := "x" + string(r) + "0"
		got := Escape(s)
		back, err := strconv.Unquote(`"` + got + `"`)
		if err != nil || back != s {
			t.Errorf("Escape(%q) = %q reads back as %q (%v)", s, got, back, err)
		}
		if want := fmt.Sprintf(`\U%08x`, r); r > 0xffff && !strings.Contains(got, want) {
			t.Errorf("Escape(%q) = %q, want %s in it", s, got, want)
		}
	}
}

// refEscape is escape written plainly, a character at a time, with the
// rules of marks as the docs state them: the reference that escape's
// runs of ASCII and its copying without a copy are held to. With
// terminal, it is TerminalWriter's: newlines and tabs kept, and runes
// escaped as JSON escapes them.
func refEscape(s string, lines, quote, terminal bool) string {
	var b strings.Builder
	onBase, n, last := false, 0, rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		mark := unicode.In(r, unicode.Mn, unicode.Me)
		overlay := 0x334 <= r && r <= 0x338 || unicode.Is(overlayMarks, r)
		escaped := false
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
			escaped = true
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case quote && (r == '"' || r == '\\'):
			b.WriteString(`\` + string(r))
		case escapedOnTerminal(r) || quote && !strconv.IsPrint(r) || mark && (!onBase || n >= 4 || n > 0 && r == last || overlay):
			switch q := strconv.QuoteRune(r); {
			case terminal && r > 0xffff:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			case terminal:
				fmt.Fprintf(&b, `\u%04x`, r)
			case q[1] == '\\':
				b.WriteString(q[1 : len(q)-1])
			case r > 0xffff:
				fmt.Fprintf(&b, `\U%08x`, r)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			escaped = true
		default:
			b.WriteRune(r)
		}
		switch {
		case escaped:
			onBase, n, last = false, 0, -1
		case mark:
			n, last = n+1, r
		default:
			onBase, n, last = !unicode.IsSpace(r), 0, -1
		}
		i += size
	}
	if quote {
		return `"` + b.String() + `"`
	}
	return b.String()
}

// Escape, EscapeLines, Quote and TerminalWriter are refEscape, for text
// of what they treat apart: ASCII, blanks, quotes, controls, marks,
// overlays, invisible characters, bytes that are not UTF-8; and
// TerminalWriter so however the text is cut into writes.
func TestEscapeIsTheReference(t *testing.T) {
	pieces := []string{"a", "P-1", "é", "e", " ", "\u00a0", "\n", "\t", `"`, `\`, "\x1b", "\x7f", "\u0085", "\xff", "\xe2\x80",
		"\u0301", "\u0302", "\u0323", "\u20dd", "\u0336", "\u0338", "\u20e5", "\u094d", "\u093f", "\u034f", "\u200b", "\u202e",
		"\ufe0f", "\U000e0100", "\U000e0041", "\u2065", "\u3164", "\u2028", "\U0001f600", "\u0600", "\ufff9"}
	rapid.Check(t, func(t *rapid.T) {
		s := strings.Join(rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "pieces"), "")
		for _, c := range []struct {
			name         string
			got          string
			lines, quote bool
		}{{"Escape", Escape(s), false, false}, {"EscapeLines", EscapeLines(s), true, false}, {"Quote", Quote(s), false, true}} {
			if want := refEscape(s, c.lines, c.quote, false); c.got != want {
				t.Fatalf("%s(%q) = %q, want %q", c.name, s, c.got, want)
			}
		}
		var buf bytes.Buffer
		w := TerminalWriter(&buf)
		at := 0
		for _, cut := range rapid.SliceOfN(rapid.IntRange(0, len(s)), 0, 4).Draw(t, "cuts") {
			if cut > at {
				w.Write([]byte(s[at:cut]))
				at = cut
			}
		}
		w.Write([]byte(s[at:]))
		// What is left of a character cut at the end is held for a
		// write that never comes.
		whole := s
		if rest := len(s) - 2; strings.HasSuffix(s, "\xe2\x80") {
			whole = s[:rest]
		}
		if want := refEscape(whole, true, false, true); buf.String() != want {
			t.Fatalf("TerminalWriter(%q) = %q, want %q", s, buf.String(), want)
		}
	})
}
