package statestore

import (
	"context"
	"strings"
	"testing"
)

// A --state URL may carry an endpoint's credentials in its query or its
// user part: the store's name in messages, and the error of a URL that
// cannot be opened, show neither (only "?…" says a query was left out).
func TestStateURLsShowNoCredentials(t *testing.T) {
	for _, state := range []string{
		"s3://id:pw-SECRET@bucket/prod/wbs.state?region=eu-SECRET&endpoint=http://id:pw-SECRET@127.0.0.1:1",
		"s3://bucket/prod/wbs.state?endpoint=http://id:pw-SECRET@127.0.0.1:1&no_such_option=SECRET",
		"s3://id:pw-SECRET@bucket/prod/wbs.state?no_such_option=SECRET",
		"gs://id:pw-SECRET@bucket/prod/wbs.state?x=SECRET",
	} {
		s, err := Open(context.Background(), state)
		var shown []string
		if err != nil {
			shown = append(shown, err.Error())
		} else {
			shown = append(shown, s.String())
			s.Close()
		}
		for _, text := range shown {
			if strings.Contains(text, "SECRET") || strings.Contains(text, "id:") {
				t.Errorf("--state %s is shown as %q, credentials and all", state, text)
			}
			if !strings.Contains(text, "bucket/prod/wbs.state?…") {
				t.Errorf("--state %s is shown as %q, want it named by bucket and key, its query as ?…", state, text)
			}
		}
	}
}
