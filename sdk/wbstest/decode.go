package wbstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decode reads a JSON body strictly: bounded size, valid UTF-8, no
// unknown members, no member given twice, member names in the spec's
// case, the right types, nothing after the value.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, corr string, v any) bool {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooLarge *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooLarge):
		problem(w, r, corr, http.StatusRequestEntityTooLarge, "too-large", "Content Too Large",
			fmt.Sprintf("the body is larger than %d bytes", s.maxBody), nil)
		return false
	case errors.As(err, &netErr) && netErr.Timeout():
		problem(w, r, corr, http.StatusRequestTimeout, "timeout", "Request Timeout", "the body was not sent in time", nil)
		return false
	case err != nil:
		problem(w, r, corr, http.StatusBadRequest, "malformed", "Bad Request", "the body could not be read", nil)
		return false
	}
	if !utf8.Valid(raw) {
		problem(w, r, corr, http.StatusBadRequest, "malformed", "Bad Request", "the body is not valid UTF-8", nil)
		return false
	}
	if err := decodeStrict(raw, v, ""); err != nil {
		detail, field := "the body is not valid JSON: "+err.Error(), ""
		var typ *json.UnmarshalTypeError
		var member *memberError
		switch {
		case errors.As(err, &member):
			field, detail = member.Field, member.Error()
		case errors.As(err, &typ):
			field = typ.Field
			detail = fmt.Sprintf("%s: must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			field = strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			detail = field + ": " + unknownMember
		}
		var errs []fieldError
		if field != "" {
			errs = []fieldError{{field, detail}}
		}
		problem(w, r, corr, http.StatusBadRequest, "malformed", "Bad Request", detail, errs)
		return false
	}
	return true
}

const unknownMember = "unknown member (additional properties are not allowed)"

// memberError is a member name decodeStrict refuses.
type memberError struct{ Field, Message string }

func (e *memberError) Error() string { return e.Field + ": " + e.Message }

// decodeStrict decodes one JSON value into v, refusing unknown members
// and data after the value; then it refuses what encoding/json lets
// through: a member given twice (it keeps the last) and a member name
// that matches a field only when case is ignored (it folds case). The
// spec's request objects accept only the members it lists, so neither
// is one of them. Field names in errors start with prefix.
func decodeStrict(raw []byte, v any, prefix string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	// Decode first: it bounds the nesting depth that checkMembers walks.
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return checkMembers(json.NewDecoder(bytes.NewReader(raw)), reflect.TypeOf(v), prefix)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// checkMembers walks the next JSON value of dec. Within a value of type t
// a member must be a field's exact name; a nil t (or a json.RawMessage,
// which the handlers decode later) accepts any names, still once each.
func checkMembers(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		t = nil
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := checkMembers(dec, elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		fields := jsonFields(t)
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := tok.(string)
			field := name
			if path != "" {
				field = path + "." + name
			}
			if seen[name] {
				return &memberError{field, "given more than once"}
			}
			seen[name] = true
			ft, known := fields[name]
			if fields != nil && !known {
				return &memberError{field, unknownMember}
			}
			if err := checkMembers(dec, ft, field); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// jsonFields maps the JSON names of a struct's fields to their types; nil
// when t is not a struct.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if name != "-" && f.IsExported() {
			out[name] = f.Type
		}
	}
	return out
}

func jsonKind(k string) string {
	switch k {
	case "string", "bool":
		return "a " + strings.Replace(k, "bool", "boolean", 1)
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}
