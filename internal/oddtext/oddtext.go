// Package oddtext holds text that file formats, their readers and
// spreadsheets are known to take for something else, change or drop:
// noncharacters, default-ignorables, bidi controls, controls, and words
// read as numbers, booleans, formulas, escapes or structure. The export
// and file round-trip tests draw from it.
package oddtext

// Runes are characters that a format, a reader or a spreadsheet may
// take for something else, or drop.
var Runes = []rune{
	// Noncharacters and the replacement character, first: a draw favours
	// the first few and the last.
	0xfffe, 0xffff, 0xfffd, 0x1fffe, 0x10ffff, 0xfdd0, 0xfdef, 0x1ffff, 0x2fffe, 0x10fffe,
	// Default-ignorables.
	0xfeff, 0x200b, 0x034f, 0xfe0f, 0xe0001, 0x00ad, 0x115f, 0x1160, 0x180e, 0x200c, 0x200d, 0x2060, 0x2064, 0x3164, 0xfe00, 0xffa0,
	0x1d173, 0xe0020, 0xe007f, 0xe0100, 0xe01ef, 0xe0fff,
	// Bidi controls.
	0x202e, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069,
	// Spaces and line breaks other than ASCII's.
	0x00a0, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
	// C0, DEL and C1 controls, which apply refuses.
	0x00, 0x01, 0x07, 0x08, '\t', '\n', 0x0b, 0x0c, '\r', 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	// Letters that case, compose or decompose, and the edges of the planes.
	0x0301, 0x00e9, 0x00c4, 0x00df, 0x0130, 0x0131, 0x212a, 0x1e9e, 0xd7ff, 0xe000, 0xf8ff, 0xf0000, 0x10fffd, 0x1f600, 0x1f1e9, 0x1d11e,
	// What the formats give a meaning to.
	'"', '\'', '\\', ',', ';', '=', '#', ':', '-', '?', '&', '*', '!', '|', '>', '<', '%', '@', '`', '{', '}', '[', ']', '_', '+', '.', '~', '$', ' ',
}

// Words are texts that a format or a spreadsheet may read as another
// type, a formula, an escape or a structure.
var Words = []string{
	"1000", "007", "0", "-0", "+1", "1e3", "1E-3", "0x1F", "0o17", "0b1", "1_000", ".5", "1.", "Infinity", "NaN", ".inf", "-.Inf", ".nan",
	"true", "TRUE", "False", "yes", "No", "on", "OFF", "y", "n", "WAHR", "null", "Null", "NULL", "~", "nil",
	"=1+1", "=SUM(A1:A2)", "+A1", "-A1", "@SUM(A1)", `=HYPERLINK("x")`, "2024-01-15", "2024-01-15T10:00:00Z", "12:30", "1:2:3",
	"_x000D_", "_x0041_", "_X0041_", "_x005F_", "&amp;", "&#x0;", "]]>", "<![CDATA[",
	`\ud800`, `\udc00`, `\uDBFF\uDFFF`, `\u0000`, `\\`, `\n`, `\t`, `\;`, `\=`,
	"---", "...", "- ", "? ", ": ", "# ", "&a", "*a", "!!str", "!x", "%YAML 1.2", "|", ">", "[]", "{}", "[a, b]", "{a: b}", "<<",
	"$schema", "wbsElementCode", "wbsElements", "\r\n", "  ", "a=b", "a;b",
}
