// Package jsondoc writes a JSON document whose one long list is written
// an item at a time: a plan of 200,000 changes is never held whole, nor
// its text.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// Write writes head to w with items as its top-level member name, in the
// bytes a json.Encoder writes for the whole document: indented by indent,
// or on one line where indent is "". Head is encoded with the member an
// empty list, and written a member at a time with items, a token at a
// time, in the member's place; nil items leave the member out, as the
// rest of a document that was written item by item. Strings keep
// encoding/json's escapes. A head that is no object with the member is an
// error before anything is written.
func Write[T any](w io.Writer, indent string, head any, name string, items iter.Seq[T]) error {
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	members, err := membersOf(b, head)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(members, func(m member) bool { return m.name == name }) {
		return fmt.Errorf("%T has no member %s", head, name)
	}
	opts := []jsontext.Options{jsontext.PreserveRawStrings(true)}
	if indent != "" {
		opts = append(opts, jsontext.WithIndent(indent))
	}
	enc := jsontext.NewEncoder(w, opts...)
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, m := range members {
		switch {
		case m.name != name:
			err = writeMember(enc, m.raw, m.value)
		case items != nil:
			err = writeList(enc, m.raw, items)
		}
		if err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// member is a member of an object as encoded: its name as written,
// escapes kept, and as text, and its value.
type member struct {
	raw   jsontext.Value
	name  string
	value jsontext.Value
}

// membersOf reads the members of the object b, head's encoding.
func membersOf(b []byte, head any) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("%T is not a JSON object", head)
	}
	var members []member
	for dec.PeekKind() != '}' {
		var m member
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		// A value read lasts until the next read.
		m.raw = bytes.Clone(raw)
		if err := json.Unmarshal(m.raw, &m.name); err != nil {
			return nil, err
		}
		value, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		m.value = bytes.Clone(value)
		members = append(members, m)
	}
	return members, nil
}

func writeMember(enc *jsontext.Encoder, name, value jsontext.Value) error {
	if err := enc.WriteValue(name); err != nil {
		return err
	}
	return enc.WriteValue(value)
}

func writeList[T any](enc *jsontext.Encoder, name jsontext.Value, items iter.Seq[T]) error {
	if err := enc.WriteValue(name); err != nil {
		return err
	}
	if err := enc.WriteToken(jsontext.BeginArray); err != nil {
		return err
	}
	for item := range items {
		b, err := json.Marshal(item)
		if err != nil {
			return err
		}
		if err := enc.WriteValue(b); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndArray)
}
