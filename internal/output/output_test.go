package output

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

type item struct {
	Code        string  `json:"wbsElementCode"`
	Description *string `json:"description"`
	IsActive    bool    `json:"isActive"`
}

func items() []item {
	d := "Site\tpreparation"
	return []item{{"P-1", &d, true}, {"P-2", nil, false}}
}

func render(t *testing.T, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	p, err := New(&buf, opts, "CODE", "DESCRIPTION", "ACTIVE")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items() {
		desc := ""
		if it.Description != nil {
			desc = *it.Description
		}
		active := "false"
		if it.IsActive {
			active = "true"
		}
		if err := p.Add(it, it.Code, desc, active); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"table", Options{Terminal: true}},
		{"table-no-headers", Options{Terminal: true, NoHeaders: true}},
		{"plain", Options{Terminal: false}},
		{"plain-no-headers", Options{NoHeaders: true}},
		{"json", Options{Format: "json"}},
		{"yaml", Options{Format: "yaml"}},
		{"csv", Options{Format: "csv"}},
		{"ndjson", Options{Format: "ndjson"}},
		{"jq", Options{Format: "json", JQ: `.[] | select(.isActive) | .wbsElementCode`}},
		{"template", Options{Template: `{{range .}}{{.wbsElementCode}}={{.isActive}}{{"\n"}}{{end}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, tt.opts)
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestEmptyListsAndBadOptions(t *testing.T) {
	var buf bytes.Buffer
	p, _ := New(&buf, Options{Format: "json"}, "CODE")
	if err := p.Flush(); err != nil || buf.String() != "[]\n" {
		t.Fatalf("empty json list: %q %v", buf.String(), err)
	}
	buf.Reset()
	p, _ = New(&buf, Options{Format: "yaml"}, "CODE")
	if err := p.Flush(); err != nil || buf.String() != "[]\n" {
		t.Fatalf("empty yaml list: %q %v", buf.String(), err)
	}
	buf.Reset()
	for _, opts := range []Options{{Format: "xml"}, {JQ: ".[ | bad"}, {Template: "{{.x"}, {JQ: ".", Template: "x"}} {
		if _, err := New(&buf, opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
}

// Control characters from the platform reach a terminal escaped, in tables
// and plain rows alike; JSON escapes them itself.
func TestControlCharactersAreEscaped(t *testing.T) {
	row := []string{"N-27\x1b[31mRED", "line\r\nbreak\x00\u0085"}
	for _, format := range []string{"table", "plain"} {
		var b bytes.Buffer
		p, err := New(&b, Options{Format: format}, "CODE", "DESCRIPTION")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Add(row, row...); err != nil {
			t.Fatal(err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\r\x00\u0085") || !strings.Contains(out, `N-27\x1b[31mRED`) || !strings.Contains(out, `line\r\nbreak\x00\u0085`) {
			t.Errorf("%s: %q", format, out)
		}
		if strings.Count(out, "\n") != 2 {
			t.Errorf("%s: a row was split: %q", format, out)
		}
	}
}

func TestEmptyListPrintsTheHeaderAlone(t *testing.T) {
	for format, want := range map[string]string{"csv": "CODE,DESCRIPTION\n", "plain": "CODE\tDESCRIPTION\n"} {
		var b bytes.Buffer
		p, _ := New(&b, Options{Format: format}, "CODE", "DESCRIPTION")
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%s: %q, want %q", format, b.String(), want)
		}
	}
}

// TestSingleFormats writes one value in each form: JSON and NDJSON in the
// order of its Go type's fields, the rest through its JSON form, so that
// every form names its members as JSON does.
func TestSingleFormats(t *testing.T) {
	d := "Site preparation"
	v := item{Code: "P-1", Description: &d, IsActive: true}
	tests := []struct {
		opts Options
		want string
	}{
		{Options{Format: "json"}, "{\n  \"wbsElementCode\": \"P-1\",\n  \"description\": \"Site preparation\",\n  \"isActive\": true\n}\n"},
		{Options{Format: "ndjson"}, `{"wbsElementCode":"P-1","description":"Site preparation","isActive":true}` + "\n"},
		{Options{Format: "yaml"}, "description: Site preparation\nisActive: true\nwbsElementCode: P-1\n"},
		{Options{Format: "json", JQ: `.wbsElementCode + " " + (.isActive | tostring)`}, "P-1 true\n"},
		{Options{Template: `{{.wbsElementCode}}={{.description}}`}, "P-1=Site preparation"},
		{Options{}, "CODE\tDESCRIPTION\tACTIVE\nP-1\tSite preparation\ttrue\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		p, err := New(&buf, tt.opts, "CODE", "DESCRIPTION", "ACTIVE")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Single(v, v.Code, d, "true"); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.opts, buf.String(), tt.want)
		}
	}
}
