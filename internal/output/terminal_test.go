package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hostile holds what a platform or a file could send to a terminal: an
// OSC title change ended by BEL, a clear-screen CSI, a C1 control, DEL,
// a right-to-left override and an isolate.
const hostile = "a\x1b]0;pwned\x07b\x1b[2Jc\u009bd\x7fe\u202ef\u2067g"

func unsafeLeft(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unsafeOnTerminal(r) })
}

// On a terminal every format escapes what a terminal would act on; on a
// pipe the data formats stay exact.
func TestTerminalOutputEscapesWhatATerminalActsOn(t *testing.T) {
	type row struct {
		Code string `json:"wbsElementCode"`
	}
	for _, o := range []Options{
		{Format: "table"}, {Format: "plain"}, {Format: "csv"}, {Format: "json"}, {Format: "yaml"}, {Format: "ndjson"},
		{Format: "json", JQ: ".[].wbsElementCode"}, {Format: "json", Template: "{{range .}}{{.wbsElementCode}}{{end}}"},
	} {
		for _, terminal := range []bool{true, false} {
			o.Terminal = terminal
			var buf bytes.Buffer
			p, err := New(&buf, o, "CODE")
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Add(row{hostile}, hostile); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if terminal && unsafeLeft(out) {
				t.Errorf("%+v: raw control or bidi characters reached the terminal: %q", o, out)
			}
			if terminal && o.Format == "json" && o.JQ == "" && o.Template == "" {
				var back []row
				if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back[0].Code != hostile {
					t.Errorf("escaped JSON on a terminal no longer reads back: %v %q", err, out)
				}
			}
			if !terminal && (o.Format == "csv" || o.Format == "json" || o.Format == "ndjson") && o.JQ == "" && o.Template == "" {
				var back string
				switch o.Format {
				case "csv":
					back = strings.Split(strings.TrimSpace(out), "\n")[1]
				default:
					var rows []row
					if o.Format == "ndjson" {
						var r row
						json.Unmarshal(buf.Bytes(), &r)
						rows = append(rows, r)
					} else {
						json.Unmarshal(buf.Bytes(), &rows)
					}
					back = rows[0].Code
				}
				if !strings.Contains(back, "\u202e") || !strings.Contains(back, "\u009b") {
					t.Errorf("%+v on a pipe is not exact: %q", o, out)
				}
			}
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain Ümlaut & Co": "plain Ümlaut & Co",
		"a\x1b[2Jb":         `a\x1b[2Jb`,
		"x\u202ey":          `x\u202ey`,
		"l1\nl2":            `l1\nl2`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := EscapeLines("one\x07\ntwo\u202e"); got != "one\\a\ntwo\\u202e" {
		t.Errorf("EscapeLines: %q", got)
	}
}

// A rune split across two writes is still seen whole.
func TestTerminalWriterAcrossWrites(t *testing.T) {
	var buf bytes.Buffer
	w := TerminalWriter(&buf)
	b := []byte("x\u202ey")
	w.Write(b[:2])
	w.Write(b[2:])
	if buf.String() != `x\u202ey` {
		t.Fatalf("%q", buf.String())
	}
}
