package wbstest

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// claims are the members of the server's access tokens.
type claims struct {
	Sub  string `json:"sub"`
	Flow string `json:"flow"`
	Iat  int64  `json:"iat"`
	// Exp is a NumericDate with milliseconds, so that a lifetime under
	// a second is kept (RFC 7519 allows a fraction).
	Exp float64 `json:"exp"`
	Jti string  `json:"jti"`
	// Gen is the server's token generation; ExpireTokens starts a new one.
	Gen int `json:"gen"`
}

// IssueToken returns a token for clientID as the token endpoint would.
func (s *Server) IssueToken(clientID string) (string, error) {
	for _, c := range s.creds {
		if c.id == clientID {
			return s.sign(clientID), nil
		}
	}
	return "", errors.New("wbstest: unknown client id " + clientID)
}

// unixSeconds is t as seconds since 1970, to the millisecond.
func unixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// sign makes an HS256 JWT for clientID, valid for the token lifetime.
func (s *Server) sign(clientID string) string {
	now := s.now()
	s.mu.Lock()
	gen := s.generation
	s.mu.Unlock()
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	body, _ := json.Marshal(claims{
		Sub: clientID, Flow: strings.TrimPrefix(clientID, "integrationhub-"),
		Iat: now.Unix(), Exp: unixSeconds(now.Add(s.lifetime)), Jti: hex.EncodeToString(randomBytes(8)), Gen: gen,
	})
	unsigned := head + "." + base64.RawURLEncoding.EncodeToString(body)
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(s.mac(unsigned))
}

func (s *Server) mac(unsigned string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(unsigned))
	return m.Sum(nil)
}

// verify checks a bearer token: HS256 only (alg none and others are
// refused), signed with this server's key, unexpired, not revoked.
func (s *Server) verify(token string) (claims, error) {
	var c claims
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return c, errors.New("the token is not a JWT")
	}
	rawHead, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	rawBody, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return c, errors.New("the token is not a JWT")
	}
	var head struct{ Alg string }
	if json.Unmarshal(rawHead, &head) != nil || head.Alg != "HS256" {
		return c, errors.New("the token's algorithm is not accepted")
	}
	if !hmac.Equal(sig, s.mac(parts[0]+"."+parts[1])) {
		return c, errors.New("the token's signature is invalid")
	}
	if json.Unmarshal(rawBody, &c) != nil {
		return c, errors.New("the token's claims are unreadable")
	}
	now := s.now()
	if unixSeconds(now) >= c.Exp {
		return c, errors.New("the token has expired")
	}
	s.mu.Lock()
	gen := s.generation
	s.mu.Unlock()
	if c.Gen != gen {
		return c, errors.New("the token has been revoked")
	}
	return c, nil
}

// checkSecret compares a credential in constant time.
func (s *Server) checkSecret(id, secret string) bool {
	ok := 0
	for _, c := range s.creds {
		idOK := subtle.ConstantTimeCompare([]byte(c.id), []byte(id))
		secOK := subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret))
		ok |= idOK & secOK
	}
	return ok == 1
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, corr string) {
	var body struct {
		ClientID     *string `json:"clientId"`
		ClientSecret *string `json:"clientSecret"`
	}
	if !s.decode(w, r, corr, &body) {
		return
	}
	var errs []fieldError
	if body.ClientID == nil {
		errs = append(errs, fieldError{"clientId", "is required"})
	}
	if body.ClientSecret == nil {
		errs = append(errs, fieldError{"clientSecret", "is required"})
	}
	if len(errs) > 0 {
		problem(w, r, corr, http.StatusBadRequest, "validation", "Bad Request", "clientId and clientSecret are required", errs)
		return
	}
	if !s.checkSecret(*body.ClientID, *body.ClientSecret) {
		problem(w, r, corr, http.StatusUnauthorized, "unauthorized", "Unauthorized", "the client id or secret is wrong", nil)
		return
	}
	s.mu.Lock()
	s.stats.TokenExchanges++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"accessToken": s.sign(*body.ClientID), "expiresIn": s.lifetime.Seconds(), "tokenType": "Bearer",
	})
}
