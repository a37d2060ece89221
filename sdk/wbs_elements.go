package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
)

// WBSElementsService holds the operations of the groups "WBS Elements" and
// "WBS Elements Relationships" (spec 4).
type WBSElementsService struct {
	c *Client
	// elements is the URL of the element list, where a create goes too;
	// shared by every call, it is never changed.
	elements *url.URL
}

// Create creates a WBS element with its business organizations (operation
// 1). The request is checked against the spec's limits first.
//
// A create is not safe to repeat: it is retried only where it provably never
// reached the platform. When its outcome is unknown the error matches
// ErrOutcomeUnknown; read the element back before creating it again.
// Creating a code that exists fails with a 400 on the reference server.
func (s *WBSElementsService) Create(ctx context.Context, req *CreateWBSElementRequest) (*Acknowledgement, error) {
	if req == nil {
		req = &CreateWBSElementRequest{}
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return s.c.acknowledged(ctx, &request{
		op: opCreate, method: "POST", url: s.elements, code: req.Code,
	}, req)
}

// List returns one page of WBS elements (operation 2): opts.PageNumber,
// or the page opts.Cursor names. See All to read every page. A 404 with
// problem details is read as an empty page, the reading of a platform
// that answers an empty list, or a page past its end, with 404.
func (s *WBSElementsService) List(ctx context.Context, opts *ListOptions) (*Page[WBSElement], error) {
	p, number, err := s.elementPager(opts, 0)
	if err != nil {
		return nil, err
	}
	return p.one(ctx, number)
}

// All returns every WBS element from opts.PageNumber (or opts.Cursor) on,
// fetching one page of DefaultAllPageSize items (or opts.PageSize) at a
// time as the loop asks for more. An error ends the sequence; breaking
// out of the loop stops the fetching, and so does the end of ctx, between
// any two items. A 404 on the first page is an empty list. See the
// package documentation for how the end of a list is found whatever the
// platform's next and hits mean, and AllPages to save where a walk is.
func (s *WBSElementsService) All(ctx context.Context, opts *ListOptions) iter.Seq2[WBSElement, error] {
	p, number, err := s.elementPager(opts, DefaultAllPageSize)
	if err != nil {
		return func(yield func(WBSElement, error) bool) { yield(WBSElement{}, err) }
	}
	return p.all(ctx, number)
}

// AllPages returns the pages of WBS elements that All reads, by the same
// rules, one at a time as the loop asks for more; a list without elements
// yields no page. The NextCursor of each page names the page All reads
// after it: saved once the page's elements are handled, it resumes the
// walk there with ListOptions.Cursor, in this process or another, with no
// element read twice or left out.
func (s *WBSElementsService) AllPages(ctx context.Context, opts *ListOptions) iter.Seq2[*Page[WBSElement], error] {
	p, number, err := s.elementPager(opts, DefaultAllPageSize)
	if err != nil {
		return func(yield func(*Page[WBSElement], error) bool) { yield(nil, err) }
	}
	return p.pages(ctx, number)
}

// elementPager reads the element list with opts, at pageSize items a page
// when opts leaves the size open (0: the platform's default).
func (s *WBSElementsService) elementPager(opts *ListOptions, pageSize int) (*pager[WBSElement], int, error) {
	o := listOptions(opts)
	if err := o.validate(opList, ""); err != nil {
		return nil, 0, err
	}
	p := &pager[WBSElement]{
		c: s.c, op: opList, base: s.elements, size: cmp.Or(o.PageSize, pageSize),
		maxPages: o.MaxPages, emptyOn404: true,
	}
	p.resume(o.Cursor)
	return p, o.PageNumber, nil
}

// Update changes a WBS element (operation 3). Fields left unset in req are
// not sent and stay as they are. Whether a list of business organizations
// is added to the element's links or replaces them depends on the platform.
func (s *WBSElementsService) Update(ctx context.Context, code string, req *UpdateWBSElementRequest) (*Acknowledgement, error) {
	if req == nil {
		req = &UpdateWBSElementRequest{}
	}
	if err := validateWithCode(opUpdate, code, req); err != nil {
		return nil, err
	}
	return s.c.acknowledged(ctx, &request{
		op: opUpdate, method: "PUT", url: s.c.endpoint("v1", "wbs-elements", code), safe: true, code: code,
	}, req)
}

// Delete deletes a WBS element (operation 4).
func (s *WBSElementsService) Delete(ctx context.Context, code string) (*Acknowledgement, error) {
	if err := validateWithCode(opDelete, code, nil); err != nil {
		return nil, err
	}
	return s.c.acknowledged(ctx, &request{
		op: opDelete, method: "DELETE", url: s.c.endpoint("v1", "wbs-elements", code), safe: true, code: code,
	}, nil)
}

// DeleteBusinessOrganizations removes the listed business organizations
// from a WBS element (operation 5). Removing a link twice leaves the same
// state, so this POST is retried like an update.
func (s *WBSElementsService) DeleteBusinessOrganizations(ctx context.Context, code string, req *DeleteBusinessOrganizationsRequest) (*Acknowledgement, error) {
	if req == nil {
		req = &DeleteBusinessOrganizationsRequest{}
	}
	if err := validateWithCode(opDeleteLinks, code, req); err != nil {
		return nil, err
	}
	return s.c.acknowledged(ctx, &request{
		op: opDeleteLinks, method: "POST", safe: true, code: code,
		url: s.c.endpoint("v1", "wbs-elements", code, "business-organizations", "delete"),
	}, req)
}

// ListBusinessOrganizations returns one page of the business organizations
// linked to a WBS element (operation 6): opts.PageNumber, or the page
// opts.Cursor names. A 404 matches ErrNotFound: the
// element does not exist or, on a platform that answers an empty list
// with 404, has no links.
func (s *WBSElementsService) ListBusinessOrganizations(ctx context.Context, code string, opts *ListOptions) (*Page[LinkedBusinessOrganization], error) {
	p, number, err := s.linkPager(code, opts, 0)
	if err != nil {
		return nil, err
	}
	return p.one(ctx, number)
}

// AllBusinessOrganizations returns every business organization linked to a
// WBS element, one page at a time, like All. A 404 on the first page
// matches ErrNotFound, as for ListBusinessOrganizations; a caller that
// knows the element exists uses AllBusinessOrganizationsOfExisting.
func (s *WBSElementsService) AllBusinessOrganizations(ctx context.Context, code string, opts *ListOptions) iter.Seq2[LinkedBusinessOrganization, error] {
	return s.allLinks(ctx, code, opts, false)
}

// AllBusinessOrganizationsOfExisting is AllBusinessOrganizations for an
// element the caller knows exists, for instance one that All has just
// yielded: a 404 on the first page then means that the element has no
// links, and the sequence is empty. The spec leaves open whether a
// platform answers an empty list with 404, and the links list is the only
// operation that would tell a missing element.
func (s *WBSElementsService) AllBusinessOrganizationsOfExisting(ctx context.Context, code string, opts *ListOptions) iter.Seq2[LinkedBusinessOrganization, error] {
	return s.allLinks(ctx, code, opts, true)
}

func (s *WBSElementsService) allLinks(ctx context.Context, code string, opts *ListOptions, exists bool) iter.Seq2[LinkedBusinessOrganization, error] {
	p, number, err := s.linkPager(code, opts, DefaultAllPageSize)
	if err != nil {
		return func(yield func(LinkedBusinessOrganization, error) bool) { yield(LinkedBusinessOrganization{}, err) }
	}
	p.emptyOn404 = exists
	return p.all(ctx, number)
}

// linkPager reads an element's links with opts, like elementPager.
func (s *WBSElementsService) linkPager(code string, opts *ListOptions, pageSize int) (*pager[LinkedBusinessOrganization], int, error) {
	o := listOptions(opts)
	var vs violations
	for _, err := range []error{validateWithCode(opListLinks, code, nil), o.validate(opListLinks, code)} {
		var ve *ValidationError
		if errors.As(err, &ve) {
			vs = append(vs, ve.Violations...)
		}
	}
	if err := vs.err(opListLinks, code); err != nil {
		return nil, 0, err
	}
	p := &pager[LinkedBusinessOrganization]{
		c: s.c, op: opListLinks, code: code, size: cmp.Or(o.PageSize, pageSize), maxPages: o.MaxPages,
		base: s.c.endpoint("v1", "wbs-elements", code, "business-organizations"),
	}
	p.resume(o.Cursor)
	return p, o.PageNumber, nil
}

func listOptions(opts *ListOptions) ListOptions {
	if opts == nil {
		return ListOptions{}
	}
	return *opts
}

// acknowledged sends req with body as JSON and reads the acknowledgement.
func (c *Client) acknowledged(ctx context.Context, req *request, body any) (*Acknowledgement, error) {
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", req.op, err)
		}
		req.body = b
	}
	req.maxBody = maxSmallBody
	resp, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	var ack Acknowledgement
	if resp.status != http.StatusNoContent || len(resp.body) > 0 {
		// A body that is no JSON object may come from a proxy rather
		// than the platform, so it does not prove the change was made
		// (a create then has an unknown outcome). Within an object, a
		// correlationId of another type does not undo the change.
		if err := decodeAck(resp.body, &ack); err != nil {
			return nil, c.finalError(req, badResponse(req, resp.status, resp.header, err))
		}
	}
	if ack.CorrelationID == "" {
		ack.CorrelationID = correlationIDFromHeader(resp.header)
	}
	ack.Rate = resp.rate
	return &ack, nil
}
