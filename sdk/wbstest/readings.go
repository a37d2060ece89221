package wbstest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// The spec leaves open what a list's next and hits are and what an empty
// list answers (spec 4.1, 7). The server takes one reading of each at a
// time, chosen by options, so that a client can be tested against every
// plausible platform. The defaults are the readings of the server's first
// version: next the absolute URL of the next page, hits the total, an empty
// list and a page past the end answered 200 with empty data.

// NextStyle is what a list page's next member holds.
type NextStyle int

const (
	// NextURL is the absolute URL of the next page, null on the last.
	NextURL NextStyle = iota
	// NextRelativeURL is the next page's path and query, null on the last.
	NextRelativeURL
	// NextPageNumber is the number of the next page as a string, null on
	// the last.
	NextPageNumber
	// NextOffset is an opaque cursor made of digits only (the offset of
	// the next item), null on the last: a client must not take it for a
	// page number.
	NextOffset
	// NextCursor is an opaque token, null on the last.
	NextCursor
	// NextNull is null on every page.
	NextNull
	// NextAbsent leaves the member out of every page.
	NextAbsent
)

var nextStyleNames = []string{"url", "relative", "page", "offset", "cursor", "null", "absent"}

// HitsMeaning is what a list page's hits member counts.
type HitsMeaning int

const (
	// HitsTotal is the number of items in the whole list.
	HitsTotal HitsMeaning = iota
	// HitsPageCount is the number of items on this page.
	HitsPageCount
	// HitsNull is null on every page.
	HitsNull
)

var hitsMeaningNames = []string{"total", "page", "null"}

// PastEnd is what a page after the last one answers, for a list that is
// not empty.
type PastEnd int

const (
	// PastEndEmpty answers 200 with empty data.
	PastEndEmpty PastEnd = iota
	// PastEndNotFound answers 404 with problem details.
	PastEndNotFound
	// PastEndLastPage answers the last page again, as a platform that
	// clamps pageNumber does.
	PastEndLastPage
)

var pastEndNames = []string{"empty", "404", "last"}

func (s NextStyle) String() string   { return name(nextStyleNames, int(s)) }
func (h HitsMeaning) String() string { return name(hitsMeaningNames, int(h)) }
func (p PastEnd) String() string     { return name(pastEndNames, int(p)) }

func name(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return strconv.Itoa(i)
}

// WithNextStyle sets what a list page's next holds; default NextURL.
func WithNextStyle(n NextStyle) Option { return func(s *Server) { s.nextStyle = n } }

// WithHitsMeaning sets what a list page's hits counts; default HitsTotal.
func WithHitsMeaning(h HitsMeaning) Option { return func(s *Server) { s.hits = h } }

// WithEmptyListStatus sets the status of a list that has no items at all:
// http.StatusOK (the default) with empty data, or http.StatusNotFound.
// It applies to the element list and to an element's links alike.
func WithEmptyListStatus(status int) Option { return func(s *Server) { s.emptyStatus = status } }

// WithPastEnd sets what a page after the last answers; default
// PastEndEmpty.
func WithPastEnd(p PastEnd) Option { return func(s *Server) { s.pastEnd = p } }

// pageParams reads pageNumber and pageSize. The spec gives list operations
// no 400, so a value out of range is clamped (below 1 to 1, pageSize above
// the maximum to the maximum) and one that is no integer is taken as its
// default, instead of refused.
func (s *Server) pageParams(r *http.Request) (number, size int) {
	q := r.URL.Query()
	read := func(name string, def, max int) int {
		n, err := strconv.ParseInt(q.Get(name), 10, 32)
		switch {
		case err != nil:
			return def
		case n < 1:
			return 1
		case max > 0 && int(n) > max:
			return max
		}
		return int(n)
	}
	return read("pageNumber", 1, 0), read("pageSize", 10, s.maxPageSize)
}

// writePage answers page number of a list of total items, where item(i)
// is the item at position i, under the server's readings of the open
// points. It is called with s.mu held, and unlocks it.
func writePage[T any](s *Server, w http.ResponseWriter, r *http.Request, corr string, total int, item func(i int) T) {
	number, size := s.pageParams(r)
	last := max((total+size-1)/size, 1)
	switch {
	case total == 0 && s.emptyStatus == http.StatusNotFound:
		s.mu.Unlock()
		problem(w, r, corr, http.StatusNotFound, "not-found", "Not Found", "the list is empty", nil)
		return
	case total > 0 && number > last && s.pastEnd == PastEndNotFound:
		s.mu.Unlock()
		problem(w, r, corr, http.StatusNotFound, "not-found", "Not Found", fmt.Sprintf("page %d is past the last page, %d", number, last), nil)
		return
	case total > 0 && number > last && s.pastEnd == PastEndLastPage:
		number = last
	}
	lo, hi := min((number-1)*size, total), min(number*size, total)
	data := make([]T, 0, hi-lo)
	for i := lo; i < hi; i++ {
		data = append(data, item(i))
	}
	nextStyle, hitsMeaning := s.nextStyle, s.hits
	s.mu.Unlock()
	body := map[string]any{"data": data}
	switch hitsMeaning {
	case HitsTotal:
		body["hits"] = total
	case HitsPageCount:
		body["hits"] = len(data)
	default:
		body["hits"] = nil
	}
	if nextStyle != NextAbsent {
		body["next"] = nextValue(nextStyle, r, number, size, hi < total)
	}
	writeJSON(w, http.StatusOK, body)
}

// nextValue is the next member of page number, null when there is no
// more.
func nextValue(style NextStyle, r *http.Request, number, size int, more bool) any {
	if !more || style == NextNull {
		return nil
	}
	switch style {
	case NextPageNumber:
		return strconv.Itoa(number + 1)
	case NextOffset:
		return strconv.Itoa(number * size)
	case NextCursor:
		return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "after:%d", number*size))
	}
	u := url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath,
		RawQuery: url.Values{"pageNumber": {strconv.Itoa(number + 1)}, "pageSize": {strconv.Itoa(size)}}.Encode()}
	if style == NextURL {
		u.Scheme, u.Host = "http", r.Host
		if r.TLS != nil {
			u.Scheme = "https"
		}
	}
	return u.String()
}

// DuplicateAnswer is what a create of a code that exists answers. The
// spec gives a create only the status 400, and shows neither the problem
// types nor how a 400 tells a code that exists from a malformed field;
// other platforms answer 409 Conflict. Each answer is one plausible
// platform.
type DuplicateAnswer int

const (
	// DuplicateProblem is a 400 problem of type …/duplicate whose detail
	// says the element exists and whose errors name wbsElementCode
	// ("already exists"); the default.
	DuplicateProblem DuplicateAnswer = iota
	// DuplicateFieldErrors is a 400 validation problem as ASP.NET Core
	// writes one: type …/validation, title "One or more validation
	// errors occurred.", no detail, and errors an object of field names
	// to messages: {"wbsElementCode": ["an element with code \"P-1\"
	// already exists"]}.
	DuplicateFieldErrors
	// DuplicateDetail is a 400 problem of type about:blank, title "Bad
	// Request", that says the element exists only in its detail.
	DuplicateDetail
	// DuplicateCode is a 400 problem of type about:blank whose detail says
	// nothing of the cause and whose code member is
	// "WBS_ELEMENT_ALREADY_EXISTS".
	DuplicateCode
	// DuplicateConflict is a 409 problem of type …/duplicate, title
	// "Conflict".
	DuplicateConflict
	// DuplicateConflictBare is a 409 with an empty body.
	DuplicateConflictBare
)

var duplicateAnswerNames = []string{"400", "400-errors", "400-detail", "400-code", "409", "409-bare"}

func (d DuplicateAnswer) String() string { return name(duplicateAnswerNames, int(d)) }

// DuplicateAnswers are every DuplicateAnswer, for tests that run a client
// against each.
func DuplicateAnswers() []DuplicateAnswer {
	all := make([]DuplicateAnswer, len(duplicateAnswerNames))
	for i := range all {
		all[i] = DuplicateAnswer(i)
	}
	return all
}

// WithDuplicateAnswer sets what a create of a code that exists answers;
// default DuplicateProblem.
func WithDuplicateAnswer(d DuplicateAnswer) Option { return func(s *Server) { s.duplicate = d } }

// answerDuplicate refuses the create of code, which exists, as answer
// says.
func answerDuplicate(w http.ResponseWriter, r *http.Request, corr string, answer DuplicateAnswer, code string) {
	body := map[string]any{"status": http.StatusBadRequest, "instance": r.URL.Path, "correlationId": corr}
	switch answer {
	case DuplicateFieldErrors:
		body["type"], body["title"] = problemTypeBase+"validation", "One or more validation errors occurred."
		body["errors"] = map[string][]string{"wbsElementCode": {fmt.Sprintf("an element with code %q already exists", code)}}
	case DuplicateDetail:
		body["type"], body["title"] = "about:blank", "Bad Request"
		body["detail"] = fmt.Sprintf("WBS element %q already exists.", code)
	case DuplicateCode:
		body["type"], body["title"] = "about:blank", "Bad Request"
		body["detail"], body["code"] = "The request could not be processed.", "WBS_ELEMENT_ALREADY_EXISTS"
	case DuplicateConflict:
		problem(w, r, corr, http.StatusConflict, "duplicate", "Conflict",
			fmt.Sprintf("wbsElementCode: an element with code %q exists", code), nil)
		return
	case DuplicateConflictBare:
		w.WriteHeader(http.StatusConflict)
		return
	default:
		problem(w, r, corr, http.StatusBadRequest, "duplicate", "Bad Request",
			fmt.Sprintf("wbsElementCode: an element with code %q exists", code), []fieldError{{"wbsElementCode", "already exists"}})
		return
	}
	writeProblem(w, http.StatusBadRequest, body)
}
