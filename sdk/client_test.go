package sdk_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// An option that cannot be honoured is an error of NewClient, never
// silently ignored.
func TestOptionsThatFailSaySo(t *testing.T) {
	for name, tt := range map[string]struct {
		opts []sdk.Option
		want string
	}{
		"negative timeout":          {[]sdk.Option{sdk.WithTimeout(-1)}, "WithTimeout(-1ns)"},
		"zero timeout":              {[]sdk.Option{sdk.WithTimeout(0)}, "WithTimeout(0s)"},
		"two HTTP clients":          {[]sdk.Option{sdk.WithHTTPClient(&http.Client{}), sdk.WithHTTPClient(&http.Client{})}, "given twice"},
		"nil client":                {[]sdk.Option{sdk.WithHTTPClient(nil)}, "nil"},
		"nil client and negative":   {[]sdk.Option{sdk.WithHTTPClient(nil), sdk.WithTimeout(-5)}, "WithTimeout"},
		"negative attempts":         {[]sdk.Option{sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: -1})}, "MaxAttempts -1"},
		"negative delay":            {[]sdk.Option{sdk.WithRetryPolicy(sdk.RetryPolicy{MaxDelay: -time.Second})}, "MaxDelay -1s"},
		"two credentials":           {[]sdk.Option{sdk.WithCredentials("integrationhub-1", "s"), sdk.WithAccessToken("t")}, "give one credential"},
		"two credentials, reversed": {[]sdk.Option{sdk.WithAccessToken("t"), sdk.WithCredentials("integrationhub-1", "s")}, "give one credential"},
		"token source and token":    {[]sdk.Option{sdk.WithTokenSource(sdk.TokenSourceFunc(nil)), sdk.WithAccessToken("t")}, "give one credential"},
		"nil token source":          {[]sdk.Option{sdk.WithTokenSource(nil)}, "WithTokenSource"},
	} {
		c, err := sdk.NewClient("https://platform.example", tt.opts...)
		if err == nil || c != nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tt.want)
		}
	}
}

// NextOptions continues from a page that List returned by All's rules,
// whatever next the platform sends.
func TestPageNextOptions(t *testing.T) {
	for _, style := range []wbstest.NextStyle{wbstest.NextURL, wbstest.NextOffset, wbstest.NextNull, wbstest.NextAbsent} {
		t.Run(style.String(), func(t *testing.T) {
			srv := wbstest.NewServer(wbstest.WithNextStyle(style))
			defer srv.Close()
			for i := range 23 {
				srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i)})
			}
			c := newClient(t, srv)
			var codes []string
			opts := &sdk.ListOptions{PageSize: 10}
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("NextOptions never ended")
				}
				page, err := c.WBSElements.List(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				for _, el := range page.Data {
					codes = append(codes, el.Code)
				}
				next, ok := page.NextOptions()
				if !ok {
					break
				}
				opts = next
			}
			if len(codes) != 23 || codes[22] != "E22" {
				t.Fatalf("%d codes: %v", len(codes), codes)
			}
		})
	}
}
