package wbstest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestListReadings checks the wire form of each reading of next, hits, an
// empty list and a page past the end, on 25 elements at page size 10.
func TestListReadings(t *testing.T) {
	page := func(t *testing.T, srv *Server, tok, query string) (int, map[string]any) {
		t.Helper()
		code, m, _ := call(t, srv, "GET", "/v1/wbs-elements?"+query, tok, "")
		return code, m
	}
	t.Run("next", func(t *testing.T) {
		for _, tt := range []struct {
			style       NextStyle
			first, last any // next on page 1 and on page 3, the last
			absent      bool
		}{
			{NextURL, "URL/v1/wbs-elements?pageNumber=2&pageSize=10", nil, false},
			{NextRelativeURL, "/v1/wbs-elements?pageNumber=2&pageSize=10", nil, false},
			{NextPageNumber, "2", nil, false},
			{NextOffset, "10", nil, false},
			{NextCursor, base64.RawURLEncoding.EncodeToString([]byte("after:10")), nil, false},
			{NextNull, nil, nil, false},
			{NextAbsent, nil, nil, true},
		} {
			t.Run(tt.style.String(), func(t *testing.T) {
				srv := Start(t, WithNextStyle(tt.style))
				tok := token(t, srv)
				for i := range 25 {
					srv.Put(Element{Code: fmt.Sprintf("E%02d", i)})
				}
				_, m := page(t, srv, tok, "pageSize=10")
				want := tt.first
				if s, ok := want.(string); ok {
					want = strings.Replace(s, "URL", srv.URL, 1)
				}
				if _, ok := m["next"]; ok == tt.absent || m["next"] != want {
					t.Errorf("page 1: next = %#v (present %v), want %#v", m["next"], ok, want)
				}
				_, m = page(t, srv, tok, "pageSize=10&pageNumber=3")
				if _, ok := m["next"]; ok == tt.absent || m["next"] != tt.last {
					t.Errorf("page 3: next = %#v (present %v), want %#v", m["next"], ok, tt.last)
				}
			})
		}
	})
	t.Run("hits", func(t *testing.T) {
		for _, tt := range []struct {
			meaning HitsMeaning
			want    any // hits on page 3 of 25 at size 10
		}{{HitsTotal, float64(25)}, {HitsPageCount, float64(5)}, {HitsNull, nil}} {
			srv := NewServer(WithHitsMeaning(tt.meaning))
			tok := token(t, srv)
			for i := range 25 {
				srv.Put(Element{Code: fmt.Sprintf("E%02d", i)})
			}
			if _, m := page(t, srv, tok, "pageSize=10&pageNumber=3"); m["hits"] != tt.want {
				t.Errorf("%s: hits = %#v, want %#v", tt.meaning, m["hits"], tt.want)
			}
			srv.Close()
		}
	})
	t.Run("empty list", func(t *testing.T) {
		for _, status := range []int{http.StatusOK, http.StatusNotFound} {
			srv := NewServer(WithEmptyListStatus(status))
			tok := token(t, srv)
			srv.Put(Element{Code: "NOLINKS"})
			if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements/NOLINKS/business-organizations", tok, ""); code != status {
				t.Errorf("links of an element without any: %d, want %d", code, status)
			}
			if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements/MISSING/business-organizations", tok, ""); code != http.StatusNotFound {
				t.Errorf("links of a missing element: %d, want 404", code)
			}
			call(t, srv, "DELETE", "/v1/wbs-elements/NOLINKS", tok, "")
			if code, m := page(t, srv, tok, ""); code != status || (status == http.StatusOK && len(m["data"].([]any)) != 0) {
				t.Errorf("empty element list: %d %v, want %d", code, m, status)
			}
			srv.Close()
		}
	})
	t.Run("past the end", func(t *testing.T) {
		for _, tt := range []struct {
			pastEnd PastEnd
			status  int
			items   int
		}{{PastEndEmpty, 200, 0}, {PastEndNotFound, 404, 0}, {PastEndLastPage, 200, 10}} {
			srv := NewServer(WithPastEnd(tt.pastEnd))
			tok := token(t, srv)
			for i := range 20 {
				srv.Put(Element{Code: fmt.Sprintf("E%02d", i)})
			}
			code, m := page(t, srv, tok, "pageSize=10&pageNumber=3")
			if code != tt.status {
				t.Errorf("%s: status %d, want %d", tt.pastEnd, code, tt.status)
			} else if code == 200 {
				data := m["data"].([]any)
				if len(data) != tt.items || (len(data) > 0 && data[0].(map[string]any)["wbsElementCode"] != "E10") {
					t.Errorf("%s: data %v", tt.pastEnd, data)
				}
			}
			srv.Close()
		}
	})
	t.Run("page size capped", func(t *testing.T) {
		srv := Start(t, WithMaxPageSize(7))
		tok := token(t, srv)
		for i := range 20 {
			srv.Put(Element{Code: fmt.Sprintf("E%02d", i)})
		}
		_, m := page(t, srv, tok, "pageSize=10&pageNumber=2")
		data := m["data"].([]any)
		if len(data) != 7 || data[0].(map[string]any)["wbsElementCode"] != "E07" || m["hits"] != float64(20) {
			t.Errorf("page 2 at a cap of 7: %v", m)
		}
	})
}

// TestDuplicateAnswers checks the wire form of each answer to a create of
// a code that exists, and that the element is left as it was.
func TestDuplicateAnswers(t *testing.T) {
	for _, tt := range []struct {
		answer DuplicateAnswer
		status int
		// want are members of the body, nil for no body.
		want map[string]any
	}{
		{DuplicateProblem, 400, map[string]any{"type": problemTypeBase + "duplicate", "status": float64(400),
			"errors": []any{map[string]any{"field": "wbsElementCode", "message": "already exists"}}}},
		{DuplicateFieldErrors, 400, map[string]any{"type": problemTypeBase + "validation", "title": "One or more validation errors occurred.",
			"errors": map[string]any{"wbsElementCode": []any{`an element with code "D-1" already exists`}}}},
		{DuplicateDetail, 400, map[string]any{"type": "about:blank", "detail": `WBS element "D-1" already exists.`}},
		{DuplicateCode, 400, map[string]any{"type": "about:blank", "code": "WBS_ELEMENT_ALREADY_EXISTS", "detail": "The request could not be processed."}},
		{DuplicateConflict, 409, map[string]any{"type": problemTypeBase + "duplicate", "title": "Conflict", "status": float64(409)}},
		{DuplicateConflictBare, 409, nil},
	} {
		t.Run(tt.answer.String(), func(t *testing.T) {
			srv := Start(t, WithDuplicateAnswer(tt.answer))
			tok := token(t, srv)
			d := "first"
			srv.Put(Element{Code: "D-1", Description: &d, IsActive: true})
			code, m, h := call(t, srv, "POST", "/v1/wbs-elements", tok, `{"wbsElementCode":"D-1","description":"second"}`)
			if code != tt.status || h.Get("X-Correlation-Id") == "" {
				t.Fatalf("status %d, want %d; headers %v", code, tt.status, h)
			}
			if tt.want == nil {
				if m != nil {
					t.Fatalf("body %v, want none", m)
				}
			} else {
				if ct := h.Get("Content-Type"); ct != "application/problem+json" || m["correlationId"] != h.Get("X-Correlation-Id") {
					t.Errorf("Content-Type %q, body %v", ct, m)
				}
				for k, v := range tt.want {
					if fmt.Sprint(m[k]) != fmt.Sprint(v) {
						t.Errorf("%s = %#v, want %#v", k, m[k], v)
					}
				}
			}
			if el, _ := srv.Element("D-1"); el.Description == nil || *el.Description != "first" || srv.Stats().Creates != 0 {
				t.Errorf("the element changed: %+v, %d creates", el, srv.Stats().Creates)
			}
		})
	}
	if got := DuplicateAnswers(); len(got) != len(duplicateAnswerNames) || got[len(got)-1] != DuplicateConflictBare {
		t.Errorf("DuplicateAnswers() = %v", got)
	}
}
