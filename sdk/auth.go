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
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
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
// tokens can serve another client of the same platform.
type TokenSource interface {
	Token(ctx context.Context) (Token, error)
}

// RejectingTokenSource is a TokenSource that is told of a token the
// platform rejected (answered 401), so that its next Token is another.
// A client with WithTokenSource tells such a source, and asks it once
// more, where it would otherwise return ErrUnauthorized. *Client is one:
// a client used as another's source renews its token when the other is
// refused.
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

// heldToken is the token in use and the times that govern its renewal.
type heldToken struct {
	Token
	// refreshAt is when a renewal starts in the background while the
	// token is still handed out.
	refreshAt time.Time
	// usableUntil is when the token is no longer handed out, a little
	// before ExpiresAt so that it does not expire in flight.
	usableUntil time.Time
}

// tokenSource hands out the client's access token: from memory, from the
// TokenCache, or from one exchange shared by all concurrent callers.
type tokenSource struct {
	c     *Client
	key   TokenCacheKey
	group singleflight.Group

	mu   sync.Mutex
	held heldToken
	// rejected are the tokens the platform answered 401 to, oldest
	// first: none is handed out again, from the cache or an exchange.
	// The oldest are forgotten past maxRejected: long expired by then.
	rejected []string
	// issued keeps the tokens this client saw, for redaction.
	issued []string
}

func newTokenSource(c *Client) *tokenSource {
	key := TokenCacheKey{BaseURL: c.baseURL.String(), ClientID: c.clientID}
	if c.clientSecret != "" {
		key.SecretDigest = SecretDigest(c.clientSecret)
	}
	return &tokenSource{c: c, key: key}
}

func (ts *tokenSource) renewable() bool { return ts.c.clientID != "" }

// canRenew reports whether a rejected token can be replaced: by an
// exchange, or by a source that is told of the rejection.
func (ts *tokenSource) canRenew() bool {
	_, told := ts.c.source.(RejectingTokenSource)
	return ts.renewable() || told
}

// reject drops tok after the platform rejected it, and tells the source
// of WithTokenSource when it listens. It reports whether the client needs
// a new token for it: false when another call already dropped tok, or
// holds a newer token.
func (ts *tokenSource) reject(tok Token) (renew bool) {
	renew = ts.invalidate(tok)
	if s, ok := ts.c.source.(RejectingTokenSource); ok {
		s.TokenRejected(tok)
		renew = true
	}
	return renew
}

// token returns a valid access token, exchanging one only when needed.
func (ts *tokenSource) token(ctx context.Context) (Token, error) {
	c := ts.c
	if !ts.renewable() {
		if c.source != nil {
			return ts.fromSource(ctx)
		}
		if c.staticToken == "" {
			return Token{}, errors.New("no credentials: set WithCredentials, WithAccessToken or WithTokenSource")
		}
		return Token{AccessToken: c.staticToken}, nil
	}
	now := c.now()
	ts.mu.Lock()
	held := ts.held
	ts.mu.Unlock()
	if held.AccessToken != "" && now.Before(held.usableUntil) {
		if !now.Before(held.refreshAt) {
			// Getting old but still good: renew in the background and
			// let this caller go on with the token it has.
			ts.group.DoChan("exchange", func() (any, error) {
				tok, err := ts.exchangeRecovered(context.WithoutCancel(ctx))
				if err != nil {
					ts.renewalFailed(ctx, err)
				}
				return tok, err
			})
		}
		return held.Token, nil
	}
	if tok, ok := ts.fromCache(ctx, now); ok {
		return tok, nil
	}
	// A token an exchange adopted can be rejected before the exchange's
	// waiters get it, by a caller that took it from ts.held: a waiter
	// then asks again rather than send a token already seen rejected.
	for range maxRenewals + 1 {
		ch := ts.group.DoChan("exchange", func() (any, error) {
			// The exchange outlives any one caller, so that a caller that
			// gives up does not fail the others waiting on it.
			return ts.exchangeRecovered(context.WithoutCancel(ctx))
		})
		select {
		case r := <-ch:
			if r.Err != nil {
				return Token{}, r.Err
			}
			if tok := r.Val.(Token); !ts.isRejected(tok.AccessToken) {
				return tok, nil
			}
		case <-ctx.Done():
			return Token{}, context.Cause(ctx)
		}
	}
	return Token{}, fmt.Errorf("%w: every new token was rejected before it could be used", ErrUnauthorized)
}

// isRejected reports whether the platform rejected tok.
func (ts *tokenSource) isRejected(tok string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Contains(ts.rejected, tok)
}

// fromSource asks the TokenSource of WithTokenSource for a token, and
// keeps it for redaction.
func (ts *tokenSource) fromSource(ctx context.Context) (Token, error) {
	tok, err := ts.c.source.Token(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("token source: %w", err)
	}
	if tok.AccessToken == "" {
		return Token{}, errors.New("token source: the token is empty")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.remember(tok.AccessToken)
	if slices.Contains(ts.rejected, tok.AccessToken) {
		// Told of the rejection, the source gave the same token again:
		// sending it would only be rejected again.
		return Token{}, fmt.Errorf("%w: the token source gave again a token the platform rejected", ErrUnauthorized)
	}
	return tok, nil
}

// fromCache adopts a valid token of the TokenCache that the platform has
// not rejected.
func (ts *tokenSource) fromCache(ctx context.Context, now time.Time) (Token, bool) {
	tok, ok, err := ts.c.tokenCache.Get(ctx, ts.key)
	if err != nil {
		ts.c.logger.LogAttrs(ctx, slog.LevelDebug, "token cache get failed", slog.String("error", ts.c.redact(err.Error())))
		return Token{}, false
	}
	if !ok || !tok.Valid(now) {
		return Token{}, false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	// The token in hand is the cache's too once it passes its usable
	// time: its margins were set from its whole lifetime, and computing
	// them again from the little it has left would hand it out to the
	// last second and never renew it.
	if slices.Contains(ts.rejected, tok.AccessToken) || tok.AccessToken == ts.held.AccessToken {
		return Token{}, false
	}
	h := hold(tok, now)
	if !now.Before(h.usableUntil) {
		return Token{}, false
	}
	ts.adopt(h)
	return tok, true
}

// maxRejected bounds the rejected tokens a client remembers.
const maxRejected = 64

// hold computes the renewal times of a token adopted at now: renewal
// starts min(60 s, 10 % of the remaining lifetime) before expiry, less up to
// a quarter of that window at random so that many processes sharing a
// credential do not renew at the same moment.
func hold(tok Token, now time.Time) heldToken {
	life := tok.ExpiresAt.Sub(now)
	window := min(maxRefreshWindow, life/10)
	jitter := time.Duration(0)
	if window > 4 {
		jitter = rand.N(window / 4)
	}
	return heldToken{
		Token:       tok,
		refreshAt:   tok.ExpiresAt.Add(-window - jitter),
		usableUntil: tok.ExpiresAt.Add(-min(5*time.Second, window/2)),
	}
}

// adopt makes h the token in use; ts.mu must be held.
func (ts *tokenSource) adopt(h heldToken) {
	ts.held = h
	ts.remember(h.AccessToken)
}

// remember keeps tok for redaction; ts.mu must be held. Only the last few
// tokens are kept: older ones are long expired.
func (ts *tokenSource) remember(tok string) {
	for _, t := range ts.issued {
		if t == tok {
			return
		}
	}
	ts.issued = append(ts.issued, tok)
	if len(ts.issued) > 8 {
		ts.issued = ts.issued[1:]
	}
}

// renewalFailed logs a failed background renewal and puts the next one off
// by half the time the held token has left, at most 30 s, so that a
// platform that refuses renewals is not asked again on every call; the
// token in hand goes on being used meanwhile.
func (ts *tokenSource) renewalFailed(ctx context.Context, err error) {
	c := ts.c
	now := c.now()
	ts.mu.Lock()
	if ts.held.AccessToken != "" {
		ts.held.refreshAt = now.Add(min(ts.held.usableUntil.Sub(now)/2, 30*time.Second))
	}
	retryAt := ts.held.refreshAt
	ts.mu.Unlock()
	c.logger.LogAttrs(ctx, slog.LevelWarn, "token renewal failed; the current token is still used",
		slog.String("error", c.redact(err.Error())), slog.Time("next_try", retryAt))
}

// invalidate records that the platform rejected tok, and drops it unless
// another caller already replaced it. It reports whether tok was news
// that leaves the client without a token: not when tok was already
// rejected or the client holds another.
func (ts *tokenSource) invalidate(tok Token) (renew bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if slices.Contains(ts.rejected, tok.AccessToken) {
		return false
	}
	ts.rejected = append(ts.rejected, tok.AccessToken)
	if len(ts.rejected) > maxRejected {
		ts.rejected = slices.Delete(ts.rejected, 0, len(ts.rejected)-maxRejected)
	}
	switch ts.held.AccessToken {
	case tok.AccessToken:
		ts.held = heldToken{}
		return true
	case "":
		return true
	}
	return false
}

func (ts *tokenSource) knownTokens() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.issued...)
}

// exchangeRecovered is exchange, with a panic in it (a panicking
// RoundTripper or Limiter, say) returned as an error: the exchange runs
// on a goroutine of singleflight's, where no caller could recover it, and
// the process would end.
func (ts *tokenSource) exchangeRecovered(ctx context.Context) (tok Token, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: panic: %v", opToken, r)
		}
	}()
	return ts.exchange(ctx)
}

// exchange trades the credential for a token (spec 5.3) and keeps it. A
// caller that found no token may arrive just after another exchange
// ended; then the fresh token is handed out instead of a second exchange.
func (ts *tokenSource) exchange(ctx context.Context) (Token, error) {
	c := ts.c
	now := c.now()
	ts.mu.Lock()
	held := ts.held
	ts.mu.Unlock()
	if held.AccessToken != "" && now.Before(held.refreshAt) {
		return held.Token, nil
	}
	return ts.trade(ctx)
}

// trade sends the token exchange, holds the new token and caches it.
func (ts *tokenSource) trade(ctx context.Context) (Token, error) {
	c := ts.c
	body, err := json.Marshal(struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	}{c.clientID, c.clientSecret})
	if err != nil {
		return Token{}, err
	}
	req := &request{
		op: opToken, method: "POST", url: c.endpoint("v1", "auth", "tokens"),
		body: body, safe: true, noAuth: true, maxBody: maxSmallBody,
	}
	resp, err := c.send(ctx, req)
	if err != nil {
		return Token{}, err
	}
	now := c.now()
	tok, err := parseTokenReply(resp.body, now)
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", opToken, badResponse(req, resp.status, resp.header, err))
	}
	ts.mu.Lock()
	if slices.Contains(ts.rejected, tok.AccessToken) {
		ts.mu.Unlock()
		return Token{}, fmt.Errorf("%s: the platform issued a token it had rejected", opToken)
	}
	ts.adopt(hold(tok, now))
	ts.mu.Unlock()
	if err := c.tokenCache.Put(ctx, ts.key, tok); err != nil {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "token cache put failed", slog.String("error", c.redact(err.Error())))
	}
	return tok, nil
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
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		if syn.Error() == "unexpected end of JSON input" {
			return fmt.Sprintf("the JSON is cut short after %d bytes", syn.Offset)
		}
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("member %q has the wrong type", typ.Field)
	}
	return "invalid JSON"
}

// TokenRejected drops tok, which the platform rejected for a client that
// uses c as its TokenSource: c's next Token is another. It makes *Client
// a RejectingTokenSource.
func (c *Client) TokenRejected(tok Token) {
	c.auth.invalidate(tok)
	if s, ok := c.source.(RejectingTokenSource); ok {
		s.TokenRejected(tok)
	}
}

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
// cached like any other. A client made with WithAccessToken has no
// credential to exchange.
func (c *Client) ExchangeToken(ctx context.Context) (Token, error) {
	if !c.auth.renewable() {
		return Token{}, fmt.Errorf("%s: no client credentials to exchange", opToken)
	}
	tok, err := c.auth.trade(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("%s: %w", opToken, err)
	}
	return tok, nil
}
