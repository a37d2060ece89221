package sdk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Token is an access token and the time it stops being valid.
type Token struct {
	AccessToken string    `json:"accessToken"`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// String hides the token itself, so that printing a Token never leaks it.
func (t Token) String() string {
	return "Token{AccessToken: [REDACTED], ExpiresAt: " + t.ExpiresAt.Format(time.RFC3339) + "}"
}

// LogValue hides the token itself in slog records.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(slog.String("access_token", "[REDACTED]"), slog.Time("expires_at", t.ExpiresAt))
}

// Valid reports whether the token is set and unexpired at now.
func (t Token) Valid(now time.Time) bool {
	return t.AccessToken != "" && now.Before(t.ExpiresAt)
}

// TokenSource supplies access tokens, for a credential the SDK does not
// exchange itself: a secret store such as Vault, a workload identity, or
// an x/oauth2 token source. Token returns a token valid for at least the
// next request; the source decides when to renew it, and may be called by
// many goroutines at once. The method has the shape of
// golang.org/x/oauth2's TokenSource, with a context; TokenSourceFunc
// adapts one:
//
//	sdk.TokenSourceFunc(func(ctx context.Context) (sdk.Token, error) {
//		t, err := oauthSource.Token()
//		if err != nil {
//			return sdk.Token{}, err
//		}
//		return sdk.Token{AccessToken: t.AccessToken, ExpiresAt: t.Expiry}, nil
//	})
//
// *Client is one, with the SDK's own exchange (WithCredentials): its
// tokens can serve another client of the same platform. A source that
// can replace a token the platform rejects implements
// RejectingTokenSource too, to be told of the rejection.
type TokenSource interface {
	Token(ctx context.Context) (Token, error)
}

// RejectingTokenSource is a TokenSource that is told of a token the
// platform rejected (answered 401 to), so that its next Token is another.
// A client with WithTokenSource tells such a source once for each token
// rejected, however many calls the platform rejected with it, and asks it
// for another token where it would otherwise return ErrUnauthorized; one
// call asks for at most three new tokens so, and a source that hands out
// a rejected token again ends the call with ErrUnauthorized.
// The client waits for TokenRejected before it asks the source again, so
// it should return at once rather than fetch the next token. *Client is
// one: a client used as another's source renews its token when the other
// is refused.
type RejectingTokenSource interface {
	TokenSource
	TokenRejected(tok Token)
}

// TokenSourceFunc is a function that serves as a TokenSource.
type TokenSourceFunc func(ctx context.Context) (Token, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (Token, error) { return f(ctx) }

// TokenCacheKey names the tokens of one credential on one platform.
type TokenCacheKey struct {
	BaseURL  string
	ClientID string
	// SecretDigest is SecretDigest of the client secret the token was
	// issued for, so that a changed secret is never masked by a token of
	// the old one. It is never the secret itself.
	SecretDigest string
}

// SecretDigest returns a digest of a client secret for a TokenCacheKey:
// the hex SHA-256 of the secret under a fixed label, of which the first 16
// bytes are kept. It tells two secrets apart and does not reveal either.
func SecretDigest(secret string) string {
	sum := sha256.Sum256([]byte("wbsctl token cache key\x00" + secret))
	return hex.EncodeToString(sum[:16])
}

// TokenCache keeps access tokens between clients, for instance in a file so
// that a series of processes makes one token exchange instead of one each.
// Get returns ok == false when it holds nothing for the key. Errors of a
// cache are logged and otherwise ignored: the client then exchanges a token.
// Implementations must be safe for concurrent use.
type TokenCache interface {
	Get(ctx context.Context, key TokenCacheKey) (tok Token, ok bool, err error)
	Put(ctx context.Context, key TokenCacheKey, tok Token) error
}

// NewMemoryTokenCache returns a TokenCache that lives in memory; share one
// between clients to share their tokens.
func NewMemoryTokenCache() TokenCache { return &memoryTokenCache{m: map[TokenCacheKey]Token{}} }

type memoryTokenCache struct {
	mu sync.Mutex
	m  map[TokenCacheKey]Token
}

func (c *memoryTokenCache) Get(_ context.Context, k TokenCacheKey) (Token, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[k]
	return t, ok, nil
}

func (c *memoryTokenCache) Put(_ context.Context, k TokenCacheKey, t Token) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = t
	return nil
}

const (
	// maxRefreshWindow bounds how long before expiry a token is renewed.
	maxRefreshWindow = 60 * time.Second
	// fallbackLifetime is assumed when the exchange gives no usable
	// lifetime (expiresIn missing, zero, negative or unreadable, and no
	// JWT exp): the token is renewed early, and a 401 renews it anyway.
	fallbackLifetime = 60 * time.Second
	// maxLifetime bounds a lifetime claimed by the platform.
	maxLifetime = 24 * time.Hour
	// minLifetime is the shortest lifetime a token is held for, so that a
	// lifetime of a millisecond does not cost an exchange per call; a 401
	// renews a token that really lived less.
	minLifetime = time.Second
)

// exchangeTokenSource trades a client id and secret for a new access
// token on every call: the client-credentials exchange of spec 5.3, sent
// through the client's request path (send).
type exchangeTokenSource struct {
	clientID, clientSecret string
	url                    *url.URL
	send                   func(context.Context, *request) (*response, error)
	now                    func() time.Time
}

func (s *exchangeTokenSource) Token(ctx context.Context) (Token, error) {
	body, err := json.Marshal(struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	}{s.clientID, s.clientSecret})
	if err != nil {
		return Token{}, err
	}
	req := &request{
		op: opToken, method: "POST", url: s.url,
		body: body, safe: true, noAuth: true, maxBody: maxSmallBody,
	}
	resp, err := s.send(ctx, req)
	if err != nil {
		return Token{}, err
	}
	tok, err := parseTokenReply(resp.body, s.now())
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", opToken, badResponse(req, resp.status, resp.header, err))
	}
	return tok, nil
}

// tokenEndpoint is the URL of the token exchange (spec 5.3) below base.
func tokenEndpoint(base *url.URL) *url.URL { return endpointBelow(base, "v1", "auth", "tokens") }

// TokenPath returns the path of the token exchange (POST, spec 5.3) below
// the path of a base URL, as the requests a Client sends carry it in
// URL.Path: a RoundTripper given with WithHTTPClient tells the exchange
// from the other calls by it, to count them for instance.
func TokenPath(basePath string) string {
	return tokenEndpoint(&url.URL{Path: strings.TrimRight(basePath, "/")}).Path
}

// tokenSources composes the client's token source from its credential:
// the exchange of WithCredentials behind the TokenCache and a reusing
// source, the TokenSource of WithTokenSource, or the token of
// WithAccessToken. exchange is the credential's exchange, nil without
// one.
func (c *Client) tokenSources() (t *tokens, exchange *exchangeTokenSource) {
	switch {
	case c.clientID != "":
		exchange = &exchangeTokenSource{
			clientID: c.clientID, clientSecret: c.clientSecret,
			url: tokenEndpoint(c.baseURL), send: c.send, now: c.now,
		}
		key := TokenCacheKey{BaseURL: c.baseURL.String(), ClientID: c.clientID, SecretDigest: SecretDigest(c.clientSecret)}
		cached := &cachedTokenSource{cache: c.tokenCache, key: key, base: exchange, now: c.now, logError: c.logTokenError}
		return &tokens{src: &reuseTokenSource{base: cached, now: c.now, logError: c.logTokenError}}, exchange
	case c.source != nil:
		return &tokens{src: &givenTokenSource{src: c.source}}, nil
	}
	return &tokens{src: staticTokenSource{tok: Token{AccessToken: c.staticToken}}}, nil
}

// logTokenError logs an error of the token sources that no caller sees,
// redacted.
func (c *Client) logTokenError(ctx context.Context, level slog.Level, msg string, err error, attrs ...slog.Attr) {
	c.logger.LogAttrs(ctx, level, msg, append([]slog.Attr{slog.String("error", c.redact(err.Error()))}, attrs...)...)
}

// parseTokenReply reads the token exchange's answer. expiresIn is taken as
// seconds whether it is a JSON number or a numeric string; when the token
// is a JWT with an exp claim, the earlier of the two wins. The JWT is read,
// never verified: the platform verifies it.
func parseTokenReply(body []byte, now time.Time) (Token, error) {
	var reply struct {
		AccessToken string          `json:"accessToken"`
		ExpiresIn   json.RawMessage `json:"expiresIn"`
	}
	if err := decodeObject(body, &reply); err != nil {
		return Token{}, err
	}
	if reply.AccessToken == "" {
		return Token{}, errors.New("the answer holds no accessToken")
	}
	var expires time.Time
	if s, ok := seconds(reply.ExpiresIn); ok && s > 0 {
		expires = now.Add(min(fromSeconds(s), maxLifetime))
	}
	// An exp already past says more of the clocks than of the token; the
	// platform's 401 settles that case.
	if exp, ok := jwtExpiry(reply.AccessToken); ok && exp.After(now) && (expires.IsZero() || exp.Before(expires)) {
		expires = exp
	}
	if expires.IsZero() {
		expires = now.Add(fallbackLifetime)
	}
	if limit := now.Add(maxLifetime); expires.After(limit) {
		expires = limit
	}
	if floor := now.Add(minLifetime); expires.Before(floor) {
		expires = floor
	}
	return Token{AccessToken: reply.AccessToken, ExpiresAt: expires}, nil
}

// seconds reads a JSON number or a string holding one; NaN and the
// infinities are not numbers of seconds.
func seconds(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	var s string
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
	} else {
		s = string(raw)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// fromSeconds converts seconds to a Duration, saturating beyond the
// range of a Duration (about 292 years) where a plain conversion would
// overflow, on amd64 into a large negative value.
func fromSeconds(s float64) time.Duration {
	const limit = float64(math.MaxInt64) / float64(time.Second)
	switch {
	case s >= limit:
		return math.MaxInt64
	case s <= -limit:
		return math.MinInt64
	}
	return time.Duration(s * float64(time.Second))
}

// jwtExpiry reads the exp claim of a JWT without verifying it.
func jwtExpiry(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp json.RawMessage `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, false
	}
	s, ok := seconds(claims.Exp)
	if !ok || s <= 0 || s > 1e11 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(s * 1000)), true
}

// jsonErrorText describes a JSON decoding error without quoting the input,
// which may hold a token.
func jsonErrorText(err error) string {
	// Pages are decoded by go-json-experiment's encoding/json (v1), whose
	// errors are its own types of the same fields (Go's own from Go
	// 1.27, where encoding/json is json/v2's).
	var syn *json.SyntaxError
	var syn1 *jsonv1.SyntaxError
	var typ *json.UnmarshalTypeError
	var typ1 *jsonv1.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return syntaxText(syn.Error(), syn.Offset)
	case errors.As(err, &syn1):
		return syntaxText(syn1.Error(), syn1.Offset)
	case errors.As(err, &typ):
		return typeText(typ.Field)
	case errors.As(err, &typ1):
		return typeText(typ1.Field)
	}
	return "invalid JSON"
}

// typeText is a member of the wrong type at path, as an error says it.
// A path that names an item of a list by its index (0.isActive, as
// json/v2's decoder gives it, under go-json-experiment's encoding/json or
// Go's own from Go 1.27) names the item.
func typeText(path string) string {
	if item, member, _ := strings.Cut(path, "."); item != "" && strings.Trim(item, "0123456789") == "" {
		if member == "" {
			return fmt.Sprintf("item %s has the wrong type", item)
		}
		return fmt.Sprintf("member %q of item %s has the wrong type", member, item)
	}
	return fmt.Sprintf("member %q has the wrong type", path)
}

// syntaxText is a syntax error of JSON, msg at offset, as an error says
// it.
func syntaxText(msg string, offset int64) string {
	if msg == "unexpected end of JSON input" {
		return fmt.Sprintf("the JSON is cut short after %d bytes", offset)
	}
	return fmt.Sprintf("invalid JSON at byte %d", offset)
}

// TokenRejected drops tok, which the platform rejected for a client that
// uses c as its TokenSource: c's next Token is another. It makes *Client
// a RejectingTokenSource.
func (c *Client) TokenRejected(tok Token) { c.auth.reject(tok) }

// Token returns a valid access token of the client, from memory, the
// TokenCache, or a new exchange. With WithAccessToken it returns that token
// and an ExpiresAt of zero (unknown); with WithTokenSource, the source's.
// It makes *Client a TokenSource.
func (c *Client) Token(ctx context.Context) (Token, error) {
	tok, err := c.auth.token(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", opToken, err)
	}
	return tok, nil
}

// ExchangeToken trades the client's credential for a new access token now,
// whatever the client holds or its TokenCache has, to prove the
// credential (as wbsctl auth login does). The new token is then held and
// cached like any other. A client made with WithAccessToken or
// WithTokenSource has no credential to exchange.
func (c *Client) ExchangeToken(ctx context.Context) (Token, error) {
	if c.exchange == nil {
		return Token{}, fmt.Errorf("%s: no client credentials to exchange", opToken)
	}
	tok, err := c.exchange.Token(ctx)
	if err == nil {
		err = c.auth.keep(ctx, tok)
	}
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", opToken, err)
	}
	return tok, nil
}
