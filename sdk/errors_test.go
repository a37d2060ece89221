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
