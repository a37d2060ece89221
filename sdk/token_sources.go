// The token sources a Client composes, as golang.org/x/oauth2 does: a
// static token; a source of the user's; or the credential's exchange
// behind the TokenCache and a source that reuses a token until its
// renewal. The request path asks the composition for a token and tells it
// of a token the platform rejected, and knows nothing of how tokens are
// made.

package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// afterRejection is what a token source makes of a token the platform
// rejected (answered 401 to).
type afterRejection int

const (
	// noOtherToken: the source has no token to put in the rejected one's
	// place (a static token; a source of the user's that is not told of
	// rejections). The 401 is the call's answer.
	noOtherToken afterRejection = iota
	// renewing: the source dropped the token and renews it. The call
	// spends one of its maxRenewals on the new token.
	renewing
	// replaced: the source has another token in the rejected one's place
	// already, put there for the same rejection told by another call or
	// by a renewal since. The call moves onto it and spends no renewal.
	replaced
)

// rejectableTokenSource is a token source the client tells of a token the
// platform rejected; the client's composition is one, whatever makes its
// tokens.
type rejectableTokenSource interface {
	TokenSource
	// reject tells the source the platform rejected tok; the source
	// never hands tok out again.
	reject(tok Token) afterRejection
}

// tokenKeeper is a source that keeps a token it did not make itself: the
// reusing source holds it, the cache puts it in its TokenCache.
type tokenKeeper interface {
	keep(ctx context.Context, tok Token) error
}

// errorLog logs an error of a token source that no caller sees, redacted.
type errorLog func(ctx context.Context, level slog.Level, msg string, err error, attrs ...slog.Attr)

const (
	// maxRejected bounds the rejected tokens a source remembers, and the
	// tokens a cache source has handed out: the oldest are long expired.
	maxRejected = 64
	// maxIssued bounds the tokens kept for redaction.
	maxIssued = 8
)

// rememberToken appends tok to list unless it is there, forgetting the
// oldest past limit.
func rememberToken(list []string, tok string, limit int) []string {
	if slices.Contains(list, tok) {
		return list
	}
	list = append(list, tok)
	if len(list) > limit {
		list = slices.Delete(list, 0, len(list)-limit)
	}
	return list
}

// tokens is the client's token source and all that the request path
// knows of tokens: it asks src for a token before each attempt and tells
// src of a token the platform rejected. It keeps the tokens it handed
// out, for redaction.
type tokens struct {
	src rejectableTokenSource

	mu     sync.Mutex
	issued []string
	// added counts the tokens added to issued, so that what is derived
	// from issued is derived again only once it changed.
	added int
}

// token returns a token for the next attempt.
func (t *tokens) token(ctx context.Context) (Token, error) {
	tok, err := t.src.Token(ctx)
	if err != nil {
		return Token{}, err
	}
	t.remember(tok.AccessToken)
	return tok, nil
}

// reject tells the source that the platform rejected tok.
func (t *tokens) reject(tok Token) afterRejection { return t.src.reject(tok) }

// keep makes tok, exchanged apart from the source (Client.ExchangeToken),
// the token the source holds and caches.
func (t *tokens) keep(ctx context.Context, tok Token) error {
	t.remember(tok.AccessToken)
	if k, ok := t.src.(tokenKeeper); ok {
		return k.keep(ctx, tok)
	}
	return nil
}

func (t *tokens) remember(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.issued, tok) {
		t.issued = rememberToken(t.issued, tok, maxIssued)
		t.added++
	}
}

// knownTokens are the tokens the client handed out, for redaction, and
// the count of tokens added when they were read.
func (t *tokens) knownTokens() ([]string, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.issued), t.added
}

// addedCount is the count of tokens added to those handed out: what was
// derived from knownTokens at the same count is still up to date.
func (t *tokens) addedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.added
}

// staticTokenSource hands out the token of WithAccessToken; it has no
// other to put in the place of a rejected one. Without a token it is the
// source of a client given no credential.
type staticTokenSource struct{ tok Token }

func (s staticTokenSource) Token(context.Context) (Token, error) {
	if s.tok.AccessToken == "" {
		return Token{}, errors.New("no credentials: set WithCredentials, WithAccessToken or WithTokenSource")
	}
	return s.tok, nil
}

func (staticTokenSource) reject(Token) afterRejection { return noOtherToken }

// givenTokenSource asks the TokenSource of WithTokenSource before every
// attempt. It never hands out a token the platform rejected, and tells
// the source of a rejection when it is a RejectingTokenSource: once for
// each token, however many calls the platform rejected with it.
type givenTokenSource struct {
	src TokenSource

	mu       sync.Mutex
	rejected []string
}

func (s *givenTokenSource) Token(ctx context.Context) (Token, error) {
	_, told := s.src.(RejectingTokenSource)
	// A token the source handed out just before it was told of its
	// rejection is asked for once more: the source knows by then.
	for range 2 {
		tok, err := s.src.Token(ctx)
		if err != nil {
			return Token{}, fmt.Errorf("token source: %w", err)
		}
		if tok.AccessToken == "" {
			return Token{}, errors.New("token source: the token is empty")
		}
		s.mu.Lock()
		rejected := slices.Contains(s.rejected, tok.AccessToken)
		s.mu.Unlock()
		if !rejected {
			return tok, nil
		}
		if !told {
			break
		}
	}
	// Sending it would only be rejected again.
	return Token{}, fmt.Errorf("%w: the token source gave again a token the platform rejected", ErrUnauthorized)
}

func (s *givenTokenSource) reject(tok Token) afterRejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	again := slices.Contains(s.rejected, tok.AccessToken)
	s.rejected = rememberToken(s.rejected, tok.AccessToken, maxRejected)
	listener, told := s.src.(RejectingTokenSource)
	switch {
	case !told:
		return noOtherToken
	case again:
		return replaced
	}
	// Told under s.mu: a Token that finds tok rejected asks the source
	// again only once the source knows.
	listener.TokenRejected(tok)
	return renewing
}

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

// renewKey is the one renewal of a reuseTokenSource in flight.
const renewKey = "renew"

// reuseTokenSource holds a token of base and hands it out until it is
// due for renewal, as x/oauth2's ReuseTokenSource does, with what many
// calls sharing a client need besides: one renewal for all the callers
// that need one, each waiting within its own context; a renewal in the
// background while the token is still good; and a rejected token dropped
// and renewed once, however many calls the platform rejected with it.
type reuseTokenSource struct {
	base     TokenSource
	now      func() time.Time
	logError errorLog
	group    singleflight.Group

	mu   sync.Mutex
	held heldToken
	// rejected are the tokens the platform answered 401 to, oldest
	// first: none is handed out again.
	rejected []string
}

func (s *reuseTokenSource) Token(ctx context.Context) (Token, error) {
	now := s.now()
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held.AccessToken != "" && now.Before(held.usableUntil) {
		if !now.Before(held.refreshAt) {
			// Getting old but still good: renew in the background and
			// let this caller go on with the token it has.
			s.group.DoChan(renewKey, func() (any, error) {
				tok, err := s.renew(context.WithoutCancel(ctx))
				if err != nil {
					s.renewalFailed(ctx, err)
				}
				return tok, err
			})
		}
		return held.Token, nil
	}
	// A token a renewal adopted can be rejected before the renewal's
	// waiters get it, by a caller that took it from s.held: a waiter
	// then asks again rather than send a token already seen rejected.
	for range maxRenewals + 1 {
		ch := s.group.DoChan(renewKey, func() (any, error) {
			// The renewal outlives any one caller, so that a caller
			// that gives up does not fail the others waiting on it.
			return s.renew(context.WithoutCancel(ctx))
		})
		select {
		case r := <-ch:
			if r.Err != nil {
				return Token{}, r.Err
			}
			if tok := r.Val.(Token); !s.isRejected(tok.AccessToken) {
				return tok, nil
			}
		case <-ctx.Done():
			return Token{}, context.Cause(ctx)
		}
	}
	return Token{}, fmt.Errorf("%w: every new token was rejected before it could be used", ErrUnauthorized)
}

// renew takes a new token of base and keeps it. A caller that found no
// token may arrive just after another renewal ended; then the fresh token
// is handed out instead of a second renewal. A panic in base (a panicking
// RoundTripper or Limiter, say) is returned as an error: renew runs on a
// goroutine of singleflight's, where no caller could recover it, and the
// process would end.
func (s *reuseTokenSource) renew(ctx context.Context) (tok Token, err error) {
	defer func() {
		if r := recover(); r != nil {
			tok, err = Token{}, fmt.Errorf("%s: panic: %v", opToken, r)
		}
	}()
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held.AccessToken != "" && s.now().Before(held.refreshAt) {
		return held.Token, nil
	}
	if tok, err = s.base.Token(ctx); err != nil {
		return Token{}, err
	}
	if err := s.keep(ctx, tok); err != nil {
		return Token{}, err
	}
	return tok, nil
}

// keep holds tok, a new token of base's or of an exchange apart
// (Client.ExchangeToken), and has base keep it too: a cache caches it.
func (s *reuseTokenSource) keep(ctx context.Context, tok Token) error {
	now := s.now()
	s.mu.Lock()
	refused := slices.Contains(s.rejected, tok.AccessToken)
	if !refused {
		s.held = hold(tok, now)
	}
	s.mu.Unlock()
	if refused {
		return fmt.Errorf("%s: the platform issued a token it had rejected", opToken)
	}
	if k, ok := s.base.(tokenKeeper); ok {
		return k.keep(ctx, tok)
	}
	return nil
}

// reject records that the platform rejected tok, and drops it unless
// another token already took its place. Only the first rejection of a
// token held, or of one when none is held, renews it.
func (s *reuseTokenSource) reject(tok Token) afterRejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.rejected, tok.AccessToken) {
		return replaced
	}
	s.rejected = rememberToken(s.rejected, tok.AccessToken, maxRejected)
	switch s.held.AccessToken {
	case tok.AccessToken:
		s.held = heldToken{}
		return renewing
	case "":
		return renewing
	}
	return replaced
}

// isRejected reports whether the platform rejected tok.
func (s *reuseTokenSource) isRejected(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.rejected, tok)
}

// renewalFailed logs a failed background renewal and puts the next one off
// by half the time the held token has left, at most 30 s, so that a
// platform that refuses renewals is not asked again on every call; the
// token in hand goes on being used meanwhile.
func (s *reuseTokenSource) renewalFailed(ctx context.Context, err error) {
	now := s.now()
	s.mu.Lock()
	if s.held.AccessToken != "" {
		s.held.refreshAt = now.Add(min(s.held.usableUntil.Sub(now)/2, 30*time.Second))
	}
	retryAt := s.held.refreshAt
	s.mu.Unlock()
	s.logError(ctx, slog.LevelWarn, "token renewal failed; the current token is still used", err, slog.Time("next_try", retryAt))
}

// cachedTokenSource takes tokens from a TokenCache that clients or
// processes share, and from base when the cache holds none to use; a
// token kept goes into the cache. It hands out a token at most once:
// below a reuseTokenSource, which asks only when the token it holds will
// no longer do, a token handed out before is that token grown old, or one
// the platform rejected. Errors of the cache are logged, and base asked.
type cachedTokenSource struct {
	cache    TokenCache
	key      TokenCacheKey
	base     TokenSource
	now      func() time.Time
	logError errorLog

	mu sync.Mutex
	// spent are the tokens handed out or kept, oldest first.
	spent []string
	// read is the last token handed out of the cache: it is there
	// already when it is kept.
	read string
}

func (s *cachedTokenSource) Token(ctx context.Context) (Token, error) {
	if tok, ok := s.fromCache(ctx); ok {
		return tok, nil
	}
	tok, err := s.base.Token(ctx)
	if err != nil {
		return Token{}, err
	}
	s.mu.Lock()
	s.spent = rememberToken(s.spent, tok.AccessToken, maxRejected)
	s.mu.Unlock()
	return tok, nil
}

// fromCache hands out the cache's token when it is valid and new to s.
func (s *cachedTokenSource) fromCache(ctx context.Context) (Token, bool) {
	tok, ok, err := s.cache.Get(ctx, s.key)
	if err != nil {
		s.logError(ctx, slog.LevelDebug, "token cache get failed", err)
		return Token{}, false
	}
	if !ok || !tok.Valid(s.now()) {
		return Token{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.spent, tok.AccessToken) {
		return Token{}, false
	}
	s.spent = rememberToken(s.spent, tok.AccessToken, maxRejected)
	s.read = tok.AccessToken
	return tok, true
}

// keep puts tok in the cache, unless it came from there.
func (s *cachedTokenSource) keep(ctx context.Context, tok Token) error {
	s.mu.Lock()
	s.spent = rememberToken(s.spent, tok.AccessToken, maxRejected)
	cached := tok.AccessToken == s.read
	s.mu.Unlock()
	if cached {
		return nil
	}
	if err := s.cache.Put(ctx, s.key, tok); err != nil {
		s.logError(ctx, slog.LevelDebug, "token cache put failed", err)
	}
	return nil
}
