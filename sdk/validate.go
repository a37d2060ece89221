package sdk

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Limits of the spec (section 8). Lengths are counted in Unicode code
// points (runes) of the UTF-8 text, so "Ä" is one character and an emoji
// made of two code points is two; text that is not valid UTF-8 is refused.
const (
	// MinCodeLength and MaxCodeLength bound wbsElementCode on create.
	MinCodeLength = 1
	MaxCodeLength = 30
	// MaxDescriptionLength bounds description on create and update.
	MaxDescriptionLength = 100
	// MinOrganizationFieldLength is the least length of a business
	// organization's code and entityType in requests.
	MinOrganizationFieldLength = 1
)

type violations []Violation

func (vs *violations) add(field, limit, format string, args ...any) {
	*vs = append(*vs, Violation{Field: field, Limit: limit, Message: fmt.Sprintf(format, args...)})
}

// text checks that s is valid UTF-8 and between min and max runes long
// (max < 0: no upper bound).
func (vs *violations) text(field, s string, min, max int) {
	n := utf8.RuneCountInString(s)
	valid := utf8.ValidString(s)
	if valid && n >= min && (max < 0 || n <= max) {
		return
	}
	limit := fmt.Sprintf("%d to %d characters", min, max)
	switch {
	case max < 0:
		limit = fmt.Sprintf("at least %d character", min)
	case min == 0:
		limit = fmt.Sprintf("at most %d characters", max)
	}
	switch {
	case !valid:
		vs.add(field, limit, "is not valid UTF-8")
	case n == 0:
		vs.add(field, limit, "is empty")
	default:
		vs.add(field, limit, "is %d characters long", n)
	}
}

// printable refuses the control characters C0, DEL and C1 in text sent
// in a body: they would reach the terminals of whoever lists the element
// (an escape sequence), split the rows of a table or file (a newline), or
// be cut by a system in between (NUL). A code in a path is not checked, so
// that an element the platform holds with one can still be reached.
func (vs *violations) printable(field, s string) {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			vs.add(field, "no control characters", "holds the control character %U", r)
			return
		}
	}
}

func (vs *violations) organizations(field string, orgs []BusinessOrganization) {
	for i, o := range orgs {
		var found violations
		found.text("code", o.Code, MinOrganizationFieldLength, -1)
		found.printable("code", o.Code)
		found.text("entityType", o.EntityType, MinOrganizationFieldLength, -1)
		found.printable("entityType", o.EntityType)
		// The field names are written out only for a violation: most
		// requests have none, and bulk loads validate every one.
		for _, v := range found {
			v.Field = fmt.Sprintf("%s[%d].%s", field, i, v.Field)
			*vs = append(*vs, v)
		}
	}
}

func (vs violations) err(op, code string) error {
	if len(vs) == 0 {
		return nil
	}
	return &ValidationError{Operation: op, Code: code, Violations: vs}
}

// Validate checks the request against the spec's limits and returns a
// *ValidationError that lists every violation, or nil.
func (r *CreateWBSElementRequest) Validate() error {
	var vs violations
	vs.text("wbsElementCode", r.Code, MinCodeLength, MaxCodeLength)
	vs.printable("wbsElementCode", r.Code)
	if r.Description != nil {
		vs.text("description", *r.Description, 0, MaxDescriptionLength)
		vs.printable("description", *r.Description)
	}
	vs.organizations("businessOrganizations", r.BusinessOrganizations)
	return vs.err(opCreate, r.Code)
}

// Validate checks the request against the spec's limits and returns a
// *ValidationError that lists every violation, or nil.
func (r *UpdateWBSElementRequest) Validate() error {
	var vs violations
	if d, ok := r.Description.Get(); ok {
		vs.text("description", d, 0, MaxDescriptionLength)
		vs.printable("description", d)
	}
	if orgs, ok := r.BusinessOrganizations.Get(); ok {
		vs.organizations("businessOrganizations", orgs)
	}
	return vs.err(opUpdate, "")
}

// Validate checks the request against the spec's limits: the list must hold
// at least one organization, each with a code and an entity type.
func (r *DeleteBusinessOrganizationsRequest) Validate() error {
	var vs violations
	if len(r.BusinessOrganizations) == 0 {
		vs.add("businessOrganizations", "at least 1 item", "is empty")
	}
	vs.organizations("businessOrganizations", r.BusinessOrganizations)
	return vs.err(opDeleteLinks, "")
}

// validateWithCode checks the element code of a path and, when req is not
// nil, the body, and lists the violations of both in one error. The code
// must not be empty and must be valid UTF-8; its length is not bounded
// here, so that an element the platform holds with a longer code can still
// be reached.
func validateWithCode(op, code string, req interface{ Validate() error }) error {
	var vs violations
	vs.text("wbsElementCode", code, MinCodeLength, -1)
	if req != nil {
		var ve *ValidationError
		if errors.As(req.Validate(), &ve) {
			vs = append(vs, ve.Violations...)
		}
	}
	return vs.err(op, code)
}

// Operation names, used in errors and log records.
const (
	opCreate      = "create WBS element"
	opList        = "list WBS elements"
	opUpdate      = "update WBS element"
	opDelete      = "delete WBS element"
	opDeleteLinks = "delete business organizations"
	opListLinks   = "list business organizations"
	opToken       = "exchange token"
	opExecute     = "execute flow"
)
