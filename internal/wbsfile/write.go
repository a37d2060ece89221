package wbsfile

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/sdk"
	"gopkg.in/yaml.v3"
)

// Write writes records in a format Parse reads back to the same records.
// Every field is written, so that applying an export changes nothing.
func Write(w io.Writer, f Format, records []Record) error {
	rw, err := NewRecordWriter(w, f)
	if err != nil {
		return err
	}
	for _, r := range records {
		if err := rw.Write(r); err != nil {
			return err
		}
	}
	return rw.Close()
}

// RecordWriter writes records one at a time, in a format Parse reads back
// to the same records: each record is written when it is given, and Close
// ends the file (the closing bracket of a JSON array, the header of an
// empty CSV). A file closed after an error holds every record written
// before it, each whole.
type RecordWriter struct {
	w    io.Writer
	f    Format
	csv  *csv.Writer
	xlsx *workbookWriter
	n    int
}

// WriteOptions say how to write a file beyond its format.
type WriteOptions struct {
	// Delimiter separates the cells of CSV; 0 is ','.
	Delimiter rune
	// BOM starts CSV with UTF-8's byte-order mark, by which Excel reads
	// the file as UTF-8 (without it, as the system's encoding).
	BOM bool
}

// columns is the header of a CSV file or a workbook written, and the
// members of a record: the code, the text fields, isActive and the
// links.
var columns = slices.Concat([]string{"wbsElementCode"}, TextFieldNames(), []string{"isActive", "businessOrganizations"})

// activeColumn is the column of isActive in columns.
var activeColumn = 1 + len(TextFields)

// Columns returns the header of a CSV file or a workbook written.
func Columns() []string { return slices.Clone(columns) }

// cells are r's cells in the order of columns, isActive as active.
func cells(r *Record, active string) []string {
	row := make([]string, 0, len(columns))
	row = append(row, r.Code)
	for _, f := range TextFields {
		row = append(row, r.Text(f))
	}
	return append(row, active, notation.Format(r.Organizations))
}

// NewRecordWriter returns a RecordWriter of format f to w.
func NewRecordWriter(w io.Writer, f Format) (*RecordWriter, error) {
	return NewRecordWriterWith(w, f, WriteOptions{})
}

// NewRecordWriterWith returns a RecordWriter of format f to w, written as
// opts says.
func NewRecordWriterWith(w io.Writer, f Format, opts WriteOptions) (*RecordWriter, error) {
	if (opts.Delimiter != 0 || opts.BOM) && f != FormatCSV {
		return nil, fmt.Errorf("--delimiter and --bom are options of CSV; the format is %s", f)
	}
	rw := &RecordWriter{w: w, f: f}
	switch f {
	case FormatCSV:
		if opts.BOM {
			if _, err := w.Write(bomUTF8); err != nil {
				return nil, err
			}
		}
		rw.csv = csv.NewWriter(w)
		if opts.Delimiter != 0 {
			if _, err := ParseDelimiter(string(opts.Delimiter)); err != nil {
				return nil, err
			}
			rw.csv.Comma = opts.Delimiter
		}
		if err := rw.csv.Write(columns); err != nil {
			return nil, err
		}
	case FormatXLSX:
		var err error
		if rw.xlsx, err = newWorkbookWriter(); err != nil {
			return nil, err
		}
	case FormatJSON, FormatNDJSON, FormatYAML:
	default:
		return nil, fmt.Errorf("unknown format %q", f)
	}
	return rw, nil
}

// Write writes r, every field stated. A record that the file could not
// hold, or that apply would refuse to read back, is refused before any of
// it is written: its code, the field and the character are named.
func (rw *RecordWriter) Write(r Record) error {
	if err := CheckWritable(r); err != nil {
		return err
	}
	rw.n++
	active := r.IsActive == nil || *r.IsActive
	switch rw.f {
	case FormatCSV:
		return rw.csv.Write(cells(&r, strconv.FormatBool(active)))
	case FormatXLSX:
		return rw.xlsx.write(r.Code, cells(&r, strings.ToUpper(strconv.FormatBool(active))))
	}
	jr := r.item()
	switch rw.f {
	case FormatJSON:
		// The same bytes as an encoder with a two-space indent writes
		// for the whole array.
		b, err := json.MarshalIndent(jr, "  ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n  "
		if rw.n == 1 {
			sep = "[\n  "
		}
		_, err = io.WriteString(rw.w, sep+string(b))
		return err
	case FormatNDJSON:
		return json.NewEncoder(rw.w).Encode(jr)
	}
	// YAML: an item of the file's one sequence.
	b, err := yaml.Marshal([]jsonRecord{jr})
	if err != nil {
		return err
	}
	_, err = rw.w.Write(b)
	return err
}

// Item is r as a JSON or YAML file written holds it, every field stated,
// for a filter of the output (--jq, --template).
func (r *Record) Item() any { return r.item() }

// item is r as a JSON or YAML file written holds it: every field stated,
// a text not held as "", isActive true where not stated.
func (r *Record) item() jsonRecord {
	code, active := r.Code, r.IsActive == nil || *r.IsActive
	orgs := make([]fileOrganization, len(r.Organizations))
	for k, o := range r.Organizations {
		orgs[k] = fileOrganization(o)
	}
	jr := jsonRecord{Code: &code, IsActive: &active, Organizations: &orgs}
	for _, f := range TextFields {
		text := r.Text(f)
		*f.Of(&jr.Texts) = &text
	}
	return jr
}

// Cells are r's cells in a table: its code, texts, isActive and links,
// under Columns.
func (r *Record) Cells() []string {
	return cells(r, strconv.FormatBool(r.IsActive == nil || *r.IsActive))
}

// CheckWritable refuses a record that apply would refuse on reading it
// back (parser.check), as an *UnwritableError: text that is not UTF-8, a
// control character in its code, texts or organizations (a tab and a line
// break too), a
// length beyond the spec's. Written, it would have apply refuse the whole
// file, so that the export could not be applied back.
func CheckWritable(r Record) error {
	notUTF8 := func(field, s string) error {
		return &UnwritableError{Code: r.Code, Err: fmt.Errorf("the element %q: its %s holds the byte %#02x, which is not UTF-8: apply refuses it", r.Code, field, s[firstInvalid([]byte(s))])}
	}
	if !utf8.ValidString(r.Code) {
		return notUTF8("wbsElementCode", r.Code)
	}
	for _, f := range TextFields {
		if text := r.Text(f); !utf8.ValidString(text) {
			return notUTF8(f.Name, text)
		}
	}
	for i, o := range r.Organizations {
		if !utf8.ValidString(o.Code) {
			return notUTF8(fmt.Sprintf("businessOrganizations[%d].code", i), o.Code)
		}
		if !utf8.ValidString(o.EntityType) {
			return notUTF8(fmt.Sprintf("businessOrganizations[%d].entityType", i), o.EntityType)
		}
	}
	req := r.CreateRequest()
	for _, f := range TextFields {
		*f.Create(req) = *f.Of(&r.Texts)
	}
	var ve *sdk.ValidationError
	if err := req.Validate(); err == nil || !errors.As(err, &ve) || len(ve.Violations) == 0 {
		return err
	}
	v := ve.Violations[0]
	return &UnwritableError{Code: r.Code, Err: fmt.Errorf("the element %q: its %s %s (limit: %s), which apply refuses: change it on the platform to export it", r.Code, v.Field, v.Message, v.Limit)}
}

// UnwritableError is a record a RecordWriter refused, having written
// nothing of it: the file could not hold it, or apply would refuse it on
// reading the file back. The file stays whole without it.
type UnwritableError struct {
	Code string
	Err  error
}

func (e *UnwritableError) Error() string { return e.Err.Error() }
func (e *UnwritableError) Unwrap() error { return e.Err }

// Close ends the file and passes on what is buffered. A workbook is
// written whole only here: its rows wait in a temporary file until then.
func (rw *RecordWriter) Close() error {
	switch rw.f {
	case FormatXLSX:
		return rw.xlsx.close(rw.w)
	case FormatCSV:
		rw.csv.Flush()
		return rw.csv.Error()
	case FormatJSON:
		end := "\n]\n"
		if rw.n == 0 {
			end = "[]\n"
		}
		_, err := io.WriteString(rw.w, end)
		return err
	case FormatYAML:
		if rw.n == 0 {
			_, err := io.WriteString(rw.w, "[]\n")
			return err
		}
	}
	return nil
}
