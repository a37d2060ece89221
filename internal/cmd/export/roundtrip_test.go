package export_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/oddtext"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"pgregory.net/rapid"
)

// The round trip of an export, as a backup and restore makes it: whatever
// the platform holds, export writes, in every format and shape, a file
// that apply --dry-run --prune plans no change of, or refuses the element
// it cannot write, naming it (its code, escaped), the field and the
// character. A file that reads back as other text has apply --prune
// delete the element and create another.

// A lone surrogate, which a Go string cannot hold, is held by the
// reference server as surrogateOpen, four hex digits and surrogateClose;
// loneSurrogates writes it in the platform's JSON as the escape \uD800,
// which a platform that keeps text as UTF-16 may send. Draws hold neither
// character otherwise.
const (
	surrogateOpen  = '\U00100000'
	surrogateClose = '\U00100001'
)

var heldSurrogate = regexp.MustCompile(string(surrogateOpen) + `([0-9a-f]{4})` + string(surrogateClose))

// oddPiece is a piece of text: an odd character, a lone surrogate, a
// character of the whole of Unicode, an odd word, or ASCII.
var oddPiece = rapid.OneOf(
	rapid.Map(rapid.SampledFrom(oddtext.Runes), func(r rune) string { return string(r) }),
	rapid.Map(rapid.SampledFrom([]rune{0xd800, 0xdfff, 0xdbff, 0xdc00, 0xdabc}), func(r rune) string {
		return fmt.Sprintf("%c%04x%c", surrogateOpen, r, surrogateClose)
	}),
	rapid.Custom(func(t *rapid.T) string {
		// A plane and a place in it: a draw favours the edges, where
		// the noncharacters are (the C0 controls come from oddtext.Runes).
		r := rapid.Int32Range(0, 16).Draw(t, "plane")<<16 | rapid.Int32Range(0x20, 0xffff).Draw(t, "code point")
		if r >= 0xd800 && r <= 0xdfff || r == surrogateOpen || r == surrogateClose {
			return "?"
		}
		return string(r)
	}),
	rapid.SampledFrom(oddtext.Words),
	rapid.StringMatching(`[A-Za-z0-9 -]{1,4}`),
)

// oddText is a text of min to max characters (a lone surrogate counts as
// one) made of pieces.
func oddText(min, max int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		pieces := rapid.SliceOfN(oddPiece, 0, 6).Draw(t, "pieces")
		var b strings.Builder
		n := 0
		for _, p := range pieces {
			k := len([]rune(p))
			if heldSurrogate.MatchString(p) {
				k = 1
			}
			if n+k > max {
				break
			}
			b.WriteString(p)
			n += k
		}
		for ; n < min; n++ {
			b.WriteByte('X')
		}
		return b.String()
	})
}

// oddElement is an element the platform can hold: a code of 1 to 30
// characters, a description of at most 100, organizations of a code and
// an entity type of at least one character each (spec section 8,
// sdk/validate.go).
var oddElement = rapid.Custom(func(t *rapid.T) wbstest.Element {
	el := wbstest.Element{Code: oddText(sdk.MinCodeLength, sdk.MaxCodeLength).Draw(t, "code"), IsActive: rapid.Bool().Draw(t, "isActive")}
	if rapid.Bool().Draw(t, "has description") {
		d := oddText(0, sdk.MaxDescriptionLength).Draw(t, "description")
		el.Description = &d
	}
	el.BusinessOrganizations = rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) wbstest.BusinessOrganization {
		return wbstest.BusinessOrganization{Code: oddText(sdk.MinOrganizationFieldLength, 12).Draw(t, "org code"),
			EntityType: oddText(sdk.MinOrganizationFieldLength, 12).Draw(t, "entity type")}
	}), 0, 3, func(o wbstest.BusinessOrganization) wbstest.BusinessOrganization { return seenOrg(o) }).Draw(t, "organizations")
	return el
})

// seen is text as a client reads it from the platform: JSON's reading of
// it with each surrogate held written as its escape (a lone one is
// U+FFFD, a pair the character it makes).
func seen(s string) string {
	if !heldSurrogate.MatchString(s) {
		return s
	}
	b, _ := json.Marshal(s)
	var out string
	if err := json.Unmarshal(heldSurrogate.ReplaceAll(b, []byte(`\u$1`)), &out); err != nil {
		panic(err)
	}
	return out
}

func seenOrg(o wbstest.BusinessOrganization) wbstest.BusinessOrganization {
	return wbstest.BusinessOrganization{Code: seen(o.Code), EntityType: seen(o.EntityType)}
}

// seenElement is el as a client reads it.
func seenElement(el wbstest.Element) wbstest.Element {
	el.Code = seen(el.Code)
	if el.Description != nil {
		d := seen(*el.Description)
		el.Description = &d
	}
	orgs := make([]wbstest.BusinessOrganization, len(el.BusinessOrganizations))
	for i, o := range el.BusinessOrganizations {
		orgs[i] = seenOrg(o)
	}
	el.BusinessOrganizations = orgs
	return el
}

// loneSurrogates is a transport to srv that writes each surrogate held in
// its answers as JSON's escape of it.
type loneSurrogates struct{ next http.RoundTripper }

func (l loneSurrogates) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body = heldSurrogate.ReplaceAll(body, []byte(`\u$1`))
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// A shape of an export: its flags, the name of its file, and what apply
// needs besides to read it.
type exportShape struct {
	name          string
	export, apply []string
	file          string
}

var exportShapes = []exportShape{
	// The formats of their own escapes first: a draw favours them.
	{"xlsx", []string{"--format", "xlsx"}, nil, "elements.xlsx"},
	{"yaml", []string{"--format", "yaml"}, nil, "elements.yaml"},
	{"csv for Excel", []string{"--format", "csv", "--delimiter", ";", "--bom"}, nil, "elements.csv"},
	{"csv with tabs", []string{"--format", "csv", "--delimiter", "tab"}, nil, "elements.tsv"},
	{"csv with bars", []string{"--format", "csv", "--delimiter", "|"}, []string{"--delimiter", "|"}, "elements.csv"},
	{"ndjson", []string{"--format", "ndjson"}, nil, "elements.ndjson"},
	{"csv", []string{"--format", "csv"}, nil, "elements.csv"},
	{"json", []string{"--format", "json"}, nil, "elements.json"},
}

var (
	allowInvisibleOnce sync.Once
	allowInvisible     []string
)

// allowInvisibleCodes is apply's --allow-invisible-codes where apply has
// it: a code holding a default-ignorable or a bidi control is one apply
// reads back only with it.
func allowInvisibleCodes(t *testing.T) []string {
	allowInvisibleOnce.Do(func() {
		srv := wbstest.New()
		if res := (cmdtest.Run{Transport: srv.Transport()}).Do(t, srv, "apply", "--help"); strings.Contains(res.Out, "--allow-invisible-codes") {
			allowInvisible = []string{"--allow-invisible-codes"}
		}
	})
	return allowInvisible
}

var (
	codePoint = regexp.MustCompile(`U\+[0-9A-F]{4,6}`)
	quoted    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// roundTrip exports the elements srv holds as shape and fails unless
// apply --dry-run --prune of the file plans no change, or export refused
// an element as checkRefusal says. It reports whether export refused.
func roundTrip(t *testing.T, fail func(string, ...any), srv *wbstest.Server, elements []wbstest.Element, shape exportShape) bool {
	t.Helper()
	cli := cmdtest.Run{Transport: loneSurrogates{srv.Transport()}}
	allow := allowInvisibleCodes(t)
	exp := cli.Do(t, srv, append([]string{"export"}, shape.export...)...)
	if exp.Code != 0 {
		checkRefusal(fail, shape, elements, exp.ErrOut)
		// The elements refused are left out and named; every other one
		// is written, and reads back unchanged.
		refused := strings.Count(exp.ErrOut, "error: the element ")
		if exp.Code != cmdutil.ExitPartial || refused == 0 {
			fail("%s: export refused an element with exit %d (want %d, the others written), naming %d:\n%s", shape.name, exp.Code, cmdutil.ExitPartial, refused, exp.ErrOut)
			return true
		}
		if refused == len(elements) {
			return true
		}
		path := cmdtest.WriteFile(t, t.TempDir(), shape.file, exp.Out)
		res := cli.Do(t, srv, slices.Concat([]string{"apply", "-f", path, "--dry-run", "--rate", "0"}, shape.apply, allow)...)
		if want := fmt.Sprintf("plan: 0 to create, 0 to update, %d unchanged, 0 to delete", len(elements)-refused); res.Code != 0 || !strings.Contains(res.ErrOut, want) {
			fail("%s: what export wrote beside the %d refused (%s) does not read back as the others: exit %d:\n%s%s\nthe file: %s",
				shape.name, refused, strings.TrimSpace(exp.ErrOut), res.Code, res.Out, res.ErrOut, shownFile(shape.file, exp.Out))
		}
		return true
	}
	path := cmdtest.WriteFile(t, t.TempDir(), shape.file, exp.Out)
	res := cli.Do(t, srv, slices.Concat([]string{"apply", "-f", path, "--dry-run", "--prune", "--detailed-exitcode", "--rate", "0"}, shape.apply, allow)...)
	want := fmt.Sprintf("plan: 0 to create, 0 to update, %d unchanged, 0 to delete", len(elements))
	if res.Code != 0 || !strings.Contains(res.ErrOut, want) {
		fail("%s: export wrote (exit 0) what apply --dry-run --prune does not read back unchanged: exit %d, want %q:\n%s%s\nthe file: %s",
			shape.name, res.Code, want, res.Out, res.ErrOut, shownFile(shape.file, exp.Out))
	}
	return false
}

// checkRefusal fails unless the error of an export names an element by
// its code, quoted and escaped (as Go quotes it, with what a terminal
// shows as nothing escaped too), a field of it, and a character that
// field holds.
func checkRefusal(fail func(string, ...any), shape exportShape, elements []wbstest.Element, errOut string) {
	named := map[string]bool{}
	for _, q := range quoted.FindAllString(errOut, -1) {
		if s, err := strconv.Unquote(q); err == nil {
			named[s] = true
		}
	}
	for _, el := range elements {
		el = seenElement(el)
		if !named[el.Code] {
			continue
		}
		orgs := ""
		for _, o := range el.BusinessOrganizations {
			orgs += o.Code + o.EntityType
		}
		for field, value := range map[string]string{"wbsElementCode": el.Code, "description": deref(el.Description), "businessOrganizations": orgs} {
			if !strings.Contains(errOut, "its "+field) {
				continue
			}
			for _, u := range codePoint.FindAllString(errOut, -1) {
				n, _ := strconv.ParseInt(u[2:], 16, 32)
				if strings.ContainsRune(value, rune(n)) {
					return
				}
			}
		}
	}
	fail("%s: export refused without naming an element (its code quoted), its field and a character that field holds:\n%s", shape.name, errOut)
}

// Every element the platform can hold, whatever its text, is exported in
// every format and shape so that apply --dry-run --prune of the file plans
// no change at all, or export refuses it by its code, field and character.
// Each check draws a few elements and a shape; the default 100 checks take
// a second or two; -rapid.checks=4000 takes about 30 s.
func TestExportRoundTripsEveryValue(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		elements := rapid.SliceOfNDistinct(oddElement, 1, 4, func(e wbstest.Element) string { return seen(e.Code) }).Draw(rt, "elements")
		shape := rapid.SampledFrom(exportShapes).Draw(rt, "shape")
		srv := wbstest.New()
		srv.URL = "http://127.0.0.1:9" // never dialled: srv.Transport answers
		srv.Put(elements...)
		roundTrip(t, rt.Fatalf, srv, elements, shape)
	})
}

// The values that broke a round trip, and their kin, in every shape: a
// draw may miss them, this does not. Each element is exported alone, so
// that one refused hides no other.
func TestExportRoundTripsTheOddestValues(t *testing.T) {
	str := func(s string) *string { return &s }
	org := func(entityType, code string) []wbstest.BusinessOrganization {
		return []wbstest.BusinessOrganization{{Code: code, EntityType: entityType}}
	}
	const (
		everywhere = "every shape" // apply would refuse it
		workbook   = "xlsx"        // a workbook cannot hold it; every other shape does
	)
	for _, tt := range []struct {
		el      wbstest.Element
		refused string
	}{
		{wbstest.Element{Code: "P-1\ufffe"}, workbook},
		{wbstest.Element{Code: "\uffff"}, workbook},
		{wbstest.Element{Code: "P-2", Description: str("a\uffffb")}, workbook},
		{wbstest.Element{Code: "P-3", BusinessOrganizations: org("company\ufffe", "1000")}, workbook},
		{wbstest.Element{Code: "P-4", BusinessOrganizations: org("company", "10\uffff")}, workbook},
		{wbstest.Element{Code: "P-5\U0001fffe\U0010ffff\ufdd0\ufffd", Description: str("\U0010fffe"), BusinessOrganizations: org("\U0001ffff", "\ufdef")}, ""},
		{wbstest.Element{Code: "P-6\x1b[31m"}, everywhere},
		{wbstest.Element{Code: "P-7", Description: str("tab\there")}, everywhere},
		{wbstest.Element{Code: "P-8", Description: str("line\r\nbreak")}, everywhere},
		{wbstest.Element{Code: "P-9", BusinessOrganizations: org("company", "1\x00")}, everywhere},
		{wbstest.Element{Code: "P-10", BusinessOrganizations: org("comp\u0085any", "1")}, everywhere},
		{wbstest.Element{Code: "P-11\u200b\u034f\ufe0f\U000e0001\u00ad\ufeff", Description: str("\u202eevil\u202c\u2066x\u2069")}, ""},
		{wbstest.Element{Code: "\u202eP-12\u200f"}, ""},
		{wbstest.Element{Code: " P-13 ", Description: str("  spaces  "), BusinessOrganizations: org(" company ", " 1 ")}, ""},
		{wbstest.Element{Code: "1e3", Description: str("TRUE"), BusinessOrganizations: org("null", "007")}, ""},
		{wbstest.Element{Code: "=1+1", Description: str("@SUM(A1)"), BusinessOrganizations: org("+A1", "-1")}, ""},
		{wbstest.Element{Code: "_x000D_", Description: str(`\ud800 _x0041_ &amp; ]]>`), BusinessOrganizations: org(`a\;b=c`, `\`)}, ""},
		{wbstest.Element{Code: "yes", Description: str("- ~\n"), BusinessOrganizations: org("on", "?")}, everywhere},
		{wbstest.Element{Code: "P-14\u2028\u2029\u00a0\u3000"}, ""},
		{wbstest.Element{Code: fmt.Sprintf("P-15%c%04x%c", surrogateOpen, 0xd800, surrogateClose), Description: str(fmt.Sprintf("%c%04x%c", surrogateOpen, 0xdc00, surrogateClose))}, ""},
		{wbstest.Element{Code: strings.Repeat("\U0001f600", sdk.MaxCodeLength), Description: str(strings.Repeat("\U0010fffd", sdk.MaxDescriptionLength))}, ""},
	} {
		for _, shape := range exportShapes {
			t.Run(fmt.Sprintf("%q/%s", tt.el.Code, shape.name), func(t *testing.T) {
				t.Parallel()
				srv := wbstest.New()
				srv.URL = "http://127.0.0.1:9"
				srv.Put(tt.el)
				refused := roundTrip(t, t.Fatalf, srv, []wbstest.Element{tt.el}, shape)
				if want := tt.refused == everywhere || tt.refused == shape.name; refused != want {
					t.Fatalf("refused %v, want %v", refused, want)
				}
			})
		}
	}
}

// shownFile is a text file, for a failure; a workbook is not text.
func shownFile(name, data string) string {
	if strings.HasSuffix(name, ".xlsx") {
		return fmt.Sprintf("(a workbook of %d bytes)", len(data))
	}
	return strconv.Quote(data)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
