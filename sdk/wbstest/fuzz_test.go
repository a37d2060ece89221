package wbstest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Whatever a client sends, the server answers 200, 400, 404 or 413, and
// every error is a problem document whose status is the HTTP status.
func FuzzRequestDecoding(f *testing.F) {
	for _, s := range []string{
		`{"wbsElementCode":"A","description":"d","isActive":true,"businessOrganizations":[{"code":"1","entityType":"c"}]}`,
		`{"description":null,"isActive":null,"businessOrganizations":null}`,
		`{"businessOrganizations":[]}`, `{"x":1}`, `[`, "\xff", `{"wbsElementCode":"A"} 1`,
		`{"wbsElementCode":"A","wbsElementCode":"B"}`, `{"WBSELEMENTCODE":"A"}`,
		`{"businessOrganizations":[{"code":"1","entityType":"c","Code":"2"}]}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	srv := New()
	srv.Put(Element{Code: "A", IsActive: true})
	tok, _ := srv.IssueToken(srv.ClientID)
	routes := []struct{ method, path string }{
		{"POST", "/v1/wbs-elements"},
		{"PUT", "/v1/wbs-elements/A"},
		{"POST", "/v1/wbs-elements/A/business-organizations/delete"},
		{"POST", "/v1/auth/tokens"},
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		route := routes[int(which)%len(routes)]
		req := httptest.NewRequest(route.method, route.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			return
		case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnauthorized:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		var p struct{ Status int }
		if rec.Header().Get("Content-Type") != "application/problem+json" || json.Unmarshal(rec.Body.Bytes(), &p) != nil || p.Status != rec.Code {
			t.Fatalf("not a problem document: %d %s", rec.Code, rec.Body.String())
		}
	})
}
