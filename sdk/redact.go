// Keeping the client secret and the tokens out of errors and logs.

package sdk

import "strings"

// redact removes the client secret and any access token the client holds
// from text, so that an echo of them by a server never reaches an error or
// a log.
func (c *Client) redact(s string) string {
	for _, secret := range c.secrets() {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

func (c *Client) redactErr(err error) error {
	msg := err.Error()
	if r := c.redact(msg); r != msg {
		return redactedError{msg: r, err: err}
	}
	return err
}

func (c *Client) secrets() []string {
	return append([]string{c.clientSecret, c.staticToken}, c.auth.knownTokens()...)
}

// redactedError keeps the chain of an error for errors.Is while replacing
// its text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
