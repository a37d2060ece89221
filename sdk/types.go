package sdk

import (
	"bytes"
	"encoding/json"
)

// WBSElement is one item of the list of WBS elements (spec 2.1, list
// response). The linked business organizations are not part of it; they are
// read through WBSElementsService.ListBusinessOrganizations.
type WBSElement struct {
	// Code is the element's code (wbsElementCode); never null.
	Code string `json:"wbsElementCode"`
	// Description is the element's description; nil when the platform
	// returns null.
	Description *string `json:"description"`
	// IsActive tells whether the element is active; never null.
	IsActive bool `json:"isActive"`
}

// BusinessOrganization is a business organization as sent in requests
// (spec 2.2): a code from the client's ERP and the kind of organizational
// structure it belongs to. Both fields are required and at least one
// character long.
type BusinessOrganization struct {
	Code       string `json:"code"`
	EntityType string `json:"entityType"`
}

// LinkedBusinessOrganization is a business organization as returned by the
// list of an element's links (spec 2.2, list responses), where both fields
// may be null.
type LinkedBusinessOrganization struct {
	Code       *string `json:"code"`
	EntityType *string `json:"entityType"`
}

// BusinessOrganization returns the link as a request value, with null fields
// read as empty strings.
func (l LinkedBusinessOrganization) BusinessOrganization() BusinessOrganization {
	var o BusinessOrganization
	if l.Code != nil {
		o.Code = *l.Code
	}
	if l.EntityType != nil {
		o.EntityType = *l.EntityType
	}
	return o
}

// CreateWBSElementRequest is the body of a create (spec 2.1, creation).
// Nil pointers and a nil slice are left out of the request, so that the
// platform applies its defaults (isActive defaults to true).
type CreateWBSElementRequest struct {
	// Code is required: 1 to 30 characters.
	Code string `json:"wbsElementCode"`
	// Description is at most 100 characters.
	Description *string `json:"description,omitempty"`
	// IsActive defaults to true on the platform when nil.
	IsActive *bool `json:"isActive,omitempty"`
	// BusinessOrganizations are linked to the new element.
	BusinessOrganizations []BusinessOrganization `json:"businessOrganizations,omitempty"`
}

// UpdateWBSElementRequest is the body of an update (spec 2.1, update). Each
// field has three states: unset (left out, the platform keeps the value),
// null (sent as JSON null) and set. The code is not part of the body; it is
// the path parameter of WBSElementsService.Update.
type UpdateWBSElementRequest struct {
	Description           Field[string]                 `json:"description,omitzero"`
	IsActive              Field[bool]                   `json:"isActive,omitzero"`
	BusinessOrganizations Field[[]BusinessOrganization] `json:"businessOrganizations,omitzero"`
}

// DeleteBusinessOrganizationsRequest is the body of the removal of links
// (spec 4.1, operation 5). The list must not be empty.
type DeleteBusinessOrganizationsRequest struct {
	BusinessOrganizations []BusinessOrganization `json:"businessOrganizations"`
}

// Acknowledgement is the platform's answer to a change (spec 2.4).
type Acknowledgement struct {
	CorrelationID string `json:"correlationId"`
	// Rate is what the answer's headers said of the rate limit: how many
	// requests are left in the window, and when it resets.
	Rate Rate `json:"-"`
}

// Field is a value of an update request that can be left unchanged (the
// zero Field), cleared (Null) or set (Set). With the `omitzero` option of
// encoding/json an unset Field is left out of the body.
type Field[T any] struct {
	state fieldState
	value T
}

type fieldState uint8

const (
	fieldUnset fieldState = iota
	fieldNull
	fieldSet
)

// Set returns a Field that sets the value.
func Set[T any](v T) Field[T] { return Field[T]{state: fieldSet, value: v} }

// Null returns a Field that clears the value (JSON null).
func Null[T any]() Field[T] { return Field[T]{state: fieldNull} }

// IsZero reports whether the field is unset; encoding/json's omitzero uses it.
func (f Field[T]) IsZero() bool { return f.state == fieldUnset }

// IsNull reports whether the field clears the value.
func (f Field[T]) IsNull() bool { return f.state == fieldNull }

// Get returns the value and whether the field sets one.
func (f Field[T]) Get() (T, bool) { return f.value, f.state == fieldSet }

// MarshalJSON writes null for a Null field and the value otherwise.
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if f.state != fieldSet {
		return []byte("null"), nil
	}
	return json.Marshal(f.value)
}

// UnmarshalJSON reads null as Null and anything else as Set.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*f = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Set(v)
	return nil
}

// Ptr returns a pointer to v, for the optional fields of requests.
func Ptr[T any](v T) *T { return &v }
