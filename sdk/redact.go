// Keeping the client secret and the tokens out of errors and logs.

package sdk

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// redacted replaces a secret in text.
const redacted = "[REDACTED]"

// redact removes the client secret and any access token the client holds
// from text, so that an echo of them by a server never reaches an error or
// a log. Only whole values are replaced, where they stand (a header's
// value, a JSON string, a word of a message), never letters inside a word:
// a short secret must not turn "exit" into "exi[REDACTED]t". A short one
// (below shortSecret characters) is also left inside a compound such as
// HTTP/1.1, 1.5 or /v1/x, and, made of letters only, in a sentence where
// it reads as a word ("the secret is wrong"), unless it stands as a
// value: after =, : or a quote, after Bearer, or at the start of the text.
func (c *Client) redact(s string) string {
	for _, secret := range c.secrets() {
		s = redactWhole(s, secret)
	}
	return s
}

// shortSecret is the length below which a secret could be taken for a
// piece of ordinary text. Issued tokens and real client secrets are far
// longer, and are replaced wherever they stand apart from a word.
const shortSecret = 8

// redactWhole replaces each occurrence of secret in s that stands as a
// value of its own (standsAlone).
func redactWhole(s, secret string) string {
	var b strings.Builder
	last := 0 // s[:last] is written to b
	for i := 0; ; {
		j := strings.Index(s[i:], secret)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(secret)
		if standsAlone(s, start, end) {
			b.WriteString(s[last:start])
			b.WriteString(redacted)
			last, i = end, end
			continue
		}
		i = start + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// standsAlone reports whether s[start:end] is a value of its own rather
// than part of a word: not run together with a letter, digit or
// underscore on a side where the secret itself begins or ends with one.
// A short secret must also not be part of a compound, and a short word
// must stand where a value does.
func standsAlone(s string, start, end int) bool {
	secret := s[start:end]
	first, _ := utf8.DecodeRuneInString(secret)
	lastRune, _ := utf8.DecodeLastRuneInString(secret)
	if before, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && isWordRune(first) && isWordRune(before) {
		return false
	}
	if after, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && isWordRune(lastRune) && isWordRune(after) {
		return false
	}
	if utf8.RuneCountInString(secret) >= shortSecret || valuePosition(s[:start]) {
		// Where a value stands (after =, :, a quote or Bearer), even
		// one a compound goes on from: the password of id:pw@host.
		return true
	}
	if joinedBefore(s[:start]) || joinedAfter(s[end:]) {
		return false
	}
	// A short word of letters alone, in prose, is a word.
	return strings.IndexFunc(secret, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0
}

// joiners join the pieces of a compound: HTTP/1.1, 1.5, a-b, x@y, 50%.
const joiners = "./-+%@~"

// joinedBefore reports whether text ends in a joiner after a word rune.
func joinedBefore(text string) bool {
	j, n := utf8.DecodeLastRuneInString(text)
	w, _ := utf8.DecodeLastRuneInString(text[:len(text)-n])
	return n > 0 && strings.ContainsRune(joiners, j) && isWordRune(w)
}

// joinedAfter reports whether text starts with a joiner before a word
// rune.
func joinedAfter(text string) bool {
	j, n := utf8.DecodeRuneInString(text)
	w, _ := utf8.DecodeRuneInString(text[n:])
	return n > 0 && strings.ContainsRune(joiners, j) && isWordRune(w)
}

// valuePosition reports whether what follows text stands where a value
// does: at the start of the text or of a line, or after =, :, a quote or
// Bearer.
func valuePosition(text string) bool {
	text = strings.TrimRight(text, " \t")
	if text == "" || strings.HasSuffix(strings.ToLower(text), "bearer") {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune("=:\"'`\n", r)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (c *Client) redactErr(err error) error {
	msg := err.Error()
	if r := c.redact(msg); r != msg {
		return redactedError{msg: r, err: err}
	}
	return err
}

// secretForms holds the texts secrets derives, and the count of tokens
// the client had been issued (tokens.added) when it derived them.
type secretForms struct {
	mu      sync.Mutex
	derived bool
	added   int
	// forms is never changed, only replaced: callers range over it
	// without the lock.
	forms []string
}

// secrets returns the texts redact removes: the client secret, the static
// token and the tokens the client was issued, longest first (a secret
// inside a longer one would otherwise leave the rest of the longer one in
// the text). Each comes with the forms a JSON encoder may echo it in:
// escaped as a JSON string (quotes, backslashes, controls, and <, > and &
// as \u003c and the like, as Go's encoder writes them), and with / as \/
// (as PHP's and others' do). They are derived again only once the client
// was issued another token.
func (c *Client) secrets() []string {
	f := &c.secretForms
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.derived && f.added == c.auth.addedCount() {
		return f.forms
	}
	issued, added := c.auth.knownTokens()
	var out []string
	for _, s := range append([]string{c.clientSecret, c.staticToken}, issued...) {
		if s == "" {
			continue
		}
		out = append(out, s)
		b, _ := json.Marshal(s)
		escaped := string(b[1 : len(b)-1])
		for _, form := range []string{escaped, strings.ReplaceAll(s, "/", `\/`), strings.ReplaceAll(escaped, "/", `\/`)} {
			if !slices.Contains(out, form) {
				out = append(out, form)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	f.derived, f.added, f.forms = true, added, out
	return out
}

// redactedError keeps the chain of an error for errors.Is while replacing
// its text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
