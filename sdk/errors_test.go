package sdk

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The common shapes of a problem's field errors are read into FieldErrors;
// the member stays in Extensions as it was sent (issue 28, finding 6).
func TestProblemFieldErrors(t *testing.T) {
	code := FieldError{Field: "wbsElementCode", Message: "is required"}
	for _, tt := range []struct {
		name, ext string
		want      []FieldError
	}{
		{"list of field and message", `"errors":[{"field":"wbsElementCode","message":"is required"}]`, []FieldError{code}},
		{"RFC 9457 invalid-params", `"invalid-params":[{"name":"wbsElementCode","reason":"is required"}]`, []FieldError{code}},
		{"pointer and detail", `"errors":[{"pointer":"/wbsElementCode","detail":"is required"}]`, []FieldError{{"/wbsElementCode", "is required"}}},
		{"path as a list", `"errors":[{"loc":["businessOrganizations",0,"code"],"msg":"too short"}]`, []FieldError{{"businessOrganizations.0.code", "too short"}}},
		{"object of lists", `"errors":{"wbsElementCode":["is required","is too long"],"description":"is too long"}`,
			[]FieldError{{"description", "is too long"}, code, {"wbsElementCode", "is too long"}}},
		{"object of objects", `"errors":{"wbsElementCode":{"message":"is required"}}`, []FieldError{code}},
		{"list of messages", `"errors":["wbsElementCode is required"]`, []FieldError{{"", "wbsElementCode is required"}}},
		{"unknown shape", `"errors":42`, nil},
		{"none", `"other":1`, nil},
	} {
		body := `{"title":"Bad Request","status":400,"detail":"invalid request",` + tt.ext + `}`
		e := newAPIError("POST", "/v1/wbs-elements", 400, http.Header{}, []byte(body), func(s string) string { return s })
		if e.Problem == nil || !reflect.DeepEqual(e.Problem.FieldErrors, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, e.Problem, tt.want)
			continue
		}
		if len(e.Problem.Extensions) == 0 {
			t.Errorf("%s: the extensions were dropped", tt.name)
		}
	}
}

// Error names the status once, and lists the field errors the detail does
// not already say (issue 28, finding 6).
func TestAPIErrorMessage(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		want   string
	}{
		{404, `{"title":"Not Found","status":404,"detail":"no WBS element with code \"X\""}`,
			`GET /p: 404 Not Found: no WBS element with code "X"`},
		{404, `{"title":"not found","status":404}`, `GET /p: 404 Not Found`},
		{400, `{"title":"Invalid element","status":400,"detail":"1 field","errors":[{"field":"code","message":"is required"}]}`,
			`GET /p: 400 Bad Request: Invalid element: 1 field: code: is required`},
		{400, `{"title":"Bad Request","status":400,"detail":"code: is required","errors":[{"field":"code","message":"is required"}]}`,
			`GET /p: 400 Bad Request: code: is required`},
		{400, `{"title":"Bad Request","status":400,"detail":"wbsElementCode: an element with code \"P-1\" exists","errors":[{"field":"wbsElementCode","message":"already exists"}]}`,
			`GET /p: 400 Bad Request: wbsElementCode: an element with code "P-1" exists`},
		{400, `{"title":"Bad Request","status":400,"detail":"2 fields","errors":[{"field":"code","message":"too long"},{"field":"description","message":"too long"}]}`,
			`GET /p: 400 Bad Request: 2 fields: code: too long; description: too long`},
	} {
		e := newAPIError("GET", "/p", tt.status, http.Header{}, []byte(tt.body), func(s string) string { return s })
		if got := e.Error(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.body, got, tt.want)
		}
	}
	many := `{"title":"Bad Request","status":400,"errors":[` + strings.Repeat(`{"field":"f","message":"m"},`, 9) + `{"field":"f","message":"m"}]}`
	if got := newAPIError("GET", "/p", 400, http.Header{}, []byte(many), func(s string) string { return s }).Error(); strings.Count(got, "f: m") != maxFieldErrorsInMessage {
		t.Errorf("ten field errors: %s", got)
	}
}

// A problem printed with %v or %+v reads as the platform sent it, its
// extensions as text.
func TestProblemPrintsReadably(t *testing.T) {
	body := `{"title":"Bad Request","status":400,"errors":[{"field":"code","message":"too long"}]}`
	e := newAPIError("GET", "/p", 400, http.Header{}, []byte(body), func(s string) string { return s })
	for _, verb := range []string{"%v", "%+v", "%s"} {
		for _, v := range []any{e.Problem, *e.Problem} {
			if got := fmt.Sprintf(verb, v); !strings.Contains(got, `"errors":[{"field":"code","message":"too long"}]`) || !strings.Contains(got, `"title":"Bad Request"`) {
				t.Errorf("%s of %T: %s", verb, v, got)
			}
		}
	}
}

// The words saysExists reads: camel case, upper snake case and URI
// segments split into words, quoted values left out, and an apostrophe
// within a word kept.
func TestDuplicateWords(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"WBS_ELEMENT_ALREADY_EXISTS", []string{"wbs", "element", "already", "exists"}},
		{"ElementAlreadyExists", []string{"element", "already", "exists"}},
		{"duplicateWBSElement", []string{"duplicate", "wbs", "element"}},
		{"already-exists", []string{"already", "exists"}},
		{"Já existe", []string{"já", "existe"}},
	} {
		if got := splitWords(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	for _, tt := range []struct{ text, want string }{
		{`code "DUPLICATE" is too long`, "code   is too long"},
		{"code 'EXISTS-1' doesn't fit", "code   doesn't fit"},
		{"code `X` and “Y” and «Z»", "code   and   and  "},
		{`an unclosed "quote`, `an unclosed "quote`},
		{"it's the code's", "it's the code's"},
	} {
		if got := stripQuoted(tt.text); got != tt.want {
			t.Errorf("stripQuoted(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	for text, want := range map[string]bool{
		"already exists": true, "Element P-1 exists": true, "does not exist": false, "doesn't exist": false,
		"no longer exists": false, "not unique": true, "a unique code of 1 to 30 characters": false,
		"duplicate property 'x'": false, "Duplicate field 'wbsElementCode'": false, "duplicate entry 'P-1' for key 'PRIMARY'": true,
		"organization already exists": false, `code "EXISTS"`: false, "": false,
	} {
		if got := saysExists(text); got != want {
			t.Errorf("saysExists(%q) = %v, want %v", text, got, want)
		}
	}
}

// A token exchange answered 409 or with a 400 that says "exists" is a
// refused credential, never a duplicate; an APIError made by hand, with
// no method or path, is read as a create.
func TestDuplicateIsOfACreateOnly(t *testing.T) {
	id := func(s string) string { return s }
	body := []byte(`{"title":"Bad Request","status":400,"detail":"already exists"}`)
	for _, status := range []int{400, 409} {
		e := newAPIError("POST", "/v1/auth/tokens", status, http.Header{}, body, id)
		e.tokenExchange = true
		if e.Is(ErrDuplicate) {
			t.Errorf("token exchange %d: matches ErrDuplicate", status)
		}
	}
	if e := (&APIError{StatusCode: 409}); !e.Is(ErrDuplicate) || e.Is(ErrValidation) {
		t.Errorf("a hand-made 409 is not read as a create's")
	}
	if e := (&APIError{StatusCode: 400}); e.Is(ErrDuplicate) || !e.Is(ErrValidation) {
		t.Errorf("a hand-made 400 without problem details is not ErrValidation alone")
	}
	if e := newAPIError("POST", "/v1/wbs-elements", 400, http.Header{}, body, id); !e.Is(ErrDuplicate) || e.Is(ErrValidation) {
		t.Errorf("a create's 400 that says it exists: %v", e)
	}
}
