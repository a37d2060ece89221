package erpmap

import (
	"errors"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// An export that is not text of its encoding is refused as apply refuses
// its own files, naming the line and, where one is to blame, the byte.
func TestExportNotOfItsEncoding(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		opts wbsfile.ReadOptions
		want string
	}{
		{"windows-1252's undefined byte", []byte("PSP-Element;Bezeichnung\nP-1;Kraftwerk\nP-2;Werk \x81\n"), wbsfile.ReadOptions{Encoding: "cp1252"},
			"line 3: holds the byte 0x81, which is no character in windows-1252"},
		{"UTF-8 that is not", []byte("PSP-Element;Bezeichnung\nP-1;Kraftwerk S\xfcd\n"), wbsfile.ReadOptions{},
			"line 2: is not valid UTF-8"},
		{"UTF-16 cut short", append([]byte{0xff, 0xfe}, 'P', 0, '\n', 0, 'x'), wbsfile.ReadOptions{},
			"is UTF-16 by its byte-order mark, but has an odd number of bytes (7)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTable(tt.data, wbsfile.FormatCSV, tt.opts)
			var re *ReadError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}
