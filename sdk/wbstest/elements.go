package wbstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// The spec's limits (section 8), in Unicode code points.
const (
	maxCodeLength        = 30
	maxDescriptionLength = 100
)

// orgBody is a business organization in a request; pointers tell a
// missing or null member from an empty one.
type orgBody struct {
	Code       *string `json:"code"`
	EntityType *string `json:"entityType"`
}

type createBody struct {
	WBSElementCode        *string    `json:"wbsElementCode"`
	Description           *string    `json:"description"`
	IsActive              *bool      `json:"isActive"`
	BusinessOrganizations *[]orgBody `json:"businessOrganizations"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, corr string) {
	var body createBody
	if !s.decode(w, r, corr, &body) {
		return
	}
	var v validation
	if body.WBSElementCode == nil {
		v.add("wbsElementCode", "is required")
	} else {
		v.length("wbsElementCode", *body.WBSElementCode, 1, maxCodeLength)
	}
	if body.Description != nil {
		v.length("description", *body.Description, 0, maxDescriptionLength)
	}
	var orgs []BusinessOrganization
	if body.BusinessOrganizations != nil {
		orgs = v.orgs(*body.BusinessOrganizations)
	}
	if v.fail(w, r, corr) {
		return
	}
	el := &Element{Code: *body.WBSElementCode, Description: body.Description, IsActive: true}
	if body.IsActive != nil {
		el.IsActive = *body.IsActive
	}
	el.BusinessOrganizations = merge(nil, orgs)
	s.mu.Lock()
	if _, dup := s.elements[el.Code]; dup {
		answer := s.duplicate
		s.mu.Unlock()
		answerDuplicate(w, r, corr, answer, el.Code)
		return
	}
	s.elements[el.Code] = el
	s.order = append(s.order, el.Code)
	s.stats.Creates++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"correlationId": corr})
}

type updateBody struct {
	Description           json.RawMessage `json:"description"`
	IsActive              json.RawMessage `json:"isActive"`
	BusinessOrganizations json.RawMessage `json:"businessOrganizations"`
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, code, corr string) {
	var body updateBody
	if !s.decode(w, r, corr, &body) {
		return
	}
	var v validation
	var desc *string
	var active *bool
	var orgs *[]orgBody
	clearDesc := isNull(body.Description)
	v.member("description", body.Description, &desc, "a string or null")
	v.member("isActive", body.IsActive, &active, "a boolean or null")
	v.member("businessOrganizations", body.BusinessOrganizations, &orgs, "an array of business organizations or null")
	if desc != nil {
		v.length("description", *desc, 0, maxDescriptionLength)
	}
	var links []BusinessOrganization
	if orgs != nil {
		links = v.orgs(*orgs)
	}
	if v.fail(w, r, corr) {
		return
	}
	el, ok := s.lockElement(w, r, corr, code)
	if !ok {
		return
	}
	switch {
	case desc != nil:
		el.Description = desc
	case clearDesc:
		el.Description = nil
	}
	if active != nil {
		el.IsActive = *active
	}
	if orgs != nil {
		if s.orgMode == OrgReplace {
			el.BusinessOrganizations = merge(nil, links)
		} else {
			el.BusinessOrganizations = merge(el.BusinessOrganizations, links)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"correlationId": corr})
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, code, corr string) {
	if _, ok := s.lockElement(w, r, corr, code); !ok {
		return
	}
	delete(s.elements, code)
	for i, c := range s.order {
		if c == code {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"correlationId": corr})
}

func (s *Server) deleteLinks(w http.ResponseWriter, r *http.Request, code, corr string) {
	var body struct {
		BusinessOrganizations *[]orgBody `json:"businessOrganizations"`
	}
	if !s.decode(w, r, corr, &body) {
		return
	}
	var v validation
	var orgs []BusinessOrganization
	switch {
	case body.BusinessOrganizations == nil:
		v.add("businessOrganizations", "is required")
	case len(*body.BusinessOrganizations) == 0:
		v.add("businessOrganizations", "must hold at least 1 item")
	default:
		orgs = v.orgs(*body.BusinessOrganizations)
	}
	if v.fail(w, r, corr) {
		return
	}
	el, ok := s.lockElement(w, r, corr, code)
	if !ok {
		return
	}
	// Removing a link the element does not have is not an error: the
	// removal converges.
	drop := map[BusinessOrganization]bool{}
	for _, o := range orgs {
		drop[o] = true
	}
	kept := el.BusinessOrganizations[:0:0]
	for _, o := range el.BusinessOrganizations {
		if !drop[o] {
			kept = append(kept, o)
		}
	}
	el.BusinessOrganizations = kept
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"correlationId": corr})
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, corr string) {
	s.mu.Lock()
	writePage(s, w, r, corr, len(s.order), func(i int) map[string]any {
		el := s.elements[s.order[i]]
		return map[string]any{"wbsElementCode": el.Code, "description": el.Description, "isActive": el.IsActive}
	})
}

func (s *Server) listLinks(w http.ResponseWriter, r *http.Request, code, corr string) {
	el, ok := s.lockElement(w, r, corr, code)
	if !ok {
		return
	}
	writePage(s, w, r, corr, len(el.BusinessOrganizations), func(i int) BusinessOrganization { return el.BusinessOrganizations[i] })
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request, flowID string, c claims, corr string) {
	if flowID != c.Flow {
		problem(w, r, corr, http.StatusForbidden, "forbidden", "Forbidden",
			"the token was issued for another integration", nil)
		return
	}
	var body json.RawMessage
	if !s.decode(w, r, corr, &body) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"flowId": flowID, "correlationId": corr, "received": body})
}

// lockElement takes s.mu and returns the element; when there is none it
// answers 404 and releases the lock.
func (s *Server) lockElement(w http.ResponseWriter, r *http.Request, corr, code string) (*Element, bool) {
	s.mu.Lock()
	el, ok := s.elements[code]
	if !ok {
		s.mu.Unlock()
		problem(w, r, corr, http.StatusNotFound, "not-found", "Not Found", fmt.Sprintf("no WBS element with code %q", code), nil)
	}
	return el, ok
}

// validation collects every violated field of a request.
type validation struct{ errs []fieldError }

func (v *validation) add(field, msg string) { v.errs = append(v.errs, fieldError{field, msg}) }

func (v *validation) length(field, s string, min, max int) {
	if !utf8.ValidString(s) {
		v.add(field, "is not valid UTF-8")
		return
	}
	n := utf8.RuneCountInString(s)
	if n < min {
		v.add(field, fmt.Sprintf("must be at least %d characters long, is %d", min, n))
	}
	if n > max {
		v.add(field, fmt.Sprintf("must be at most %d characters long, is %d", max, n))
	}
}

func (v *validation) orgs(in []orgBody) []BusinessOrganization {
	out := make([]BusinessOrganization, 0, len(in))
	for i, o := range in {
		for _, m := range []struct {
			name string
			val  *string
		}{{"code", o.Code}, {"entityType", o.EntityType}} {
			field := fmt.Sprintf("businessOrganizations[%d].%s", i, m.name)
			switch {
			case m.val == nil:
				v.add(field, "is required")
			case *m.val == "":
				v.add(field, "must be at least 1 character long, is 0")
			}
		}
		if o.Code != nil && o.EntityType != nil {
			out = append(out, BusinessOrganization{Code: *o.Code, EntityType: *o.EntityType})
		}
	}
	return out
}

// member decodes one raw member of an update into dst, leaving dst nil
// when the member is missing or null.
func (v *validation) member(field string, raw json.RawMessage, dst any, want string) {
	if len(raw) == 0 || isNull(raw) {
		return
	}
	if err := decodeStrict(raw, dst, field); err != nil {
		var me *memberError
		if errors.As(err, &me) {
			v.add(me.Field, me.Message)
			return
		}
		v.add(field, "must be "+want)
	}
}

func (v *validation) fail(w http.ResponseWriter, r *http.Request, corr string) bool {
	if len(v.errs) == 0 {
		return false
	}
	parts := make([]string, len(v.errs))
	for i, e := range v.errs {
		parts[i] = e.Field + ": " + e.Message
	}
	problem(w, r, corr, http.StatusBadRequest, "validation", "Bad Request", strings.Join(parts, "; "), v.errs)
	return true
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// merge adds the organizations of add missing from have, keeping order.
func merge(have, add []BusinessOrganization) []BusinessOrganization {
	seen := map[BusinessOrganization]bool{}
	out := make([]BusinessOrganization, 0, len(have)+len(add))
	for _, list := range [][]BusinessOrganization{have, add} {
		for _, o := range list {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	return out
}
