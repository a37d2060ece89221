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

	"github.com/go-json-experiment/json/jsontext"
)

// Write writes head to w with items as its top-level member name, in the
// bytes a json.Encoder writes for the whole document: indented by indent,
// or on one line where indent is "". Head is encoded with the member an
// empty list, which items take the place of, a token at a time; nil items
// leave the member out, as the rest of a document that was written item by
// item. Strings keep encoding/json's escapes.
func Write[T any](w io.Writer, indent string, head any, name string, items iter.Seq[T]) error {
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	opts := []jsontext.Options{jsontext.PreserveRawStrings(true)}
	if indent != "" {
		opts = append(opts, jsontext.WithIndent(indent))
	}
	enc := jsontext.NewEncoder(w, opts...)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return fmt.Errorf("%T is not a JSON object", head)
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	found := false
	for dec.PeekKind() != '}' {
		// The name is copied as written, escapes kept: a value read
		// lasts until the next read.
		member, err := dec.ReadValue()
		if err != nil {
			return err
		}
		member = bytes.Clone(member)
		var memberName string
		if err := json.Unmarshal(member, &memberName); err != nil {
			return err
		}
		value, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if memberName != name {
			if err := writeMember(enc, member, value); err != nil {
				return err
			}
			continue
		}
		if found = true; items == nil {
			continue
		}
		if err := writeList(enc, member, items); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("%T has no member %s", head, name)
	}
	return enc.WriteToken(jsontext.EndObject)
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
