package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// A server may echo the client secret or the access token anywhere in an
// answer: in the headers that name it, in a member of a JSON body that is
// no problem document, in an HTML page where a cut falls, escaped as a
// JSON encoder escapes it. Neither ever shows, whole or in part, in the
// error a call returns, in its fields, or in the debug log.
func TestEchoedSecretsNeverShow(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		// Secrets with the characters encoders escape.
		chars := rapid.SampledFrom([]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+<>&\"\\-_."))
		secret := "s" + string(rapid.SliceOfN(chars, 23, 40).Draw(rt, "secret"))
		token := "t" + string(rapid.SliceOfN(chars, 31, 60).Draw(rt, "token"))
		echoed := rapid.SampledFrom([]string{"secret", "token"}).Draw(rt, "echoed")
		value := map[string]string{"secret": secret, "token": token}[echoed]
		where := rapid.SampledFrom([]string{"X-Correlation-Id", "X-Request-Id", "correlationId member", "message member",
			"html", "problem detail"}).Draw(rt, "where")
		form := rapid.SampledFrom([]string{"as it is", "JSON-escaped", `/ as \/`}).Draw(rt, "form")
		if form == "as it is" && strings.Contains(where, "member") || where == "problem detail" && form == "as it is" {
			form = "JSON-escaped" // as a JSON encoder writes it
		}
		status := rapid.SampledFrom([]int{400, 403, 409, 500, 200}).Draw(rt, "status")
		pad := rapid.IntRange(150, 260).Draw(rt, "padding before it")

		shown := value
		switch form {
		case "JSON-escaped":
			b, _ := json.Marshal(value)
			shown = string(b[1 : len(b)-1])
		case `/ as \/`:
			b, _ := json.Marshal(value)
			shown = strings.ReplaceAll(string(b[1:len(b)-1]), "/", `\/`)
		}
		answer := func(w http.ResponseWriter) {
			switch where {
			case "X-Correlation-Id", "X-Request-Id":
				w.Header().Set(where, shown)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				w.Write([]byte(`{"message":"no"}`))
			case "html":
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(status)
				fmt.Fprintf(w, "<html><body>%s %s</body></html>", strings.Repeat("x ", pad/2), shown)
			case "correlationId member", "message member":
				name := map[string]string{"correlationId member": "correlationId", "message member": "message"}[where]
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"%s":"%s"}`, name, shown)
			case "problem detail":
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"title":"Bad","status":%d,"detail":"%s %s"}`, status, strings.Repeat("y", pad), shown)
			}
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/auth/tokens" && echoed == "token" {
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"accessToken": token, "expiresIn": 3600})
				return
			}
			answer(w)
		}))
		defer srv.Close()
		var log bytes.Buffer
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials("integrationhub-1", secret),
			sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1}),
			sdk.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		if err != nil {
			rt.Fatal(err)
		}
		_, err = c.WBSElements.List(context.Background(), nil)
		if err == nil {
			rt.Fatal("the call succeeded")
		}
		texts := map[string]string{"Error()": err.Error(), "the debug log": log.String()}
		var apiErr *sdk.APIError
		if errors.As(err, &apiErr) {
			texts["APIError.Body"], texts["APIError.CorrelationID"], texts["APIError.Message"] = apiErr.Body, apiErr.CorrelationID, apiErr.Message
			if apiErr.Problem != nil {
				texts["Problem.Detail"] = apiErr.Problem.Detail
			}
		}
		var badErr *sdk.BadResponseError
		if errors.As(err, &badErr) {
			texts["BadResponseError.CorrelationID"] = badErr.CorrelationID
		}
		for name, text := range texts {
			for _, s := range []string{value, shown} {
				// Any 12 characters of it, not only the whole.
				for i := 0; i+12 <= len(s); i++ {
					if strings.Contains(text, s[i:i+12]) {
						rt.Fatalf("%s shows %q of the %s echoed in %s (%s):\n%s", name, s[i:i+12], echoed, where, form, text)
					}
				}
			}
		}
	})
}
