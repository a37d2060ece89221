package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors for errors.Is. An *APIError matches the one that fits its
// HTTP status (and, for ErrDuplicate, its problem details); a
// *ValidationError matches ErrValidation.
var (
	// ErrNotFound: the platform answered 404 (unknown element, or a page
	// past the end of a list).
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the platform answered 401, even after the SDK
	// replaced the rejected token (up to three new tokens for one call).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: the platform answered 403, for instance when a token of
	// one integration calls another integration's endpoint.
	ErrForbidden = errors.New("forbidden")
	// ErrRateLimited: the platform answered 429 and the retries ran out.
	ErrRateLimited = errors.New("rate limited")
	// ErrValidation: the request broke a limit of the spec, found either by
	// the SDK before sending (*ValidationError) or by the platform (400,
	// or 422), other than a create refused because its code exists, which
	// is ErrDuplicate.
	ErrValidation = errors.New("validation failed")
	// ErrDuplicate: the platform refused a create because an element with
	// its code exists, and left that element as it was; update it
	// instead. The spec gives a create only a 400 and does not say how a
	// 400 tells a code that exists from a malformed field, so ErrDuplicate
	// matches every plausible answer to a create (POST .../wbs-elements):
	//   - a 409 Conflict, with or without problem details;
	//   - a 400 (or 422) whose problem details say the element exists: an
	//     errors entry naming wbsElementCode (or no field) whose message
	//     says so ("already exists"), the type's last segment
	//     (…/duplicate, …/already-exists, …/conflict, RFC 9110's section
	//     on 409), a code or reason member (WBS_ELEMENT_ALREADY_EXISTS),
	//     the detail, title or message (`an element with code "P-1"
	//     exists`, "duplicate", "must be unique", "já existe"), or a
	//     status member of 409.
	// Quoted text (the code itself) is not read. Text about JSON members,
	// properties, parameters, headers or business organizations (a member
	// or an organization given twice), or that denies existence ("does
	// not exist"), does not count, nor does a problem whose errors all
	// name other fields; a 400 without problem details is never a
	// duplicate. A duplicate does not match ErrValidation; errors.As
	// still finds the *APIError.
	ErrDuplicate = errors.New("element exists")
	// ErrInvalidCredentials: the token exchange refused the client id and
	// secret. It is never retried.
	ErrInvalidCredentials = errors.New("invalid credentials")
	// ErrOutcomeUnknown: a create may or may not have reached the platform
	// (a reset connection, a timeout, a 5xx). The SDK does not resend it;
	// the caller should read the element back before creating it again.
	ErrOutcomeUnknown = errors.New("outcome unknown")
	// ErrPageLoop: a list returned a page that it had already returned, so
	// following it would never end.
	ErrPageLoop = errors.New("pagination loop")
	// ErrListTooLong: a list went on past ListOptions.MaxPages, or far
	// past the total its first page announced, as a list that never ends
	// does.
	ErrListTooLong = errors.New("list too long")
	// ErrBadResponse: the platform (or something in between) answered 2xx
	// with a body that is not the operation's answer; see
	// *BadResponseError.
	ErrBadResponse = errors.New("unreadable answer")
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// Problem is the platform's problem details object (spec 7, RFC 9457). All
// members may be null or missing; they are then the zero value.
type Problem struct {
	Type     string `json:"type,omitempty"`
	Title    string `json:"title,omitempty"`
	Status   int    `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// Extensions holds the members other than the five above, such as a
	// list of invalid fields, as they were sent.
	Extensions map[string]json.RawMessage `json:"-"`
	// FieldErrors are the invalid fields of the extension errors (or
	// invalid-params, RFC 9457's name, or violations), read from its common
	// shapes: a list of objects naming a field (field, name, pointer,
	// path, property, param, loc) and a message (message, detail, reason,
	// description, msg, error); a list of messages; or an object of field
	// names to a message or a list of them. Nil when there is none; the
	// member stays in Extensions as it was sent.
	FieldErrors []FieldError `json:"-"`
}

// FieldError is one field the platform refused, as its problem details
// name it.
type FieldError struct {
	// Field names the field as the platform does, such as
	// "wbsElementCode"; empty when it names none.
	Field string `json:"field,omitempty"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

func (e FieldError) String() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// saysAlready reports whether a problem's detail already says what the
// field error fe does: it holds fe whole, or speaks of its field as
// "field: …", as a detail that describes one field's error in its own
// words does.
func saysAlready(detail string, fe FieldError) bool {
	if strings.Contains(detail, fe.String()) {
		return true
	}
	if fe.Field == "" {
		return false
	}
	named := fe.Field + ": "
	return strings.HasPrefix(detail, named) || strings.Contains(detail, " "+named) || strings.Contains(detail, ";"+named)
}

// fieldErrorMembers are the extensions read into Problem.FieldErrors, the
// first one present.
var fieldErrorMembers = []string{"errors", "invalid-params", "invalidParams", "violations"}

// readFieldErrors reads the field errors of a problem's extensions; shapes
// it does not know give none.
func readFieldErrors(ext map[string]json.RawMessage) []FieldError {
	for _, k := range fieldErrorMembers {
		raw, ok := ext[k]
		if !ok {
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			var out []FieldError
			for _, item := range list {
				if fe, ok := readFieldError(item); ok {
					out = append(out, fe)
				}
			}
			return out
		}
		var byField map[string]json.RawMessage
		if json.Unmarshal(raw, &byField) == nil {
			var out []FieldError
			for field, v := range byField {
				for _, msg := range messages(v) {
					out = append(out, FieldError{Field: field, Message: msg})
				}
			}
			sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
			return out
		}
		return nil
	}
	return nil
}

// readFieldError reads one item of a list of field errors: a message, or
// an object with a field and a message.
func readFieldError(item json.RawMessage) (FieldError, bool) {
	var msg string
	if json.Unmarshal(item, &msg) == nil {
		return FieldError{Message: msg}, msg != ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(item, &obj) != nil {
		return FieldError{}, false
	}
	var fe FieldError
	for _, k := range []string{"field", "name", "pointer", "path", "property", "param", "loc"} {
		if fe.Field = fieldName(obj[k]); fe.Field != "" {
			break
		}
	}
	fe.Message = message(obj)
	return fe, fe.Field != "" || fe.Message != ""
}

// message reads the message of an object: its first member of a known
// name that is a string, or a list of strings.
func message(obj map[string]json.RawMessage) string {
	for _, k := range []string{"message", "detail", "reason", "description", "msg", "error"} {
		var s string
		if json.Unmarshal(obj[k], &s) == nil && s != "" {
			return s
		}
		var list []string
		if json.Unmarshal(obj[k], &list) == nil && len(list) > 0 {
			return strings.Join(list, "; ")
		}
	}
	return ""
}

// fieldName reads a field's name: a string, or a path given as a list of
// names and indexes (["businessOrganizations", 0, "code"]).
func fieldName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var path []any
	if json.Unmarshal(raw, &path) != nil {
		return ""
	}
	parts := make([]string, 0, len(path))
	for _, p := range path {
		switch p := p.(type) {
		case string:
			parts = append(parts, p)
		case float64:
			parts = append(parts, strconv.FormatFloat(p, 'f', -1, 64))
		}
	}
	return strings.Join(parts, ".")
}

// messages reads a message, a list of messages, or an object with a
// message.
func messages(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if m := message(obj); m != "" {
			return []string{m}
		}
	}
	return nil
}

// UnmarshalJSON reads the five standard members leniently (a member of the
// wrong type is dropped rather than failing the whole error) and keeps the
// others in Extensions.
func (p *Problem) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = Problem{}
	str := func(k string) string {
		var s string
		if v, ok := raw[k]; ok {
			_ = json.Unmarshal(v, &s)
			delete(raw, k)
		}
		return s
	}
	p.Type, p.Title, p.Detail, p.Instance = str("type"), str("title"), str("detail"), str("instance")
	if v, ok := raw["status"]; ok {
		var n json.Number
		if json.Unmarshal(v, &n) == nil {
			if i, err := n.Int64(); err == nil && i >= 0 && i < 1000 {
				p.Status = int(i)
			}
		}
		delete(raw, "status")
	}
	if len(raw) > 0 {
		p.Extensions = raw
		p.FieldErrors = readFieldErrors(raw)
	}
	return nil
}

// MarshalJSON writes the standard members and the extensions side by side.
func (p Problem) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(p.Extensions)+5)
	for k, v := range p.Extensions {
		m[k] = v
	}
	for k, v := range map[string]string{"type": p.Type, "title": p.Title, "detail": p.Detail, "instance": p.Instance} {
		if v != "" {
			m[k] = v
		}
	}
	if p.Status != 0 {
		m["status"] = p.Status
	}
	return json.Marshal(m)
}

// String is the problem as the platform sent it, in JSON: what %v and
// %+v print, with the extensions as their text rather than their bytes.
func (p Problem) String() string {
	b, err := p.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("{%s %d %s}", p.Title, p.Status, p.Detail)
	}
	return string(b)
}

// APIError is an answer of the platform with a status other than 2xx.
type APIError struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Method and Path name the request (the path without host or query).
	Method string
	Path   string
	// Problem holds the problem details when the body was one, else nil.
	Problem *Problem
	// Message is the "message" (or "error") member of a JSON body that is
	// not problem details, such as {"message":"API rate limit exceeded"}.
	Message string
	// Body is the start of a body that is not JSON (an HTML page from a
	// proxy), bounded and reduced to one line.
	Body string
	// CorrelationID is the platform's correlation id, from the problem
	// details or the response headers, where known.
	CorrelationID string
	// Rate is what the answer's headers say of the rate limit; RetryAfter
	// reads the wait it asks for.
	Rate Rate

	tokenExchange bool
}

// RetryAfter is the wait the answer asks for from now, zero when it asked
// for none: Retry-After, else the time to RateLimit-Reset of a 429 or of
// an answer whose RateLimit-Remaining is 0.
func (e *APIError) RetryAfter(now time.Time) time.Duration {
	return e.Rate.WaitAfter(e.StatusCode, now)
}

// maxFieldErrorsInMessage bounds the field errors APIError.Error lists.
const maxFieldErrorsInMessage = 5

// Error reads "METHOD path: status text: title: detail", with the field
// errors the detail does not mention already and the correlation id. A
// title that only repeats the status text is left out.
func (e *APIError) Error() string {
	var b strings.Builder
	statusText := http.StatusText(e.StatusCode)
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.StatusCode, statusText)
	switch {
	case e.Problem != nil:
		title := e.Problem.Title
		if title != "" && !strings.EqualFold(strings.TrimSpace(title), statusText) {
			b.WriteString(": " + title)
		}
		if e.Problem.Detail != "" && e.Problem.Detail != title {
			b.WriteString(": " + e.Problem.Detail)
		}
		var listed int
		for _, fe := range e.Problem.FieldErrors {
			if saysAlready(e.Problem.Detail, fe) {
				continue
			}
			if listed == maxFieldErrorsInMessage {
				b.WriteString("; …")
				break
			}
			sep := "; "
			if listed == 0 {
				sep = ": "
			}
			b.WriteString(sep + fe.String())
			listed++
		}
	case e.Message != "":
		b.WriteString(": " + e.Message)
	case e.Body != "":
		b.WriteString(": " + e.Body)
	}
	if e.CorrelationID != "" {
		b.WriteString(" (correlation id " + e.CorrelationID + ")")
	}
	return b.String()
}

// Is matches the sentinel error that fits the status.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrValidation:
		return (e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity) && !e.duplicate()
	case ErrDuplicate:
		return e.duplicate()
	case ErrInvalidCredentials:
		return e.tokenExchange && (e.StatusCode == http.StatusBadRequest ||
			e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden)
	}
	return false
}

// duplicate reports whether e is the refusal of a create because the
// element exists: see ErrDuplicate.
func (e *APIError) duplicate() bool {
	if e.tokenExchange || !isCreate(e.Method, e.Path) {
		return false
	}
	switch e.StatusCode {
	case http.StatusConflict:
		return true
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return e.Problem != nil && problemSaysExists(e.Problem, e.Message)
	}
	return false
}

// isCreate reports whether a request is a create of an element: a POST
// to a path that ends in /wbs-elements. An APIError made by hand, without
// method or path, is taken for one.
func isCreate(method, path string) bool {
	if method != "" && !strings.EqualFold(method, http.MethodPost) {
		return false
	}
	path = strings.TrimRight(path, "/")
	return path == "" || path == "wbs-elements" || strings.HasSuffix(path, "/wbs-elements")
}

// problemCodeMembers are the extension members read as a problem's code.
var problemCodeMembers = []string{"code", "errorCode", "error_code", "reason"}

// problemSaysExists reports whether a 400's problem says the element
// exists, reading the members the spec shows (type, title, status,
// detail) and those platforms commonly add (errors, a code, a message).
func problemSaysExists(p *Problem, message string) bool {
	var namesCode, namesOther bool
	for _, fe := range p.FieldErrors {
		switch {
		case isCodeField(fe.Field):
			namesCode = true
			if saysExists(fe.Message) {
				return true
			}
		case strings.Trim(fe.Field, "$./#") == "":
			if saysExists(fe.Message) {
				return true
			}
		default:
			namesOther = true
		}
	}
	if namesOther && !namesCode {
		// The errors are of other fields, whatever the rest says.
		return false
	}
	if p.Status == http.StatusConflict || typeSaysExists(p.Type) {
		return true
	}
	for _, k := range problemCodeMembers {
		var code string
		if json.Unmarshal(p.Extensions[k], &code) == nil && saysExists(code) {
			return true
		}
	}
	return saysExists(p.Title) || saysExists(p.Detail) || saysExists(message)
}

// isCodeField reports whether a field error's field is the element's
// code: wbsElementCode, as a name, a JSON pointer or a path
// ($.wbsElementCode, body.wbsElementCode), in any case, or code alone.
func isCodeField(field string) bool {
	f := strings.ToLower(strings.TrimLeft(field, "$./#"))
	if f == "code" || f == "wbselementcode" {
		return true
	}
	return strings.HasSuffix(f, ".wbselementcode") || strings.HasSuffix(f, "/wbselementcode")
}

// typeSaysExists reads a problem type: RFC 9110's (or RFC 7231's) section
// on 409, or a last segment (after the last /, # or :) whose words say
// the element exists, such as duplicate, already-exists, conflict or
// ElementAlreadyExists.
func typeSaysExists(t string) bool {
	lower := strings.ToLower(strings.TrimSpace(t))
	if strings.HasSuffix(lower, "rfc9110#section-15.5.10") || strings.HasSuffix(lower, "rfc7231#section-6.5.8") {
		return true
	}
	t = strings.TrimRight(t, "/")
	if i := strings.LastIndexAny(t, "/#:"); i >= 0 {
		t = t[i+1:]
	}
	return saysExists(t)
}

// maxReadForExists bounds the text saysExists reads.
const maxReadForExists = 4 << 10

// Words of saysExists, lower case.
var (
	// duplicateWords say a duplicate alone.
	duplicateWords = wordSet("duplicate duplicated duplicates duplication duplicado duplicada duplicados duplicadas duplicidade conflict conflicts conflicting")
	// alreadyWords, before a word of existsWords or alreadyWhat, say it
	// exists.
	alreadyWords = wordSet("already já ja ya")
	alreadyWhat  = wordSet("exists exist existing existe existente taken used use registered present defined created cadastrado cadastrada registrado registrada")
	// existsWords say it exists unless a negation comes just before.
	existsWords = wordSet("exists existe")
	negations   = wordSet("not no never longer doesn don didn isn wasn cannot nao não nenhum ningún ningun")
	// uniqueBefore and uniqueAfter, next to unique, say a unique rule
	// was broken: "must be unique", "not unique", "unique constraint".
	uniqueBefore = wordSet("be is not non")
	uniqueAfter  = wordSet("constraint violation violated violates index key")
	// otherSubjects make a text about something else than the element:
	// JSON members given twice, parameters, headers, organizations and
	// their links.
	otherSubjects = wordSet("member members property properties json attribute attributes parameter parameters param params header headers " +
		"organization organizations organisation organisations organização organizações organizacao organizacoes organización organizaciones organizacion " +
		"link links linked")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// saysExists reports whether a text of the platform says that an element
// exists; see ErrDuplicate.
func saysExists(text string) bool {
	if len(text) > maxReadForExists {
		text = text[:maxReadForExists]
	}
	words := splitWords(stripQuoted(text))
	for _, w := range words {
		if otherSubjects[w] {
			return false
		}
	}
	near := func(i, from, to int, set map[string]bool) bool {
		for j := max(i+from, 0); j <= min(i+to, len(words)-1); j++ {
			if j != i && set[words[j]] {
				return true
			}
		}
		return false
	}
	for i, w := range words {
		switch {
		case duplicateWords[w]:
			// "duplicate field" is a JSON member given twice.
			if i+1 < len(words) && (words[i+1] == "field" || words[i+1] == "fields") {
				continue
			}
			return true
		case alreadyWords[w] && near(i, 1, 3, alreadyWhat):
			return true
		case existsWords[w] && !near(i, -3, -1, negations):
			return true
		case w == "unique" && (near(i, -1, -1, uniqueBefore) || near(i, 1, 1, uniqueAfter)):
			return true
		}
	}
	return false
}

// closingQuotes are the quotes stripQuoted knows, by their opening one.
var closingQuotes = map[rune]rune{'"': '"', '`': '`', '\'': '\'', '“': '”', '‘': '’', '«': '»'}

// stripQuoted leaves out what text quotes: values, such as the code of
// the element ("DUPLICATE-1" is not a duplicate), and names. A single
// quote counts only where it starts a word and ends one, so that
// "doesn't" is left as it is.
func stripQuoted(text string) string {
	runes := []rune(text)
	wordRune := func(i int) bool {
		return i >= 0 && i < len(runes) && (unicode.IsLetter(runes[i]) || unicode.IsDigit(runes[i]))
	}
	var b strings.Builder
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		closing, ok := closingQuotes[r]
		if ok && (r == '\'' || r == '‘') && wordRune(i-1) {
			ok = false
		}
		end := -1
		for j := i + 1; ok && j < len(runes); j++ {
			if runes[j] == closing && !((closing == '\'' || closing == '’') && wordRune(j+1)) {
				end = j
				break
			}
		}
		if end < 0 {
			b.WriteRune(r)
			continue
		}
		b.WriteRune(' ')
		i = end
	}
	return b.String()
}

// splitWords cuts text into lower-case words of letters and digits, at
// every other character and where camel case starts a word:
// "WBS_ELEMENT_ALREADY_EXISTS", "ElementAlreadyExists" and
// "already-exists" all hold "already" and "exists".
func splitWords(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(text)
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			// elementCode → element Code; WBSElement → WBS Element.
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// newAPIError reads a non-2xx response body (at most maxErrorBody bytes of
// it) into an APIError. redact removes the client's secrets from any text
// the server sent back.
func newAPIError(method, path string, status int, header http.Header, body []byte, redact func(string) string) *APIError {
	e := &APIError{StatusCode: status, Method: method, Path: path}
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") {
		var p Problem
		if json.Unmarshal([]byte(trimmed), &p) == nil {
			if p.Type != "" || p.Title != "" || p.Status != 0 || p.Detail != "" || p.Instance != "" {
				e.Problem = &p
				p.Type, p.Title, p.Detail, p.Instance = redact(p.Type), redact(p.Title), redact(p.Detail), redact(p.Instance)
				p.Extensions = redactExtensions(p.Extensions, redact)
				for i, fe := range p.FieldErrors {
					p.FieldErrors[i] = FieldError{Field: redact(fe.Field), Message: redact(fe.Message)}
				}
			}
			for _, k := range []string{"message", "error", "error_description"} {
				var s string
				if json.Unmarshal(p.Extensions[k], &s) == nil && s != "" {
					e.Message = redact(s)
					break
				}
			}
			var id string
			if json.Unmarshal(p.Extensions["correlationId"], &id) == nil {
				e.CorrelationID = redact(id)
			}
		}
	}
	if e.Problem == nil && e.Message == "" && trimmed != "" {
		// Scrubbed before it is cut: a secret across the cut would
		// otherwise be left in part.
		e.Body = oneLine(redact(trimmed), 200)
	}
	if e.CorrelationID == "" {
		e.CorrelationID = redact(correlationIDFromHeader(header))
	}
	return e
}

// redactExtensions returns the extensions with redact applied to every
// name and every string within, however deep: a server that echoes a
// request may put the token anywhere.
func redactExtensions(ext map[string]json.RawMessage, redact func(string) string) map[string]json.RawMessage {
	if len(ext) == 0 {
		return ext
	}
	out := make(map[string]json.RawMessage, len(ext))
	for k, raw := range ext {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		b, err := json.Marshal(redactValue(v, redact))
		if err != nil {
			continue
		}
		out[redact(k)] = b
	}
	return out
}

func redactValue(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		for i := range v {
			v[i] = redactValue(v[i], redact)
		}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[redact(k)] = redactValue(e, redact)
		}
		return m
	}
	return v
}

// correlationHeaders are the headers a correlation id is read from.
var correlationHeaders = []string{"X-Correlation-Id", "Correlation-Id", "X-Request-Id"}

func correlationIDFromHeader(h http.Header) string {
	for _, k := range correlationHeaders {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// oneLine folds white space and cuts s to at most n runes of valid UTF-8.
func oneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n]) + "…"
	}
	return s
}

// Violation is one broken limit of a request.
type Violation struct {
	// Field is the JSON name of the field, with an index for list items:
	// "wbsElementCode", "businessOrganizations[2].entityType".
	Field string `json:"field"`
	// Limit states the rule, such as "at most 100 characters".
	Limit string `json:"limit"`
	// Message says how the value breaks it, such as "is 104 characters long".
	Message string `json:"message"`
}

func (v Violation) String() string { return v.Field + ": " + v.Message + " (limit: " + v.Limit + ")" }

// ValidationError lists every limit of the spec that a request breaks. The
// SDK returns it before sending anything.
type ValidationError struct {
	// Operation names the call, such as "create WBS element".
	Operation string
	// Code is the element code the request is about, where it has one.
	Code       string
	Violations []Violation
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	sort.Strings(parts)
	subject := e.Operation
	if e.Code != "" {
		subject += " " + strconv.Quote(e.Code)
	}
	return subject + ": invalid request: " + strings.Join(parts, "; ")
}

// Is matches ErrValidation.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// OutcomeUnknownError is returned when a request that is not safe to repeat
// (a create, a flow execution) failed in a way that leaves open whether the
// platform acted on it.
type OutcomeUnknownError struct {
	// Op names the call, such as "create WBS element".
	Op string
	// Code is the element code of a create, empty for other calls.
	Code string
	// Err is the failure: a transport error or an *APIError.
	Err error
}

func (e *OutcomeUnknownError) Error() string {
	subject := e.Op
	if e.Code != "" {
		subject += " " + strconv.Quote(e.Code)
	}
	return subject + ": outcome unknown, check the platform's state before retrying: " + e.Err.Error()
}

// Is matches ErrOutcomeUnknown.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns the underlying failure.
func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// BadResponseError is a 2xx answer whose body is not what the operation
// returns: an empty body, an HTML page (often a proxy's), JSON cut short or
// of another shape, or a body larger than the SDK reads. For a create or a
// flow execution it comes inside an *OutcomeUnknownError, since the
// platform may have acted on the request all the same. It is not retried.
type BadResponseError struct {
	// Method and Path name the request (the path without host or query).
	Method string
	Path   string
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// ContentType is the response's Content-Type header.
	ContentType string
	// Reason says what is wrong with the body, without quoting it (it may
	// hold a token).
	Reason string
	// CorrelationID is the correlation id of the response headers, where
	// there is one.
	CorrelationID string
}

func (e *BadResponseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s, but the answer is unreadable: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Reason)
	if e.ContentType != "" {
		b.WriteString(" (Content-Type " + oneLine(e.ContentType, 100) + ")")
	}
	if e.CorrelationID != "" {
		b.WriteString(" (correlation id " + oneLine(e.CorrelationID, 100) + ")")
	}
	return b.String()
}

// Is matches ErrBadResponse.
func (e *BadResponseError) Is(target error) bool { return target == ErrBadResponse }
