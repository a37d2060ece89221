package wbsfile

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/unicodeprop"
	"github.com/wbsctl/wbsctl/sdk"
)

// Record is the desired state of one element, as a file states it. A
// field the file leaves out is not managed: a text nil keeps the
// platform's text, IsActive nil keeps the flag (a new element is then
// active), OrganizationsSet false leaves the links alone. A field the
// file states is made exactly so; an empty text clears it, an empty
// organization list removes every link.
type Record struct {
	Code string
	Texts
	IsActive         *bool
	Organizations    []sdk.BusinessOrganization
	OrganizationsSet bool
	// flawed marks a record its reader reported a problem of: it is left
	// out whatever its code. Beside the bool, it takes no room.
	flawed bool
	// Line is the record's line in the file (CSV, NDJSON: the line; JSON,
	// YAML: the line where the record starts). It is an int32, beside the
	// bool, because a run holds a record per element: 8 bytes less each.
	Line int32
}

// Problem is one thing wrong with a file.
type Problem struct {
	// Line is the line of a text file, or the row of a workbook.
	Line int `json:"line"`
	// Cell names the place in a workbook, as a spreadsheet names it
	// ("WBS!B7"), or its row ("WBS row 7"); "" in a text file.
	Cell    string `json:"cell,omitempty"`
	Code    string `json:"wbsElementCode,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Place names where p is: its cell, its line, or the file.
func (p Problem) Place() string {
	switch {
	case p.Cell != "":
		return p.Cell
	case p.Line > 0:
		return fmt.Sprintf("line %d", p.Line)
	}
	return "the file"
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Place())
	if p.Code != "" {
		fmt.Fprintf(&b, " (code %s)", strconv.Quote(p.Code))
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// File is a parsed file: its valid records and its problems.
//
// The readers keep one contract with apply: every record of the file
// gives a Record or a Problem, and a Problem carries the code of its
// record whenever any reading of the file can find one (an unknown member
// or a value of the wrong type leaves wbsElementCode readable). A code
// that a problem names is left out whole: every record of it goes to
// Invalid, and InvalidCodes names it, since the file names it all the
// same. A problem without a code (a row that cannot be split into cells,
// a record whose code is not a string, a problem of the whole file) sets
// CodeUnknown: the file names an element no reading can tell. What apply's
// prune makes of both is decided by engine.Prune.
type File struct {
	Records  []Record
	Problems []Problem
	// Invalid holds the records left out because of a problem.
	Invalid []Record
	// InvalidCodes are the codes the problems name, sorted, each once:
	// the file names them all the same.
	InvalidCodes []string
	// CodeUnknown is the first problem that names no code, nil when
	// every problem names one. Problems holds at most maxProblems; this
	// is set whatever their number.
	CodeUnknown *Problem
	// Notes are what the reading noticed that is no problem but that a
	// person may not expect, such as hidden rows of a workbook that were
	// read.
	Notes []string
}

// Format is a file format.
type Format string

// The formats apply reads and export writes.
const (
	FormatCSV    Format = "csv"
	FormatJSON   Format = "json"
	FormatNDJSON Format = "ndjson"
	FormatYAML   Format = "yaml"
	// FormatXLSX is an Excel workbook (Office Open XML), one sheet of it
	// read as a CSV file is.
	FormatXLSX Format = "xlsx"
)

// DetectFormat picks the format from override, else from the file name's
// extension. A .tsv or .txt file is delimited text, read as CSV (Excel
// saves its "Unicode text" as .txt).
func DetectFormat(name, override string) (Format, error) {
	if override != "" {
		f, err := ParseFormat(override)
		if err != nil {
			return "", fmt.Errorf("--format %w", err)
		}
		return f, nil
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".tsv", ".txt":
		return FormatCSV, nil
	case ".xlsx":
		return FormatXLSX, nil
	case ".json":
		return FormatJSON, nil
	case ".ndjson", ".jsonl":
		return FormatNDJSON, nil
	case ".yaml", ".yml":
		return FormatYAML, nil
	}
	return "", fmt.Errorf("cannot tell the format of %q: name it .csv, .json, .ndjson, .yaml or .xlsx, or give --format", name)
}

// ParseFormat reads a format by its name, in any case.
func ParseFormat(name string) (Format, error) {
	switch f := Format(strings.ToLower(name)); f {
	case FormatCSV, FormatJSON, FormatNDJSON, FormatYAML, FormatXLSX:
		return f, nil
	}
	return "", fmt.Errorf("%q: use csv, json, ndjson, yaml or xlsx", name)
}

// MaxFileBytes bounds what Parse reads of a file.
const MaxFileBytes = 256 << 20

// maxProblems bounds how many problems are reported.
const maxProblems = 1000

// Parse reads a whole file and checks every record against the spec's
// limits, collecting every problem instead of stopping at the first.
func Parse(r io.Reader, f Format) (*File, error) {
	return ParseWith(r, f, ReadOptions{})
}

// ParseWith is Parse with the options of a file whose bytes do not say
// everything: a workbook's sheet, a CSV file's delimiter, a text file's
// encoding.
func ParseWith(r io.Reader, f Format, opts ReadOptions) (*File, error) {
	if err := checkParse(f, opts); err != nil {
		return nil, err // before the file is read
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return ParseBytes(data, f, opts)
}

// ParseBytes is ParseWith of a file already read, which it does not copy
// or change.
func ParseBytes(data []byte, f Format, opts ReadOptions) (*File, error) {
	return ParseBytesChecked(data, f, opts, Checks{})
}

// Checks relax the checks of a file's records, for a platform whose data
// is not what a file should hold.
type Checks struct {
	// AllowInvisibleCodes lets a wbsElementCode hold a character that
	// shows as nothing or reorders what is shown (invisibleRune): the
	// platform's codes may hold them. Without it such a record is
	// invalid, so that a code never looks like another.
	AllowInvisibleCodes bool
}

// ParseBytesChecked is ParseBytes with the checks of checks relaxed.
func ParseBytesChecked(data []byte, f Format, opts ReadOptions, checks Checks) (*File, error) {
	if err := checkParse(f, opts); err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes", MaxFileBytes)
	}
	p := &parser{file: &File{}, opts: opts, checks: checks}
	if f == FormatXLSX {
		p.check(p.xlsx(data))
		return p.file, nil
	}
	data, ok := p.text(data, f)
	if !ok {
		return p.file, nil
	}
	var recs []Record
	switch f {
	case FormatCSV:
		recs = p.csv(data)
	case FormatJSON:
		recs = p.jsonArray(data)
	case FormatNDJSON:
		recs = p.ndjson(data)
	case FormatYAML:
		recs = p.yaml(data)
	}
	p.check(recs)
	return p.file, nil
}

type parser struct {
	file *File
	// bad holds the codes the problems name, each with the line of its
	// first problem; unnamed the lines of problems that name none.
	bad     map[string]int
	unnamed map[int]bool
	opts    ReadOptions
	checks  Checks
	// sheet is the workbook's sheet read, and columns the column of each
	// field in it, to name the cell of a problem; nil in a text file.
	sheet   *sheetPlace
	columns map[string]int
}

func (p *parser) problem(pr Problem) {
	if p.sheet != nil && pr.Cell == "" {
		pr.Cell = p.sheet.cell(pr.Line, p.columnOf(pr.Field))
	}
	if pr.Code != "" {
		if p.bad == nil {
			p.bad = map[string]int{}
		}
		if _, seen := p.bad[pr.Code]; !seen {
			p.bad[pr.Code] = pr.Line
		}
	} else {
		if p.unnamed == nil {
			p.unnamed = map[int]bool{}
			p.file.CodeUnknown = &pr
		}
		p.unnamed[pr.Line] = true
	}
	if len(p.file.Problems) < maxProblems {
		p.file.Problems = append(p.file.Problems, pr)
	}
}

// checkParse refuses a format that is not one and options it does not
// take.
func checkParse(f Format, opts ReadOptions) error {
	if err := opts.Check(f); err != nil {
		return err
	}
	switch f {
	case FormatCSV, FormatJSON, FormatNDJSON, FormatYAML, FormatXLSX:
		return nil
	}
	return fmt.Errorf("unknown format %q", f)
}

// recordProblem reports pr, a problem of rec: rec is left out, and pr
// names rec's code.
func (p *parser) recordProblem(rec *Record, pr Problem) {
	rec.flawed, pr.Code = true, rec.Code
	p.problem(pr)
}

// check validates the records against the SDK's limits and finds codes
// given twice, then sorts them into valid and invalid: a record is
// invalid when it has a problem or its code has one elsewhere in the
// file (another row of it, another record of it that could not be read).
func (p *parser) check(recs []Record) {
	if len(recs) == 0 && len(p.file.Problems) == 0 {
		// A problem of the whole file, not of a record left out.
		p.problem(Problem{Line: 1, Message: "the file holds no records"})
		delete(p.unnamed, 1)
	}
	for i := range recs {
		recs[i].Organizations = links.Share(recs[i].Organizations)
	}
	// The codes given twice, found through the records sorted by code
	// (see codeindex).
	repeats := codeindex.New(len(recs), func(i int) string { return recs[i].Code }).Repeats()
	for i, r := range recs {
		// The texts as stated, an empty one too, are checked.
		req := r.CreateRequest()
		for _, f := range TextFields {
			if v := *f.Of(&r.Texts); v != nil {
				*f.Create(req) = v
			}
		}
		if err := req.Validate(); err != nil {
			var ve *sdk.ValidationError
			if errors.As(err, &ve) {
				for _, v := range ve.Violations {
					p.recordProblem(&recs[i], Problem{Line: int(r.Line), Field: v.Field, Message: v.Message + " (limit: " + v.Limit + ")"})
				}
			}
		}
		if msg := CodeProblem(r.Code, p.checks); msg != "" {
			p.recordProblem(&recs[i], Problem{Line: int(r.Line), Field: "wbsElementCode", Message: msg})
		}
		if f, dup := repeats[i]; dup && r.Code != "" {
			line := int(recs[f].Line)
			msg := fmt.Sprintf("the same code is on line %d", line)
			if p.sheet != nil {
				msg = "the same code is in " + p.sheet.cell(line, p.columnOf("wbsElementCode"))
			}
			p.recordProblem(&recs[i], Problem{Line: int(r.Line), Field: "wbsElementCode", Message: msg})
		}
	}
	p.file.InvalidCodes = slices.Sorted(maps.Keys(p.bad))
	if len(p.bad) == 0 && len(p.unnamed) == 0 {
		p.file.Records = recs
		return
	}
	for _, r := range recs {
		if _, bad := p.bad[r.Code]; r.flawed || bad {
			p.file.Invalid = append(p.file.Invalid, r)
			delete(p.bad, r.Code)
			if r.Code == "" {
				delete(p.unnamed, int(r.Line))
			}
		} else {
			p.file.Records = append(p.file.Records, r)
		}
	}
	// A record no reader could make is left out all the same: by its
	// code where a problem names it, else by its line.
	for _, code := range slices.Sorted(maps.Keys(p.bad)) {
		p.file.Invalid = append(p.file.Invalid, Record{Code: code, Line: int32(p.bad[code]), flawed: true})
	}
	for _, line := range slices.Sorted(maps.Keys(p.unnamed)) {
		p.file.Invalid = append(p.file.Invalid, Record{Line: int32(line), flawed: true})
	}
}

// columnOf is the column of a workbook that holds field (such as
// "businessOrganizations[2].code"), or -1.
func (p *parser) columnOf(field string) int {
	name, _, _ := strings.Cut(field, "[")
	name, _, _ = strings.Cut(name, ".")
	col, ok := p.columns[csvColumns[strings.ToLower(name)]]
	if !ok || name == "" {
		return -1
	}
	return col
}

// invisibleRune is the first character of code that shows as nothing or
// reorders what is shown, or -1 when it holds none: a code point of
// Unicode's Default_Ignorable_Code_Point property, assigned or not (the
// zero-width space, joiners, the soft hyphen, the combining grapheme
// joiner, the variation selectors, the Hangul fillers, the tags), and
// among them the bidi controls (U+061C, U+200E, U+200F, U+202A..202E,
// U+2066..2069). "P-1" and "P-1" followed by U+034F look the same in
// every table, diff and page; the platform would hold two elements.
func invisibleRune(code string) rune {
	for i := 0; i < len(code); i++ {
		if code[i] >= utf8.RuneSelf {
			for _, r := range code[i:] {
				if unicodeprop.DefaultIgnorable(r) || unicodeprop.BidiControl(r) {
					return r
				}
			}
			break
		}
	}
	return -1
}

// CodeProblem is the problem apply finds in code beyond the spec's
// limits: a character that shows as nothing or a bidi control
// (invisibleRune), unless checks allow them. "" when there is none.
func CodeProblem(code string, checks Checks) string {
	if c := invisibleRune(code); c >= 0 && !checks.AllowInvisibleCodes {
		return invisibleMessage(c)
	}
	return ""
}

// invisibleMessage is the problem of a code that holds r (invisibleRune).
func invisibleMessage(r rune) string {
	const allow = " (--allow-invisible-codes lets such codes through)"
	if unicodeprop.BidiControl(r) {
		return fmt.Sprintf("holds the bidi control %U, which reorders what is shown around it%s", r, allow)
	}
	return fmt.Sprintf("holds the invisible character %U, so that it would look like a code without it%s", r, allow)
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// CreateRequest is the create of the record, links inlined so that a new
// element costs one request.
func (r *Record) CreateRequest() *sdk.CreateWBSElementRequest {
	req := &sdk.CreateWBSElementRequest{Code: r.Code, IsActive: r.IsActive}
	r.setCreate(req)
	if r.OrganizationsSet {
		req.BusinessOrganizations = links.Dedupe(r.Organizations)
	}
	return req
}

// deref is the text of s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ProblemsOf are the problems that left the record r out: those of its
// code, or of its line where they name no code.
func (f *File) ProblemsOf(r Record) []Problem {
	var out []Problem
	for _, p := range f.Problems {
		if p.Code != "" && p.Code == r.Code || p.Code == "" && p.Line == int(r.Line) {
			out = append(out, p)
		}
	}
	return out
}
