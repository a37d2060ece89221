package wbstest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
		var member *memberError
		if errors.As(err, &member) {
			field, detail = member.Field, member.Error()
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

// memberError is a member decodeStrict refuses: unknown, given twice,
// or of the wrong type.
type memberError struct{ Field, Message string }

func (e *memberError) Error() string { return e.Field + ": " + e.Message }

// decodeStrict decodes one JSON value into v with the JSON reader of
// encoding/json/v2 (github.com/go-json-experiment/json), whose defaults
// refuse a member given twice and match member names in their exact
// case; unknown members and data after the value are refused too. The
// spec's request objects accept only the members it lists, so none of
// these is one of them. A json.RawMessage member, which the handlers
// decode later, accepts any names, still once each. Field names in
// errors start with prefix.
func decodeStrict(raw []byte, v any, prefix string) error {
	err := jsonv2.Unmarshal(raw, v, jsonv2.RejectUnknownMembers(true))
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		return &memberError{fieldPath(prefix, syn.JSONPointer), "given more than once"}
	case errors.As(err, &syn) && strings.Contains(syn.Err.Error(), "after top-level value"):
		return errors.New("data after the JSON value")
	case errors.As(err, &syn):
		return syn.Err
	case errors.As(err, &sem) && errors.Is(sem.Err, jsonv2.ErrUnknownName):
		return &memberError{fieldPath(prefix, sem.JSONPointer), unknownMember}
	case errors.As(err, &sem) && sem.GoType != nil && sem.JSONKind != 0:
		return &memberError{fieldPath(prefix, sem.JSONPointer), fmt.Sprintf("must be %s, not %s", goKind(sem.GoType), jsonKind(sem.JSONKind))}
	}
	return err
}

// fieldPath names the member at p, as businessOrganizations[0].code,
// below prefix.
func fieldPath(prefix string, p jsontext.Pointer) string {
	out := prefix
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil {
			out += "[" + tok + "]"
			continue
		}
		if out != "" {
			out += "."
		}
		out += tok
	}
	return out
}

// goKind names the JSON value a Go type takes.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a number"
}

// jsonKind names the kind of a JSON value.
func jsonKind(k jsontext.Kind) string {
	switch k {
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}
