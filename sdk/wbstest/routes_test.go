package wbstest

import (
	"net/http"
	"strings"
	"testing"
)

// The pattern table routes each operation, keeps an escaped slash inside
// a code, and answers anything else with a 404 in problem details (not
// the mux's 405 or redirect).
func TestRoutes(t *testing.T) {
	srv := Start(t)
	tok := token(t, srv)
	srv.Put(Element{Code: "A/B", IsActive: true}, Element{Code: "/", IsActive: true})
	for _, tc := range []struct {
		method, path string
		status       int
		op           Operation
		code         string
	}{
		{"GET", "/v1/wbs-elements", 200, OpList, ""},
		{"PUT", "/v1/wbs-elements/A%2FB", 200, OpUpdate, "A/B"},
		{"GET", "/v1/wbs-elements/A%2FB/business-organizations", 200, OpListLinks, "A/B"},
		{"DELETE", "/v1/wbs-elements/A%2FB", 200, OpDelete, "A/B"},
		{"GET", "/v1/wbs-elements/%2F/business-organizations", 200, OpListLinks, "/"},
		{"DELETE", "/v1/wbs-elements/%2f", 200, OpDelete, "/"},
		{"GET", "/v1/wbs-elements/%2F", 404, "", ""},
		{"PATCH", "/v1/wbs-elements", 404, "", ""},
		{"HEAD", "/v1/wbs-elements", 404, "", ""},
		{"GET", "/v1/wbs-elements/A/B", 404, "", ""},
		{"PUT", "/v1/wbs-elements/x/../y", 404, "", ""},
		{"GET", "//v1/wbs-elements", 404, "", ""},
		{"POST", "/integration-hub-api/v1/flows/12%2F34/execute", 404, "", ""},
		{"GET", "/v2/anything", 404, "", ""},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
		if tc.status == 404 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") && tc.method != "HEAD" {
			t.Errorf("%s %s: %s, want problem details", tc.method, tc.path, resp.Header.Get("Content-Type"))
		}
		j := srv.Journal()
		last := j[len(j)-1]
		if last.Operation != tc.op {
			t.Errorf("%s %s: operation %q, want %q", tc.method, tc.path, last.Operation, tc.op)
		}
	}
	for _, code := range []string{"A/B", "/"} {
		if _, ok := srv.Element(code); ok {
			t.Errorf("the element %q was not deleted", code)
		}
	}
}
