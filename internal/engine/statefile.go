package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/strictjson"
)

// The state file's bytes: read as a stream by readState, written as a
// stream by writeState, an element at a time, so that a large state is
// never held as text whole.

// readState reads a state file as a stream: held whole, a large state
// would be most of a re-apply's peak. The entries of the elements the
// records of known name go to known, not to Elements.
func readState(r io.Reader, known *knownStates) (*stateFile, error) {
	var st stateFile
	if err := strictjson.UnmarshalLarge(r, &stateReading{&st, known}); err != nil {
		return nil, err
	}
	if st.FormatVersion != StateFormatVersion {
		return nil, fmt.Errorf("format version %d, want %d", st.FormatVersion, StateFormatVersion)
	}
	if st.Elements == nil {
		return nil, errors.New("no elements member")
	}
	return &st, nil
}

// stateReading is a state file being read, with where the entries of the
// elements the records name go.
type stateReading struct {
	*stateFile
	known *knownStates
}

// UnmarshalJSONFrom reads a state file by strictjson's rules, for
// strictjson.UnmarshalLarge.
func (s stateReading) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	head := members(&s.stateHead)
	seen := map[string]bool{}
	return readObject(dec, func(name string) error {
		if seen[name] {
			return strictjson.Repeated(dec)
		}
		seen[name] = true
		if name == "elements" {
			return s.Elements.read(dec, s.known)
		}
		if field, ok := head[name]; ok {
			return strictjson.Member(dec, field)
		}
		return strictjson.UnknownMember(dec, reflect.TypeFor[stateFile]())
	})
}

// members are the fields of the struct v points to by their JSON names,
// from their tags, each as a pointer to decode into: the head's members
// are read by the same tags that write them, so that a member added to
// the head is one edit.
func members(v any) map[string]any {
	rv := reflect.ValueOf(v).Elem()
	byName := map[string]any{}
	for i := range rv.NumField() {
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			byName[name] = rv.Field(i).Addr().Interface()
		}
	}
	return byName
}

// UnmarshalJSONFrom reads the elements from dec.
func (m *stateElements) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return m.read(dec, nil)
}

// read reads the elements from dec; those the records of known name go
// to known, not to m.
func (m *stateElements) read(dec *jsontext.Decoder, known *knownStates) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*m = nil
		return err
	}
	*m = stateElements{}
	return readObject(dec, func(code string) error {
		i, named := known.find(code)
		if _, given := (*m)[code]; given || named && known.given[i] {
			return strictjson.Repeated(dec)
		}
		var el State
		if err := strictjson.Member(dec, &el); err != nil {
			return err
		}
		el.BusinessOrganizations = links.Share(el.BusinessOrganizations)
		if named {
			known.add(i, &el)
		} else {
			(*m)[code] = &el
		}
		return nil
	})
}

// readObject reads the JSON object dec is at, calling member with each
// name, at its value.
func readObject(dec *jsontext.Decoder, member func(name string) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return strictjson.Refuse("must be an object")
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}

// writeState writes the state file of head and elements, yielded in the
// order of their codes (nil writes none, as null), an element at a time:
// in the bytes a json.Encoder writes for a stateFile of the same, without
// holding the file, or its text, whole. The head and each element are
// encoded by encoding/json, whose escapes the tokens keep.
func writeState(w io.Writer, head *stateHead, elements iter.Seq2[string, *State]) error {
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	// The codes are unique: the encoder need not hold them to check.
	enc := jsontext.NewEncoder(w, jsontext.PreserveRawStrings(true), jsontext.AllowDuplicateNames(true))
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	if err := copyMembers(enc, b); err != nil {
		return err
	}
	if err := enc.WriteToken(jsontext.String("elements")); err != nil {
		return err
	}
	if elements == nil {
		if err := enc.WriteToken(jsontext.Null); err != nil {
			return err
		}
		return enc.WriteToken(jsontext.EndObject)
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	// One encoder and its buffer for every element: a large run's end
	// writes an element each, and an encoder each would be a burst of
	// garbage at the run's peak.
	var buf bytes.Buffer
	each := json.NewEncoder(&buf)
	write := func(v any) error {
		buf.Reset()
		if err := each.Encode(v); err != nil {
			return err
		}
		return enc.WriteValue(buf.Bytes()) // its newline is whitespace
	}
	for code, el := range elements {
		if err := write(code); err != nil {
			return err
		}
		if err := write(el); err != nil {
			return err
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return err
	}
	return enc.WriteToken(jsontext.EndObject)
}

// copyMembers writes the members of the JSON object b with enc, as b
// writes them.
func copyMembers(enc *jsontext.Encoder, b []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := enc.WriteValue(v); err != nil {
			return err
		}
	}
	return nil
}
