package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// FlowsService holds the integration execution call (spec 5.4).
type FlowsService struct{ c *Client }

// Execute runs the integration flowID with body as its JSON input and
// returns the platform's JSON answer as it came. A token of one integration
// may run only that integration: another flowID fails with ErrForbidden.
// An execution is not safe to repeat; when its outcome is unknown the error
// matches ErrOutcomeUnknown.
func (s *FlowsService) Execute(ctx context.Context, flowID string, body json.RawMessage) (json.RawMessage, error) {
	if flowID == "" {
		return nil, &ValidationError{Operation: opExecute, Violations: []Violation{{Field: "flowId", Limit: "at least 1 character", Message: "is empty"}}}
	}
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	if !json.Valid(body) {
		return nil, &ValidationError{Operation: opExecute, Violations: []Violation{{Field: "body", Limit: "a JSON document", Message: "is not valid JSON"}}}
	}
	req := &request{
		op: opExecute, method: "POST", body: ownBody(body),
		url: s.c.endpoint("integration-hub-api", "v1", "flows", flowID, "execute"),
	}
	resp, err := s.c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.body) == 0 {
		return json.RawMessage("null"), nil
	}
	var answer json.RawMessage
	if err := decodeJSON(resp.body, &answer); err != nil {
		// Perhaps a proxy's page: whether the flow ran is unknown.
		return nil, s.c.finalError(req, badResponse(req, resp.status, resp.header, err))
	}
	return answer, nil
}

// clientIDPrefix starts the client id of an integration's credential.
const clientIDPrefix = "integrationhub-"

// FlowIDFromClientID returns the integration ID of a client id of the form
// integrationhub-{flowId} (spec 5.2).
func FlowIDFromClientID(clientID string) (string, error) {
	id, ok := strings.CutPrefix(clientID, clientIDPrefix)
	if !ok || id == "" {
		return "", fmt.Errorf("client id %q is not of the form %s{flowId}", clientID, clientIDPrefix)
	}
	return id, nil
}
