package wbstest

import (
	"encoding/json"
	"net/http"
)

// problemTypeBase prefixes the type URI of every problem the server sends:
// problemTypeBase + "validation", "not-found", "unauthorized",
// "forbidden", "duplicate", "too-large", "malformed", "timeout",
// "internal", "unavailable".
const problemTypeBase = "https://wbstest.invalid/problems/"

// fieldError is one entry of the "errors" member of a validation problem.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// problem writes an application/problem+json answer whose status member
// equals the HTTP status.
func problem(w http.ResponseWriter, r *http.Request, corr string, status int, kind, title, detail string, errs []fieldError) {
	body := map[string]any{
		"type": problemTypeBase + kind, "title": title, "status": status,
		"detail": detail, "instance": r.URL.Path, "correlationId": corr,
	}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="wbstest"`)
	}
	writeProblem(w, status, body)
}

// writeProblem writes body as an application/problem+json answer.
func writeProblem(w http.ResponseWriter, status int, body map[string]any) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
