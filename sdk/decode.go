// Reading the bodies of 2xx answers without quoting them in errors.

package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"
)

// badResponse describes a 2xx answer to req whose body is not the
// operation's answer.
func badResponse(req *request, status int, header http.Header, reason error) *BadResponseError {
	return &BadResponseError{
		Method: req.method, Path: req.url.Path, StatusCode: status,
		ContentType: header.Get("Content-Type"), Reason: reason.Error(),
		CorrelationID: correlationIDFromHeader(header),
	}
}

// decodeJSON decodes body, the JSON of a 2xx answer, into v. Its error
// says what is wrong with the body without quoting it, since it may hold a
// token.
func decodeJSON(body []byte, v any) error {
	if err := jsonPrelude(body, false); err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errors.New(jsonErrorText(err))
	}
	return nil
}

// decodeObject is decodeJSON for an answer that must be a JSON object.
func decodeObject(body []byte, v any) error {
	if err := jsonPrelude(body, true); err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// decodeAck reads the correlationId of an acknowledgement, which must be
// a JSON object. A correlationId that is not a string is left out: the
// object still acknowledges the change.
func decodeAck(body []byte, ack *Acknowledgement) error {
	if id, ok := plainAck(body); ok {
		ack.CorrelationID = id
		return nil
	}
	// The last correlationId member wins, as encoding/json has it; one
	// that is not a string is left out.
	var members struct {
		CorrelationID json.RawMessage `json:"correlationId"`
	}
	if err := decodeObject(body, &members); err != nil {
		return err
	}
	_ = json.Unmarshal(members.CorrelationID, &ack.CorrelationID)
	return nil
}

// plainAck reads an acknowledgement shaped as the reference server and the
// spec show it, {"correlationId":"…"} with a value that needs no
// unescaping, without the reflection of json.Unmarshal: a bulk load reads
// one for every change. Any other body, however valid, is left to
// json.Unmarshal (ok is false).
func plainAck(body []byte) (id string, ok bool) {
	const prefix, suffix = `{"correlationId":"`, `"}`
	body = bytes.Trim(body, " \t\r\n") // JSON's white space, no other
	if len(body) < len(prefix)+len(suffix) || !bytes.HasPrefix(body, []byte(prefix)) || !bytes.HasSuffix(body, []byte(suffix)) {
		return "", false
	}
	value := body[len(prefix) : len(body)-len(suffix)]
	for _, c := range value {
		if c == '"' || c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(value) {
		return "", false
	}
	return string(value), true
}

// jsonPrelude tells, from its first byte, a body that cannot be the JSON
// (of an object, when object is set) an answer must be: empty, HTML, or
// something else.
func jsonPrelude(body []byte, object bool) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return errors.New("the body is empty")
	case trimmed[0] == '<':
		return errors.New("the body is HTML or XML, not JSON")
	case !strings.ContainsRune(`{["-0123456789tfn`, rune(trimmed[0])):
		return errors.New("the body is not JSON")
	case object && trimmed[0] != '{' && json.Valid(trimmed):
		return errors.New("the body is JSON but not an object")
	}
	return nil
}
