package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Under every answer of the reference server to a create of a code that
// exists (a 400 problem of each shape, a 409 with and without problem
// details), the error is ErrDuplicate and not ErrValidation, the
// *APIError stays available, and the element is left as it was. A
// malformed field, refused by the SDK or by the platform, stays
// ErrValidation and never ErrDuplicate.
func TestDuplicateUnderEveryReading(t *testing.T) {
	for _, answer := range wbstest.DuplicateAnswers() {
		t.Run(answer.String(), func(t *testing.T) {
			srv := wbstest.NewServer(wbstest.WithDuplicateAnswer(answer))
			defer srv.Close()
			c := newClient(t, srv)
			ctx := context.Background()
			if _, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "P-100.01", Description: sdk.Ptr("first")}); err != nil {
				t.Fatal(err)
			}
			_, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "P-100.01", Description: sdk.Ptr("second")})
			var apiErr *sdk.APIError
			if !errors.Is(err, sdk.ErrDuplicate) || errors.Is(err, sdk.ErrValidation) {
				t.Fatalf("err = %v: ErrDuplicate %v, ErrValidation %v; want only ErrDuplicate",
					err, errors.Is(err, sdk.ErrDuplicate), errors.Is(err, sdk.ErrValidation))
			}
			if !errors.As(err, &apiErr) || (apiErr.StatusCode != http.StatusBadRequest && apiErr.StatusCode != http.StatusConflict) ||
				apiErr.Method != http.MethodPost || apiErr.CorrelationID == "" {
				t.Fatalf("err = %#v, want the *APIError with its status, method and correlation id", err)
			}
			if errors.Is(err, sdk.ErrOutcomeUnknown) || errors.Is(err, sdk.ErrNotFound) {
				t.Fatalf("err = %v matches another outcome", err)
			}
			if el, _ := srv.Element("P-100.01"); el.Description == nil || *el.Description != "first" || srv.Stats().Requests[wbstest.OpCreate] != 2 {
				t.Fatalf("element %+v after %d creates, want it unchanged and the create sent once", el, srv.Stats().Requests[wbstest.OpCreate])
			}

			// The same create through Do, as wbsctl api sends it.
			_, err = c.Do(ctx, &sdk.RawRequest{Method: "POST", Path: "/v1/wbs-elements", Body: []byte(`{"wbsElementCode":"P-100.01"}`)})
			if !errors.Is(err, sdk.ErrDuplicate) || errors.Is(err, sdk.ErrValidation) {
				t.Fatalf("raw create: err = %v, want ErrDuplicate alone", err)
			}

			// Malformed fields: found by the SDK, then by the platform.
			_, err = c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: strings.Repeat("x", 31)})
			var ve *sdk.ValidationError
			if !errors.Is(err, sdk.ErrValidation) || errors.Is(err, sdk.ErrDuplicate) || !errors.As(err, &ve) {
				t.Fatalf("local validation: err = %v", err)
			}
			for _, body := range []string{
				`{"wbsElementCode":"` + strings.Repeat("x", 31) + `"}`,
				`{"wbsElementCode":"P-100.01","wbsElementCode":"P-100.02"}`,
				`{"wbsElementCode":"P-100.01","businessOrganizations":[{"code":""}]}`,
				`{"wbsElementCode":"P-100.01","unknown":1}`,
			} {
				_, err = c.Do(ctx, &sdk.RawRequest{Method: "POST", Path: "/v1/wbs-elements", Body: []byte(body)})
				if !errors.Is(err, sdk.ErrValidation) || errors.Is(err, sdk.ErrDuplicate) || !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
					t.Errorf("platform validation of %s: err = %v, want ErrValidation alone", body, err)
				}
			}
		})
	}
}

// The raw answers a platform may give a create, each read as a duplicate
// or not: 409 whatever its body, a 400 (or 422) whose problem details say
// the element exists in any of the places ErrDuplicate names, and the
// 400s that do not (a malformed field, a member or an organization given
// twice, a body that is no problem details).
func TestDuplicateReadingsOfRawAnswers(t *testing.T) {
	const problem = "application/problem+json"
	for _, tt := range []struct {
		name        string
		status      int
		contentType string
		body        string
		duplicate   bool
	}{
		// 409, whatever its body.
		{"409 bare", 409, "", "", true},
		{"409 problem", 409, problem, `{"type":"https://example.com/problems/duplicate","title":"Conflict","status":409,"detail":"exists"}`, true},
		{"409 RFC 9110 problem", 409, problem, `{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.10","title":"Conflict","status":409,"traceId":"00-1"}`, true},
		{"409 text", 409, "text/plain", "Conflict", true},
		{"409 HTML", 409, "text/html", "<html><body>409 Conflict</body></html>", true},
		{"409 message", 409, "application/json", `{"message":"Element already exists"}`, true},

		// 400 with problem details that say the element exists.
		{"400 problem naming the code", 400, problem, `{"type":"https://wbstest.invalid/problems/duplicate","title":"Bad Request","status":400,` +
			`"detail":"wbsElementCode: an element with code \"P-100.01\" exists","errors":[{"field":"wbsElementCode","message":"already exists"}]}`, true},
		{"400 errors entry only", 400, problem, `{"type":"https://example.com/problems/validation","title":"Bad Request","status":400,` +
			`"errors":[{"field":"wbsElementCode","message":"is already in use"}]}`, true},
		{"400 ASP.NET errors object", 400, problem, `{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"One or more validation errors occurred.",` +
			`"status":400,"errors":{"WbsElementCode":["The WBS element code \"P-100.01\" already exists."]},"traceId":"00-2"}`, true},
		{"400 errors pointer", 400, problem, `{"title":"Bad Request","status":400,"errors":[{"pointer":"/wbsElementCode","detail":"must be unique"}]}`, true},
		{"400 errors messages", 400, problem, `{"title":"Bad Request","status":400,"errors":["WBS element already exists"]}`, true},
		{"400 detail only", 400, problem, `{"type":"about:blank","title":"Bad Request","status":400,"detail":"WBS element \"P-100.01\" already exists."}`, true},
		{"400 detail, no type", 400, "application/json", `{"status":400,"detail":"An element with this code exists."}`, true},
		{"400 type duplicate", 400, problem, `{"type":"https://example.com/problems/duplicate","title":"Bad Request","status":400}`, true},
		{"400 type already-exists", 400, problem, `{"type":"https://example.com/errors/already-exists/","status":400}`, true},
		{"400 type camel case", 400, problem, `{"type":"urn:problem-type:wbs:ElementAlreadyExists","status":400}`, true},
		{"400 type fragment", 400, problem, `{"type":"https://example.com/problems#duplicate-wbs-element","status":400}`, true},
		{"400 type conflict", 400, problem, `{"type":"https://example.com/problems/conflict","title":"Bad Request"}`, true},
		{"400 type RFC 9110 section on 409", 400, problem, `{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.10","title":"Bad Request","status":400}`, true},
		{"400 code member", 400, problem, `{"type":"about:blank","title":"Bad Request","status":400,"detail":"The request could not be processed.","code":"WBS_ELEMENT_ALREADY_EXISTS"}`, true},
		{"400 errorCode member", 400, problem, `{"title":"Bad Request","status":400,"errorCode":"DUPLICATE_WBS_ELEMENT"}`, true},
		{"400 reason member", 400, problem, `{"title":"Bad Request","status":400,"reason":"AlreadyExists"}`, true},
		{"400 title", 400, problem, `{"title":"Duplicate WBS element","status":400}`, true},
		{"400 message member", 400, problem, `{"title":"Bad Request","status":400,"message":"wbs element already registered"}`, true},
		{"400 status member 409", 400, problem, `{"title":"Conflict","status":409}`, true},
		{"400 database text", 400, problem, `{"title":"Bad Request","status":400,"detail":"duplicate key value violates unique constraint \"wbs_elements_pkey\""}`, true},
		{"400 must be unique", 400, problem, `{"title":"Bad Request","status":400,"detail":"wbsElementCode must be unique"}`, true},
		{"400 Portuguese", 400, problem, `{"title":"Requisição inválida","status":400,"detail":"Já existe um elemento PEP com o código P-100.01"}`, true},
		{"400 Spanish", 400, problem, `{"title":"Solicitud incorrecta","status":400,"detail":"El elemento P-100.01 ya existe"}`, true},
		{"422 problem", 422, problem, `{"title":"Unprocessable Entity","status":422,"detail":"Element P-100.01 already exists"}`, true},

		// 400s that are not a duplicate.
		{"400 problem of a malformed field", 400, problem, `{"type":"https://wbstest.invalid/problems/validation","title":"Bad Request","status":400,` +
			`"detail":"wbsElementCode: is 31 characters long","errors":[{"field":"wbsElementCode","message":"is 31 characters long"}]}`, false},
		{"400 member given twice", 400, problem, `{"type":"https://wbstest.invalid/problems/malformed","title":"Bad Request","status":400,` +
			`"detail":"wbsElementCode: given more than once","errors":[{"field":"wbsElementCode","message":"given more than once"}]}`, false},
		{"400 .NET duplicate property", 400, problem, `{"title":"One or more validation errors occurred.","status":400,` +
			`"errors":{"$":["The JSON object contains a duplicate property name 'wbsElementCode'."]}}`, false},
		{"400 Newtonsoft property exists", 400, problem, `{"title":"Bad Request","status":400,` +
			`"detail":"Can not add property wbsElementCode to Newtonsoft.Json.Linq.JObject. Property with the same name already exists on object."}`, false},
		{"400 duplicate field", 400, problem, `{"title":"Bad Request","status":400,"detail":"Duplicate field 'wbsElementCode'"}`, false},
		{"400 type duplicate-member", 400, problem, `{"type":"https://example.com/problems/duplicate-member","status":400}`, false},
		{"400 organization listed twice", 400, problem, `{"title":"Bad Request","status":400,"detail":"businessOrganizations[1]: duplicate of businessOrganizations[0]",` +
			`"errors":[{"field":"businessOrganizations[1]","message":"duplicate"}]}`, false},
		{"400 duplicate type, errors of another field", 400, problem, `{"type":"https://example.com/problems/duplicate","status":400,` +
			`"errors":[{"field":"businessOrganizations[0].code","message":"is listed twice"}]}`, false},
		{"400 unknown organization", 400, problem, `{"title":"Bad Request","status":400,"detail":"Business organization 1000 does not exist"}`, false},
		{"400 does not exist", 400, problem, `{"title":"Bad Request","status":400,"detail":"The referenced cost center does not exist"}`, false},
		{"400 code that reads like one", 400, problem, `{"title":"Bad Request","status":400,` +
			`"detail":"wbsElementCode \"DUPLICATE-CONFLICT-ALREADY-EXISTS\" is too long","errors":[{"field":"wbsElementCode","message":"'EXISTS-1' has a bad character"}]}`, false},
		{"400 generic problem", 400, problem, `{"type":"about:blank","title":"Bad Request","status":400}`, false},
		{"400 unique words elsewhere", 400, problem, `{"title":"Bad Request","status":400,"detail":"description: is 101 characters long"}`, false},
		{"400 non-JSON", 400, "text/html", "<html><body>400 Bad Request: element already exists</body></html>", false},
		{"400 text", 400, "text/plain", "already exists", false},
		{"400 message without problem details", 400, "application/json", `{"message":"already exists"}`, false},
		{"400 empty", 400, "", "", false},
		{"400 JSON cut short", 400, problem, `{"title":"Bad Request","detail":"already exists`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, n := answeringServer(t, "", tt.status, tt.contentType, tt.body)
			_, err := c.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-100.01"})
			var apiErr *sdk.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("err = %v, want an *APIError of status %d", err, tt.status)
			}
			if got := errors.Is(err, sdk.ErrDuplicate); got != tt.duplicate {
				t.Errorf("errors.Is(%v, ErrDuplicate) = %v, want %v", err, got, tt.duplicate)
			}
			wantValidation := !tt.duplicate && tt.status != http.StatusConflict
			if got := errors.Is(err, sdk.ErrValidation); got != wantValidation {
				t.Errorf("errors.Is(%v, ErrValidation) = %v, want %v", err, got, wantValidation)
			}
			if n.Load() != 1 {
				t.Errorf("%d requests, want the create sent once", n.Load())
			}
		})
	}
}

// A 409 or a duplicate's 400 is ErrDuplicate only for a create: an update,
// a delete, a removal of links, a flow execution and a token exchange
// answered so are not. A base URL with a path still has creates.
func TestDuplicateOnlyOfACreate(t *testing.T) {
	const dup400 = `{"type":"https://example.com/problems/duplicate","title":"Bad Request","status":400,"detail":"already exists"}`
	ctx := context.Background()
	for _, status := range []int{409, 400} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c, _ := answeringServer(t, "", status, "application/problem+json", dup400)
			for name, call := range map[string]func() error{
				"update": func() error {
					_, err := c.WBSElements.Update(ctx, "P-1", &sdk.UpdateWBSElementRequest{IsActive: sdk.Set(true)})
					return err
				},
				"delete": func() error { _, err := c.WBSElements.Delete(ctx, "P-1"); return err },
				"delete links": func() error {
					_, err := c.WBSElements.DeleteBusinessOrganizations(ctx, "P-1", &sdk.DeleteBusinessOrganizationsRequest{
						BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}}})
					return err
				},
				"raw PUT": func() error {
					_, err := c.Do(ctx, &sdk.RawRequest{Method: "PUT", Path: "/v1/wbs-elements/P-1", Body: []byte(`{}`)})
					return err
				},
				"raw POST elsewhere": func() error {
					_, err := c.Do(ctx, &sdk.RawRequest{Method: "POST", Path: "/integration-hub-api/v1/flows/1/execute", Body: []byte(`{}`)})
					return err
				},
			} {
				err := call()
				var apiErr *sdk.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
					t.Fatalf("%s: err = %v, want an *APIError of status %d", name, err, status)
				}
				if errors.Is(err, sdk.ErrDuplicate) {
					t.Errorf("%s: %v matches ErrDuplicate", name, err)
				}
				if got := errors.Is(err, sdk.ErrValidation); got != (status == 400) {
					t.Errorf("%s: errors.Is(%v, ErrValidation) = %v", name, err, got)
				}
			}
		})
	}
	t.Run("token exchange", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"title":"Conflict","status":409,"detail":"already exists"}`)
		}))
		defer srv.Close()
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials("integrationhub-1", "secret"),
			sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1, BaseDelay: 1, MaxDelay: 2}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "P-1"})
		if err == nil || errors.Is(err, sdk.ErrDuplicate) {
			t.Fatalf("err = %v: a refused token exchange is no duplicate", err)
		}
	})
	t.Run("base URL with a path", func(t *testing.T) {
		c, _ := answeringServer(t, "/api", 409, "", "")
		_, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "P-1"})
		var apiErr *sdk.APIError
		if !errors.Is(err, sdk.ErrDuplicate) || !errors.As(err, &apiErr) || apiErr.Path != "/api/v1/wbs-elements" {
			t.Fatalf("err = %v (%+v), want ErrDuplicate for POST /api/v1/wbs-elements", err, apiErr)
		}
	})
}

// answeringServer answers every request below prefix with status,
// contentType and body, and counts them; its client sends a fixed token
// and retries nothing that is not safe.
func answeringServer(t *testing.T, prefix string, status int, contentType, body string) (*sdk.Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if !strings.HasPrefix(r.URL.Path, prefix+"/") {
			http.NotFound(w, r)
			return
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := sdk.NewClient(srv.URL+prefix, sdk.WithAccessToken("t0k3n"),
		sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1, BaseDelay: 1, MaxDelay: 2}))
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}
