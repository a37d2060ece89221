// Package strictjson decodes JSON so that a text can be read only one way:
// a member given twice, a member unknown to the Go type (one in another
// case included), data after the value, an invalid string and a value of
// the wrong type are refused, each as an *Error that names the member. It
// reads apply files, element files, state files and saved plans, with
// github.com/go-json-experiment/json, the module behind Go's
// encoding/json/v2, whose defaults are these rules.
package strictjson

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Error is a JSON text refused.
type Error struct {
	// Path names the member, such as businessOrganizations[0].code; ""
	// for the text as a whole.
	Path string
	// Message says what is wrong with it.
	Message string
	// Offset is the byte offset in the text at or after which it is.
	Offset int64
	// Kind tells the refusals apart.
	Kind Kind
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Kind is the kind of an Error.
type Kind int

// The kinds of Error.
const (
	// Syntax is a text that is not JSON.
	Syntax Kind = iota + 1
	// Duplicate is a member given twice.
	Duplicate
	// Unknown is a member the type does not have.
	Unknown
	// Type is a value of the wrong type.
	Type
	// DataAfter is data after the value.
	DataAfter
)

// Unmarshal decodes the one JSON value of raw into v by the rules of the
// package.
func Unmarshal(raw []byte, v any) error {
	return explain(json.Unmarshal(raw, v, json.RejectUnknownMembers(true)))
}

// UnmarshalRead decodes the one JSON value of r into v by the rules of
// the package, reading r as it goes: a member whose type reads itself
// with UnmarshalJSONFrom, such as a long list read an item at a time, is
// never held as text whole. Unlike UnmarshalLarge, the decoder checks
// names itself, so v's objects should be small.
func UnmarshalRead(r io.Reader, v any) error {
	return explain(json.UnmarshalRead(r, v, json.RejectUnknownMembers(true)))
}

// UnmarshalLarge decodes the one JSON value of r into v without holding
// the text whole, for a value too large to hold: v's type reads itself
// with UnmarshalJSONFrom, a member at a time, and keeps to the package's
// rules itself. The decoder does not remember the names of an object's
// members, which for a large object would be most of what it holds: a type that reads an
// object refuses a name given twice, and reads each small value whole
// with Member.
func UnmarshalLarge(r io.Reader, v any) error {
	if _, ok := v.(json.UnmarshalerFrom); !ok {
		// Read by the module, its names would go unchecked.
		return fmt.Errorf("strictjson.UnmarshalLarge: %T does not read itself", v)
	}
	return explain(json.UnmarshalRead(r, v, json.RejectUnknownMembers(true), jsontext.AllowDuplicateNames(true)))
}

// Member decodes the value of the member dec is at into v by the
// package's rules, for an UnmarshalJSONFrom method of UnmarshalLarge.
func Member(dec *jsontext.Decoder, v any) error {
	at := dec.StackPointer()
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if err := Unmarshal(raw, v); err != nil {
		var e *Error
		if errors.As(err, &e) {
			sub := *e
			if sub.Path = path(at); e.Path != "" {
				sub.Path += "." + e.Path
			}
			sub.Offset += dec.InputOffset() - int64(len(raw))
			return &sub
		}
		return err
	}
	return nil
}

// Repeated is the refusal of the member dec is at, which its object gave
// before, for an UnmarshalJSONFrom method of UnmarshalLarge.
func Repeated(dec *jsontext.Decoder) error {
	return &Error{Kind: Duplicate, Path: path(dec.StackPointer()), Offset: dec.InputOffset(), Message: "given more than once"}
}

// UnknownMember is the refusal of the member dec is at, which t does not
// have, for an UnmarshalJSONFrom method of UnmarshalLarge.
func UnknownMember(dec *jsontext.Decoder, t reflect.Type) error {
	at := dec.StackPointer()
	return &Error{Kind: Unknown, Path: path(at), Offset: dec.InputOffset(), Message: unknown(at.LastToken(), t)}
}

// explain makes an error of the json module an *Error.
func explain(err error) error {
	if err == nil {
		return nil
	}
	var done *Error
	if errors.As(err, &done) {
		return done // refused by Member, Repeated or UnknownMember
	}
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		e := &Error{Path: path(syn.JSONPointer), Offset: syn.ByteOffset}
		switch msg := syn.Err.Error(); {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			e.Kind, e.Message = Duplicate, "given more than once"
		case strings.Contains(msg, "after top-level value"):
			e.Kind, e.Path, e.Message = DataAfter, "", "data after the value"
		default:
			e.Kind, e.Message = Syntax, "invalid JSON: "+msg
		}
		return e
	case errors.As(err, &sem):
		e := &Error{Path: path(sem.JSONPointer), Offset: sem.ByteOffset}
		if errors.Is(sem.Err, json.ErrUnknownName) {
			e.Kind, e.Message = Unknown, unknown(sem.JSONPointer.LastToken(), sem.GoType)
			return e
		}
		e.Kind, e.Message = Type, fmt.Sprintf("must be %s, not %s", goKind(sem.GoType), jsonKind(sem.JSONKind))
		if r, ok := integerRange(sem.GoType); ok && sem.JSONKind == '0' {
			// A fraction, or a number out of the type's range.
			e.Message = "must be a whole number from " + r
		}
		var own *methodError
		switch {
		case errors.As(sem.Err, &own):
			// A type's own UnmarshalJSON says best what it refused.
			e.Message = own.msg
		case sem.GoType == nil || sem.JSONKind == 0:
			e.Message = strings.TrimPrefix(sem.Error(), "json: ")
		}
		return e
	}
	return err
}

// methodError is the refusal of a type's UnmarshalJSON, made by Refuse.
type methodError struct{ msg string }

func (e *methodError) Error() string { return e.msg }

// Refuse is the error an UnmarshalJSON method returns for a value it does
// not take: Unmarshal reports msg, with the member's path, as its own.
func Refuse(msg string) error { return &methodError{msg: msg} }

// unknown says that name is not a member of t, naming the one it differs
// from only in case, or else listing them all.
func unknown(name string, t reflect.Type) string {
	known := members(t)
	for _, k := range known {
		if strings.EqualFold(name, k) {
			return fmt.Sprintf("unknown member; the spec spells it %q", k)
		}
	}
	if len(known) == 0 {
		return "unknown member"
	}
	return fmt.Sprintf("unknown member (known: %s)", strings.Join(known, ", "))
}

// members are the JSON member names of a struct type, in field order.
func members(t reflect.Type) []string {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			// An embedded struct's members are the struct's own.
			for _, inner := range members(f.Type) {
				if !slices.Contains(names, inner) {
					names = append(names, inner)
				}
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// goKind names the JSON kind a Go type takes.
func goKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "something else"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// integerRange is the range of the integer type t, or of what t points
// to, as "MIN to MAX".
func integerRange(t reflect.Type) (string, bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil:
		return "", false
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		largest := int64(uint64(math.MaxUint64) >> (65 - t.Bits()))
		return fmt.Sprintf("%d to %d", -largest-1, largest), true
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return fmt.Sprintf("0 to %d", uint64(math.MaxUint64)>>(64-t.Bits())), true
	}
	return "", false
}

// jsonKind names the kind of a JSON value as goKind names a Go type's.
func jsonKind(k jsontext.Kind) string {
	switch k {
	case 't', 'f':
		return "bool"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}

// path writes a JSON Pointer as a path a person reads:
// /businessOrganizations/0/code as businessOrganizations[0].code.
func path(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
