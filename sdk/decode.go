// Reading the bodies of 2xx answers without quoting them in errors.

package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
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
// object still acknowledges the change. The last correlationId member
// wins, as encoding/json has it.
func decodeAck(body []byte, ack *Acknowledgement) error {
	var members struct {
		CorrelationID any `json:"correlationId"`
	}
	if err := decodeObject(body, &members); err != nil {
		return err
	}
	ack.CorrelationID, _ = members.CorrelationID.(string)
	return nil
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
