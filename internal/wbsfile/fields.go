package wbsfile

import (
	"slices"
	"strconv"

	"github.com/wbsctl/wbsctl/sdk"
)

// Texts are an element's text fields other than its code. A field nil is
// one a file leaves out, or an element does not hold; "" in a file clears
// it. Each has its entry in TextFields, which the readers, writers, plans,
// saved plans, schemas, maps and views read, and its case in the four
// functions below that say where it is held: a text field is added in
// this file, in the SDK's types and in wbstest.
type Texts struct {
	Description *string `json:"description" yaml:"description"`
}

// TextField is one field of Texts: its name in every format, its heading
// in tables, its limit, and where the SDK's types hold it.
type TextField struct {
	// Name is the field in every format: the CSV and workbook column, the
	// JSON and YAML member, the map's key and the plan's field name.
	Name string
	// Heading is its column in tables.
	Heading string
	// Max is its length limit in characters, as the SDK validates it.
	Max int
	// Usage names it in a sentence ("the description"), for help and
	// schemas.
	Usage string
	// index is its place in TextFields.
	index int
}

// TextFields are the fields of Texts, in the order files, plans and views
// list them, after the code and before isActive.
var TextFields = indexed([]TextField{
	{Name: "description", Heading: "DESCRIPTION", Max: sdk.MaxDescriptionLength, Usage: "the description"},
})

// Where each field of TextFields is held, a case for each in its order:
// in Texts, the SDK's element, and its create and update requests. They
// are functions, not values of the table, so that a record or an element
// on the stack stays there when a field of it is read or set.

func (t *Texts) at(i int) **string {
	switch i {
	case 0:
		return &t.Description
	}
	panic(noField(i))
}

func elementText(e *sdk.WBSElement, i int) **string {
	switch i {
	case 0:
		return &e.Description
	}
	panic(noField(i))
}

func createText(r *sdk.CreateWBSElementRequest, i int) **string {
	switch i {
	case 0:
		return &r.Description
	}
	panic(noField(i))
}

func updateText(r *sdk.UpdateWBSElementRequest, i int) *sdk.Field[string] {
	switch i {
	case 0:
		return &r.Description
	}
	panic(noField(i))
}

func noField(i int) string { return "wbsfile: no text field " + strconv.Itoa(i) }

// indexed numbers the fields of a table.
func indexed(fields []TextField) []TextField {
	for i := range fields {
		fields[i].index = i
	}
	return fields
}

// Index returns the field's place in TextFields.
func (f TextField) Index() int { return f.index }

// textFieldIndex returns the place in TextFields of the field of name,
// -1 for none.
func textFieldIndex(name string) int {
	return slices.IndexFunc(TextFields, func(f TextField) bool { return f.Name == name })
}

// Of returns where t holds the field.
func (f TextField) Of(t *Texts) **string { return t.at(f.index) }

// Element returns where the SDK's element holds the field.
func (f TextField) Element(e *sdk.WBSElement) **string { return elementText(e, f.index) }

// Create returns where a create request holds the field.
func (f TextField) Create(r *sdk.CreateWBSElementRequest) **string { return createText(r, f.index) }

// Update returns where an update request holds the field.
func (f TextField) Update(r *sdk.UpdateWBSElementRequest) *sdk.Field[string] {
	return updateText(r, f.index)
}

// Text returns the field f of t: "" where t does not hold it.
func (t *Texts) Text(f TextField) string { return deref(*f.Of(t)) }

// Same reports whether t and u hold the same text in every field, a
// field not held being the same as an empty one.
func (t *Texts) Same(u *Texts) bool {
	for _, f := range TextFields {
		if t.Text(f) != u.Text(f) {
			return false
		}
	}
	return true
}

// Stated sets in t the fields r states: r's text, or none where r clears
// the field with "". The fields r leaves out stay as they are.
func (t *Texts) Stated(r *Texts) {
	for _, f := range TextFields {
		if v := *f.Of(r); v != nil {
			if *v == "" {
				v = nil
			}
			*f.Of(t) = v
		}
	}
}

// ElementTexts are the text fields of el.
func ElementTexts(el *sdk.WBSElement) Texts {
	var t Texts
	for _, f := range TextFields {
		*f.Of(&t) = *f.Element(el)
	}
	return t
}

// setCreate sets in req the fields t holds with text.
func (t *Texts) setCreate(req *sdk.CreateWBSElementRequest) {
	for _, f := range TextFields {
		if v := *f.Of(t); v != nil && *v != "" {
			*f.Create(req) = v
		}
	}
}

// SetUpdate sets in req the field f as t states it: its text, or null to
// clear it.
func (t *Texts) SetUpdate(req *sdk.UpdateWBSElementRequest, f TextField) {
	if v := t.Text(f); v != "" {
		*f.Update(req) = sdk.Set(v)
	} else {
		*f.Update(req) = sdk.Null[string]()
	}
}

// TextHeadings are the headings of TextFields in tables.
func TextHeadings() []string {
	headings := make([]string, len(TextFields))
	for i, f := range TextFields {
		headings[i] = f.Heading
	}
	return headings
}

// ElementCells are the text fields of el as cells of a table, "" where el
// does not hold one.
func ElementCells(el *sdk.WBSElement) []string {
	cells := make([]string, len(TextFields))
	for i, f := range TextFields {
		cells[i] = deref(*f.Element(el))
	}
	return cells
}

// TextFieldNames are the names of TextFields.
func TextFieldNames() []string {
	names := make([]string, len(TextFields))
	for i, f := range TextFields {
		names[i] = f.Name
	}
	return names
}
