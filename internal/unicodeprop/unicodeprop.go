// Package unicodeprop holds the Unicode properties wbsctl decides text
// by that Go's unicode package does not give whole: which code points
// show as nothing (Default_Ignorable_Code_Point) and which reorder the
// text around them (the bidi controls). internal/output escapes them
// where text reaches a person; internal/wbsfile refuses them in codes.
package unicodeprop

import "unicode"

// DefaultIgnorable reports whether r has Unicode's
// Default_Ignorable_Code_Point property, derived from the unicode
// package's tables as DerivedCoreProperties.txt derives it:
//
//	Other_Default_Ignorable_Code_Point
//	+ Cf (format characters)
//	+ Variation_Selector
//	- White_Space
//	- FFF9..FFFB (interlinear annotation format characters)
//	- 13430..13440 (Egyptian hieroglyph format characters; 1343F in
//	  Unicode 15.0, whose U+13440 is a mark)
//	- Prepended_Concatenation_Mark (format characters that are shown)
//
// Other_Default_Ignorable_Code_Point holds the unassigned code points
// kept for more of them (U+2065, U+FFF0..FFF8, U+E0000..E0FFF), so they
// count whether a character is assigned to them or not. It looks r up in
// several tables: a caller on a hot path keeps a table made of it once.
func DefaultIgnorable(r rune) bool {
	return r >= 0xad && unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) &&
		!unicode.Is(unicode.White_Space, r) && !(r >= 0xfff9 && r <= 0xfffb) && !(r >= 0x13430 && r <= 0x13440) &&
		!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}

// BidiControl reports whether r is one of the bidi controls, which
// reorder the text around them: ALM, LRM, RLM, the embeddings and
// overrides, and the isolates.
func BidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
