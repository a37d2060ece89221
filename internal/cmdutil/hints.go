package cmdutil

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/sdk"
)

// nextStep is the hint of an error a first use meets, where the message
// itself does not say what to do: a refused credential, a platform that
// does not answer, an element that is not there, an action not allowed.
func nextStep(err error) string {
	var apiErr *sdk.APIError
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, sdk.ErrInvalidCredentials):
		return `the platform refused the client id and secret: run "wbsctl auth login" again, or check WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET ("wbsctl auth status" shows which are used)`
	case errors.Is(err, sdk.ErrForbidden):
		return `this integration may not do this: check its permissions on the platform, or the profile in use ("wbsctl auth status")`
	case errors.Is(err, sdk.ErrNotFound) && errors.As(err, &apiErr):
		if code, ok := elementOf(apiErr.Path); ok {
			return "no element has the code " + strconv.Quote(code) + `: "wbsctl element list --code '` + globPrefix(code) + `*'" lists the codes like it; "wbsctl element create" makes one`
		}
	case errors.As(err, &dnsErr), errors.As(err, &opErr) && opErr.Op == "dial":
		return `no platform answered at the base URL: check --base-url, WBSCTL_BASE_URL or the profile ("wbsctl auth status"); for a first try, "wbsctl serve" runs one`
	}
	return ""
}

// elementOf returns the code of a path /…/wbs-elements/CODE[/…].
func elementOf(path string) (string, bool) {
	_, rest, ok := strings.Cut(path, "/wbs-elements/")
	if !ok {
		return "", false
	}
	seg, _, _ := strings.Cut(rest, "/")
	code, err := url.PathUnescape(seg)
	return code, err == nil && code != ""
}

// globPrefix is the start of code, at most its first 6 characters, with
// the characters a glob reads as its own left out after them.
func globPrefix(code string) string {
	r := []rune(code)
	if len(r) > 6 {
		r = r[:6]
	}
	s := string(r)
	if i := strings.IndexAny(s, `*?[\'`); i >= 0 {
		s = s[:i]
	}
	return s
}
