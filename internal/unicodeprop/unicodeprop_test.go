package unicodeprop

import (
	"testing"
	"unicode"
)

// unicode15DefaultIgnorable is the property's list in
// DerivedCoreProperties.txt of Unicode 15.0.0, the unicode package's
// version when this was written; a later version may add to it.
var unicode15DefaultIgnorable = [][2]rune{
	{0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c}, {0x115f, 0x1160}, {0x17b4, 0x17b5}, {0x180b, 0x180d},
	{0x180e, 0x180e}, {0x180f, 0x180f}, {0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064}, {0x2065, 0x2065},
	{0x2066, 0x206f}, {0x3164, 0x3164}, {0xfe00, 0xfe0f}, {0xfeff, 0xfeff}, {0xffa0, 0xffa0}, {0xfff0, 0xfff8},
	{0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0000}, {0xe0001, 0xe0001}, {0xe0002, 0xe001f},
	{0xe0020, 0xe007f}, {0xe0080, 0xe00ff}, {0xe0100, 0xe01ef}, {0xe01f0, 0xe0fff},
}

// DefaultIgnorable is the property Unicode lists: every code point of
// its list, and (with the unicode package at 15.0) nothing else.
func TestDefaultIgnorableIsUnicodes(t *testing.T) {
	listed := map[rune]bool{}
	for _, rg := range unicode15DefaultIgnorable {
		for r := rg[0]; r <= rg[1]; r++ {
			listed[r] = true
		}
	}
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		got := DefaultIgnorable(r)
		if got {
			n++
		}
		if listed[r] && !got {
			t.Errorf("%U is Default_Ignorable_Code_Point in Unicode 15.0; DefaultIgnorable says no", r)
		}
		if unicode.Version == "15.0.0" && got && !listed[r] {
			t.Errorf("DefaultIgnorable(%U), which Unicode 15.0 does not list", r)
		}
	}
	if n < len(listed) {
		t.Fatalf("%d default-ignorable code points, Unicode 15.0 lists %d: the unassigned ones are missing", n, len(listed))
	}
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069} {
		if !BidiControl(r) || !DefaultIgnorable(r) {
			t.Errorf("%U is a bidi control, and default-ignorable", r)
		}
	}
}
