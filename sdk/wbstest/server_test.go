package wbstest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// call sends a raw request and decodes the JSON answer.
func call(t *testing.T, srv *Server, method, path, token, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, resp.Header
}

func token(t *testing.T, srv *Server) string {
	t.Helper()
	code, m, _ := call(t, srv, "POST", "/v1/auth/tokens", "", fmt.Sprintf(`{"clientId":%q,"clientSecret":%q}`, srv.ClientID, srv.ClientSecret))
	if code != 200 {
		t.Fatalf("token: %d %v", code, m)
	}
	if n, ok := m["expiresIn"].(float64); !ok || n != float64(int(srv.lifetime/time.Second)) {
		t.Fatalf("expiresIn = %v", m["expiresIn"])
	}
	return m["accessToken"].(string)
}

func TestTokenEndpoint(t *testing.T) {
	srv := Start(t)
	token(t, srv)
	for _, body := range []string{
		fmt.Sprintf(`{"clientId":%q,"clientSecret":"wrong"}`, srv.ClientID),
		fmt.Sprintf(`{"clientId":"integrationhub-other","clientSecret":%q}`, srv.ClientSecret),
	} {
		if code, m, _ := call(t, srv, "POST", "/v1/auth/tokens", "", body); code != 401 || m["status"] != float64(401) {
			t.Errorf("%s: %d %v", body, code, m)
		}
	}
	if code, _, _ := call(t, srv, "POST", "/v1/auth/tokens", "", `{"clientId":"x"}`); code != 400 {
		t.Errorf("missing secret: %d", code)
	}
}

func TestAuthRejections(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	srv := Start(t, WithClock(clock), WithTokenLifetime(time.Minute))
	good := token(t, srv)
	other := New() // another key
	foreign, _ := other.IssueToken(other.ClientID)
	parts := strings.Split(good, ".")
	header := func(h string) string { return base64.RawURLEncoding.EncodeToString([]byte(h)) }
	tests := []struct{ name, token string }{
		{"missing", ""},
		{"garbage", "not-a-jwt"},
		{"signed with another key", foreign},
		{"alg none", header(`{"alg":"none"}`) + "." + parts[1] + "."},
		{"alg None, signature kept", header(`{"alg":"None","typ":"JWT"}`) + "." + parts[1] + "." + parts[2]},
		{"alg HS512", header(`{"alg":"HS512","typ":"JWT"}`) + "." + parts[1] + "." + parts[2]},
		{"empty signature", parts[0] + "." + parts[1] + "."},
		{"tampered claims", parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x","exp":9999999999}`)) + "." + parts[2]},
	}
	// The execution call checks the token before the flow: a bad token is
	// 401 there too, never 403 or a run.
	execute := "/integration-hub-api/v1/flows/" + strings.TrimPrefix(srv.ClientID, "integrationhub-") + "/execute"
	rejected := func(name, token string) {
		t.Helper()
		for _, r := range []struct{ method, path string }{{"GET", "/v1/wbs-elements"}, {"POST", execute}} {
			code, m, h := call(t, srv, r.method, r.path, token, "{}")
			if code != 401 || h.Get("WWW-Authenticate") == "" || m["status"] != float64(401) {
				t.Errorf("%s on %s: %d %v", name, r.path, code, m)
			}
		}
	}
	for _, tt := range tests {
		rejected(tt.name, tt.token)
	}
	for _, r := range []struct{ method, path string }{{"GET", "/v1/wbs-elements"}, {"POST", execute}} {
		if code, m, _ := call(t, srv, r.method, r.path, good, "{}"); code != 200 {
			t.Fatalf("good token on %s: %d %v", r.path, code, m)
		}
	}
	now = now.Add(time.Minute)
	rejected("expired", good)
	fresh := token(t, srv)
	srv.ExpireTokens()
	rejected("revoked", fresh)
}

func TestValidationAtTheBounds(t *testing.T) {
	srv := Start(t)
	tok := token(t, srv)
	srv.Put(Element{Code: "U", IsActive: true})
	s := strings.Repeat
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"code 30", "POST", "/v1/wbs-elements", `{"wbsElementCode":"` + s("Ä", 30) + `"}`, 200, ""},
		{"code 31", "POST", "/v1/wbs-elements", `{"wbsElementCode":"` + s("Ä", 31) + `"}`, 400, "wbsElementCode"},
		{"code 1", "POST", "/v1/wbs-elements", `{"wbsElementCode":"a"}`, 200, ""},
		{"code empty", "POST", "/v1/wbs-elements", `{"wbsElementCode":""}`, 400, "wbsElementCode"},
		{"code missing", "POST", "/v1/wbs-elements", `{}`, 400, "wbsElementCode"},
		{"description 100", "POST", "/v1/wbs-elements", `{"wbsElementCode":"d1","description":"` + s("x", 100) + `"}`, 200, ""},
		{"description 101", "POST", "/v1/wbs-elements", `{"wbsElementCode":"d2","description":"` + s("x", 101) + `"}`, 400, "description"},
		{"org code empty", "POST", "/v1/wbs-elements", `{"wbsElementCode":"o1","businessOrganizations":[{"code":"","entityType":"c"}]}`, 400, "businessOrganizations[0].code"},
		{"org type missing", "POST", "/v1/wbs-elements", `{"wbsElementCode":"o2","businessOrganizations":[{"code":"1"}]}`, 400, "businessOrganizations[0].entityType"},
		{"org extra member", "POST", "/v1/wbs-elements", `{"wbsElementCode":"o3","businessOrganizations":[{"code":"1","entityType":"c","x":1}]}`, 400, "x: unknown member"},
		{"unknown member", "POST", "/v1/wbs-elements", `{"wbsElementCode":"u1","colour":"red"}`, 400, "colour"},
		{"wrong type", "POST", "/v1/wbs-elements", `{"wbsElementCode":5}`, 400, "wbsElementCode"},
		{"malformed", "POST", "/v1/wbs-elements", `{"wbsElementCode":`, 400, ""},
		{"trailing data", "POST", "/v1/wbs-elements", `{"wbsElementCode":"t1"} {}`, 400, ""},
		{"invalid UTF-8", "POST", "/v1/wbs-elements", "{\"wbsElementCode\":\"\xff\"}", 400, ""},
		{"deep nesting", "POST", "/v1/wbs-elements", s("[", 100000) + s("]", 100000), 400, ""},
		{"deep nesting, unclosed", "POST", "/v1/wbs-elements", s("[", 100000), 400, ""},
		{"duplicate member", "POST", "/v1/wbs-elements", `{"wbsElementCode":"m1","wbsElementCode":"m2"}`, 400, "wbsElementCode: given more than once"},
		{"duplicate member of an organization", "POST", "/v1/wbs-elements", `{"wbsElementCode":"m3","businessOrganizations":[{"code":"1","entityType":"c","code":"2"}]}`, 400, "businessOrganizations[0].code: given more than once"},
		{"member in another case", "POST", "/v1/wbs-elements", `{"WBSElementCode":"m4"}`, 400, "WBSElementCode: unknown member"},
		{"invalid UTF-8 in a member name", "POST", "/v1/wbs-elements", "{\"wbsElementCode\":\"m5\",\"\xc3\":1}", 400, ""},
		{"token duplicate member", "POST", "/v1/auth/tokens", `{"clientId":"a","clientSecret":"b","clientId":"c"}`, 400, "clientId: given more than once"},
		{"update duplicate member", "PUT", "/v1/wbs-elements/U", `{"isActive":false,"isActive":true}`, 400, "isActive: given more than once"},
		{"update organization member in another case", "PUT", "/v1/wbs-elements/U", `{"businessOrganizations":[{"Code":"1","entityType":"c"}]}`, 400, "businessOrganizations[0].Code: unknown member"},
		{"update duplicate member of an organization", "PUT", "/v1/wbs-elements/U", `{"businessOrganizations":[{"code":"1","entityType":"c","entityType":"d"}]}`, 400, "businessOrganizations[0].entityType: given more than once"},
		{"update description 101", "PUT", "/v1/wbs-elements/U", `{"description":"` + s("x", 101) + `"}`, 400, "description"},
		{"update unknown element", "PUT", "/v1/wbs-elements/NOPE", `{}`, 404, ""},
		{"update wrong type", "PUT", "/v1/wbs-elements/U", `{"isActive":"yes"}`, 400, "isActive"},
		{"delete links empty", "POST", "/v1/wbs-elements/U/business-organizations/delete", `{"businessOrganizations":[]}`, 400, "businessOrganizations"},
		{"delete links missing", "POST", "/v1/wbs-elements/U/business-organizations/delete", `{}`, 400, "businessOrganizations"},
		{"page size over max is clamped", "GET", "/v1/wbs-elements?pageSize=101", "", 200, ""},
		{"page number zero is clamped", "GET", "/v1/wbs-elements?pageNumber=0", "", 200, ""},
		{"page size text is the default", "GET", "/v1/wbs-elements?pageSize=ten", "", 200, ""},
		{"links of unknown element", "GET", "/v1/wbs-elements/NOPE/business-organizations", "", 404, ""},
		{"delete unknown", "DELETE", "/v1/wbs-elements/NOPE", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, m, h := call(t, srv, tt.method, tt.path, tok, tt.body)
			if code != tt.status {
				t.Fatalf("status %d, want %d: %v", code, tt.status, m)
			}
			if code == 200 {
				return
			}
			if h.Get("Content-Type") != "application/problem+json" || m["status"] != float64(code) || m["correlationId"] == nil {
				t.Fatalf("not a problem document: %v %v", h, m)
			}
			if tt.field != "" && !strings.Contains(fmt.Sprint(m["detail"], m["errors"]), tt.field) {
				t.Fatalf("problem does not name %s: %v", tt.field, m)
			}
		})
	}
}

func TestBodySizeLimit(t *testing.T) {
	srv := Start(t, WithMaxBodyBytes(1024))
	body := `{"wbsElementCode":"big","description":"` + strings.Repeat("x", 2000) + `"}`
	tok := token(t, srv)
	if code, m, _ := call(t, srv, "POST", "/v1/wbs-elements", tok, body); code != 413 || m["status"] != float64(413) {
		t.Fatalf("%d %v", code, m)
	}
	// Chunked, without a Content-Length: the limit holds as the body arrives.
	req, _ := http.NewRequest("POST", srv.URL+"/v1/wbs-elements", io.MultiReader(strings.NewReader(body)))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var p struct{ Status int }
	if resp.StatusCode != 413 || json.Unmarshal(raw, &p) != nil || p.Status != 413 {
		t.Fatalf("chunked: status %d %q", resp.StatusCode, raw)
	}
	if len(srv.Elements()) != 0 {
		t.Fatal("a body over the limit created an element")
	}
}

func TestPaginationAndOrgModes(t *testing.T) {
	srv := Start(t)
	tok := token(t, srv)
	for i := range 25 {
		srv.Put(Element{Code: fmt.Sprintf("E%02d", i)})
	}
	path, seen := "/v1/wbs-elements?pageSize=10", 0
	for path != "" {
		code, m, _ := call(t, srv, "GET", path, tok, "")
		if code != 200 || m["hits"] != float64(25) {
			t.Fatalf("%d %v", code, m)
		}
		seen += len(m["data"].([]any))
		path = ""
		if next, ok := m["next"].(string); ok {
			path = strings.TrimPrefix(next, srv.URL)
		}
	}
	if seen != 25 {
		t.Fatalf("saw %d", seen)
	}
	srv.Put(Element{Code: "A/B", BusinessOrganizations: []BusinessOrganization{{"1", "c"}}})
	call(t, srv, "PUT", "/v1/wbs-elements/A%2FB", tok, `{"businessOrganizations":[{"code":"2","entityType":"c"}]}`)
	if el, _ := srv.Element("A/B"); len(el.BusinessOrganizations) != 2 {
		t.Fatalf("merge: %v", el.BusinessOrganizations)
	}
	srv.SetOrgUpdateMode(OrgReplace)
	call(t, srv, "PUT", "/v1/wbs-elements/A%2FB", tok, `{"businessOrganizations":[{"code":"3","entityType":"c"}]}`)
	if el, _ := srv.Element("A/B"); len(el.BusinessOrganizations) != 1 || el.BusinessOrganizations[0].Code != "3" {
		t.Fatalf("replace: %v", el.BusinessOrganizations)
	}
	call(t, srv, "PUT", "/v1/wbs-elements/A%2FB", tok, `{"description":"d","businessOrganizations":null}`)
	if el, _ := srv.Element("A/B"); len(el.BusinessOrganizations) != 1 || *el.Description != "d" {
		t.Fatalf("null links must leave them: %+v", el)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	srv := Start(t, WithRateLimit(3), WithClock(func() time.Time { return now }))
	tok := token(t, srv)
	for i := 1; i <= 4; i++ {
		code, m, h := call(t, srv, "GET", "/v1/wbs-elements", tok, "")
		if h.Get("RateLimit-Limit") != "3" || h.Get("RateLimit-Reset") == "" {
			t.Fatalf("headers: %v", h)
		}
		if i <= 3 && (code != 200 || h.Get("RateLimit-Remaining") != fmt.Sprint(3-i)) {
			t.Fatalf("request %d: %d remaining %s", i, code, h.Get("RateLimit-Remaining"))
		}
		if i == 4 && (code != 429 || m["message"] != "API rate limit exceeded" || h.Get("Retry-After") == "" || h.Get("Content-Type") != "application/json") {
			t.Fatalf("over the limit: %d %v %v", code, m, h)
		}
	}
	now = now.Add(time.Minute)
	if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements", tok, ""); code != 200 {
		t.Fatalf("new window: %d", code)
	}
}

// A sliding window refills continuously: 60 a minute allows the 61st
// request a second after the 60th, and says so in Retry-After; a fixed
// window makes it wait for the minute's end.
func TestRateWindows(t *testing.T) {
	for _, tt := range []struct {
		window     RateWindow
		retryAfter string
		after      time.Duration // when the 61st request is allowed
	}{
		{SlidingWindow, "1", time.Second},
		{FixedWindow, "60", time.Minute},
	} {
		now := time.Unix(1_700_000_000, 0)
		srv := NewServer(WithRateLimit(60), WithRateWindow(tt.window), WithClock(func() time.Time { return now }))
		tok := token(t, srv)
		for i := 1; i <= 60; i++ {
			if code, _, h := call(t, srv, "GET", "/v1/wbs-elements", tok, ""); code != 200 || h.Get("RateLimit-Remaining") != fmt.Sprint(60-i) {
				t.Fatalf("window %d, request %d: %d, remaining %s", tt.window, i, code, h.Get("RateLimit-Remaining"))
			}
		}
		code, _, h := call(t, srv, "GET", "/v1/wbs-elements", tok, "")
		if code != 429 || h.Get("Retry-After") != tt.retryAfter {
			t.Fatalf("window %d: the 61st: %d, Retry-After %q, want 429 and %s", tt.window, code, h.Get("Retry-After"), tt.retryAfter)
		}
		now = now.Add(tt.after - time.Millisecond)
		if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements", tok, ""); code != 429 {
			t.Fatalf("window %d: allowed %v early", tt.window, time.Millisecond)
		}
		now = now.Add(time.Millisecond)
		if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements", tok, ""); code != 200 {
			t.Fatalf("window %d: refused after %v: %d", tt.window, tt.after, code)
		}
		srv.Close()
	}
}

func TestFaultSelection(t *testing.T) {
	srv := Start(t, WithSeed(7), WithFaults(FaultRule{Operation: OpList, Kind: FaultStatus, Status: 503, Nth: 2}))
	tok := token(t, srv)
	var got []int
	for range 3 {
		code, _, _ := call(t, srv, "GET", "/v1/wbs-elements", tok, "")
		got = append(got, code)
	}
	if fmt.Sprint(got) != "[200 503 200]" {
		t.Fatalf("statuses %v, want the 2nd to fail", got)
	}
	srv.ClearFaults()
	srv.AddFaults(FaultRule{Operation: OpList, Kind: FaultStatus, Status: 500, Probability: 0.5})
	fails := 0
	for range 200 {
		if code, _, _ := call(t, srv, "GET", "/v1/wbs-elements", tok, ""); code == 500 {
			fails++
		}
	}
	if fails < 60 || fails > 140 {
		t.Fatalf("%d of 200 failed at probability 0.5", fails)
	}
	if j := srv.Journal(); len(j) == 0 || j[len(j)-1].ClientID != srv.ClientID {
		t.Fatal("journal does not record the client")
	}
}

func TestExecuteChecksTheFlow(t *testing.T) {
	srv := Start(t, WithCredential("integrationhub-7", "s"))
	tok, _ := srv.IssueToken("integrationhub-7")
	if code, m, _ := call(t, srv, "POST", "/integration-hub-api/v1/flows/7/execute", tok, `{"x":1}`); code != 200 || m["flowId"] != "7" {
		t.Fatalf("%d %v", code, m)
	}
	if code, _, _ := call(t, srv, "POST", "/integration-hub-api/v1/flows/8/execute", tok, `{}`); code != 403 {
		t.Fatalf("other flow: %d", code)
	}
	if code, m, _ := call(t, srv, "POST", "/integration-hub-api/v1/flows/7/execute", tok, `{"x":1,"x":2}`); code != 400 || !strings.Contains(fmt.Sprint(m["detail"]), "x: given more than once") {
		t.Fatalf("duplicate member in the payload: %d %v", code, m)
	}
}

// A lifetime under a second is kept: the token answers expiresIn as a
// fraction, is taken until it expires and refused after.
func TestTokenLifetimeUnderASecond(t *testing.T) {
	start := time.Unix(1_700_000_000, 900_000_000)
	var now atomic.Int64 // the clock, in nanoseconds after start
	srv := Start(t, WithTokenLifetime(500*time.Millisecond), WithClock(func() time.Time { return start.Add(time.Duration(now.Load())) }))
	resp, err := http.Post(srv.URL+"/v1/auth/tokens", "application/json",
		strings.NewReader(`{"clientId":"`+srv.ClientID+`","clientSecret":"`+srv.ClientSecret+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		AccessToken string  `json:"accessToken"`
		ExpiresIn   float64 `json:"expiresIn"`
	}
	json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if reply.ExpiresIn != 0.5 {
		t.Errorf("expiresIn %v, want 0.5", reply.ExpiresIn)
	}
	for _, tc := range []struct {
		after time.Duration
		want  int
	}{{0, http.StatusOK}, {400 * time.Millisecond, http.StatusOK}, {600 * time.Millisecond, http.StatusUnauthorized}} {
		now.Store(int64(tc.after))
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/wbs-elements", nil)
		req.Header.Set("Authorization", "Bearer "+reply.AccessToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%v after the exchange: %d, want %d", tc.after, resp.StatusCode, tc.want)
		}
	}
}
