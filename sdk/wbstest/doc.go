// Package wbstest is a reference server for the WBS element interface: an
// in-process, stateful fake of the platform for tests, as net/http/httptest
// is for HTTP. It is a second, independent reading of the spec: it imports
// nothing of the SDK.
//
// A test starts a server with Start, which closes it when the test ends:
//
//	func TestDeactivate(t *testing.T) {
//		srv := wbstest.Start(t, wbstest.WithOrgUpdateMode(wbstest.OrgReplace))
//		srv.Put(wbstest.Element{Code: "OLD-1", IsActive: true})
//		client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
//		// ... call the code under test with client, then read srv.Element,
//		// srv.Journal or srv.Stats.
//	}
//
// NewServer starts one that the caller closes (Close), as in a program;
// New returns one that is not listening, an http.Handler to serve as the
// caller likes.
//
// It implements the token endpoint (HS256-signed JWTs with exp, checked on
// every call: expired, revoked, wrongly signed or alg "none" tokens get a
// 401 with WWW-Authenticate: Bearer), the six operations, and the
// integration execution call (403 for a token of another integration). It
// validates every request as the spec says and answers each error with
// application/problem+json whose status equals the HTTP status.
//
// Where the spec says "not shown", the server makes these choices:
//
//   - expiresIn is an integer number of seconds; the reply also carries
//     tokenType "Bearer". A wrong client id or secret is a 401 problem.
//   - A missing, malformed, expired or revoked token is a 401 problem with
//     WWW-Authenticate: Bearer.
//   - hits is the total count of the list; next is the absolute URL of the
//     next page (keeping pageSize), null on the last page.
//   - The spec gives lists no 400: a pageNumber or pageSize below 1 is
//     taken as 1, a pageSize above 100 (WithMaxPageSize) as 100, and one
//     that is no integer as its default. A page past the end is a 200
//     with empty data. The links of an unknown element: 404.
//   - Elements are listed in creation order.
//   - Creating a code that exists is a 400 (type .../duplicate, errors
//     naming wbsElementCode). WithDuplicateAnswer answers it as other
//     platforms may: a 400 that says so only in its errors, its detail or
//     a code member, or a 409 with or without problem details.
//   - An update's businessOrganizations is merged into the links by
//     default (OrgMerge), or replaces them (OrgReplace). An update's null
//     description clears it; a null isActive or businessOrganizations
//     leaves it as it is.
//   - Removing a link the element does not have is not an error.
//   - Lengths are counted in Unicode code points; a body that is not valid
//     UTF-8 is a 400. Unknown members, a member given twice in one object,
//     a member name in another case than the spec's (wbselementcode),
//     wrong types, malformed JSON, nesting deeper than 10000 and data after
//     the value are 400s; a body over 1 MiB (WithMaxBodyBytes), sent with a
//     Content-Length or chunked, is a 413 as soon as the limit is passed.
//     The payload of the execution call is any JSON value, with each
//     member name at most once per object.
//   - A server from HTTPServer cuts off slow clients (Timeouts): headers
//     not sent within 5 s close the connection; a body not sent within
//     30 s is a 408 problem and closes it. Headers over 64 KiB are a 431.
//   - Problem types are https://wbstest.invalid/problems/{validation,
//     malformed, duplicate, not-found, unauthorized, forbidden, too-large,
//     timeout, injected}, and about:blank for some answers of
//     WithDuplicateAnswer; every problem has a correlationId member, and a
//     400 for invalid fields lists them in errors: [{field, message}].
//   - Every answer has an X-Correlation-Id header; an acknowledgement
//     carries the same correlationId.
//   - The rate limit (WithRateLimit, off by default) is a fixed one-minute
//     window per client id. Every answer carries RateLimit-Limit,
//     RateLimit-Remaining and RateLimit-Reset (seconds); beyond the limit
//     the answer is 429 with Retry-After and the plain JSON body
//     {"message":"API rate limit exceeded"}, not problem details.
//
// NewTLSServer serves it over https with a certificate of the caller's,
// such as one from SelfSignedCertificate, for tests of a client's TLS
// handling: trust the certificate's PEM, never skip verification.
//
// Fault rules (WithFaults, AddFaults) add latency, answer a status, reset
// the connection before acting, or act and then drop the answer, by count
// or seeded probability. Journal and Stats show what the server saw.
package wbstest
