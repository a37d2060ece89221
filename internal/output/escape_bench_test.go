package output

import (
	"io"
	"strings"
	"testing"
)

// The texts a listing prints most: ASCII codes and descriptions, text
// with accents, and text with something to escape.
var benchTexts = map[string]string{
	"ascii":    "P-1000.20.30 Site preparation and earthworks, phase 2",
	"accented": "Baustelleneinrichtung Überprüfung Straße – Phase ½",
	"escaped":  "P-1\u034f Site\x1b[2J preparation\u200b",
}

func BenchmarkEscape(b *testing.B) {
	for _, name := range []string{"ascii", "accented", "escaped"} {
		s := benchTexts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				_ = Escape(s)
			}
		})
	}
}

func BenchmarkQuote(b *testing.B) {
	for _, name := range []string{"ascii", "accented", "escaped"} {
		s := benchTexts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				_ = Quote(s)
			}
		})
	}
}

func BenchmarkTerminalWriter(b *testing.B) {
	for _, name := range []string{"ascii", "accented", "escaped"} {
		data := []byte(strings.Repeat(benchTexts[name]+"\n", 100))
		b.Run(name, func(b *testing.B) {
			w := TerminalWriter(io.Discard)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				_, _ = w.Write(data)
			}
		})
	}
}
