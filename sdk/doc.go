// Package sdk is a typed client for the WBS element interface of the
// procurement platform: the token exchange, the six operations on WBS
// elements and their business organizations, and the integration
// execution call.
//
//	client, err := sdk.NewClient("https://api.example.com",
//		sdk.WithCredentials("integrationhub-1234", secret))
//	ack, err := client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{
//		Code:        "P-100.01",
//		Description: sdk.Ptr("Site preparation"),
//	})
//
// A Client is safe for concurrent use. Tests can run it against the
// reference server in package wbstest.
//
// # Authentication
//
// With WithCredentials the client trades the integration's key and secret
// for an access token (POST /v1/auth/tokens) on first use, and reuses the
// token while it is valid. Concurrent callers share one exchange. The token
// is renewed in the background from min(60 s, 10 % of its lifetime) before
// it expires, with a little jitter, while callers go on using it. expiresIn
// is read as seconds, as a JSON number or a numeric string; when the token
// is a JWT with an exp claim, the earlier of the two counts (the SDK reads
// the claim and never verifies the token). When the platform answers 401,
// the client drops exactly the rejected token, fetches another and sends
// the request once more; a token once rejected is never handed out again,
// from the client's memory or its TokenCache. A request takes its token
// after its turn at the rate limiter, so that a token does not expire
// while the request waits. A refused credential is an error matching
// ErrInvalidCredentials and is never retried.
//
// A TokenCache keeps tokens beyond one client, for instance in a file, so
// that many short-lived processes make one exchange. With WithAccessToken
// the client sends a token obtained elsewhere and cannot renew it. With
// WithTokenSource it asks a TokenSource (Vault, a workload identity, an
// x/oauth2 source through TokenSourceFunc, or another *Client) before
// every attempt; a source that is a RejectingTokenSource (another *Client
// is one) is told of a token the platform rejected, once however many
// calls were rejected with it, and asked for another.
//
// The client's tokens come from token sources composed as in
// golang.org/x/oauth2: the token of WithAccessToken; the TokenSource of
// WithTokenSource; or for WithCredentials the exchange, behind the
// TokenCache, behind a source that reuses a token until its renewal and
// renews a rejected one once. A request only asks its source for a token
// and tells it of a 401; one call asks for at most three new tokens.
// TokenPath names the exchange's path, for a transport that counts it.
// A client takes exactly one of the three. Client.CloseIdleConnections
// releases the connections a client keeps between calls.
//
// # Pagination
//
// List returns one page (Data, Hits, Next), and Page.NextOptions the
// options of the page after it (Page.NextCursor its cursor). All and AllBusinessOrganizations return an
// iter.Seq2 that fetches one page at a time, as the loop asks for more,
// with DefaultAllPageSize (100) items a page unless ListOptions says
// otherwise: 250 elements take 3 requests.
//
//	for el, err := range client.WBSElements.All(ctx, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(el.Code)
//	}
//
// The iterators check ctx between any two items: once it ends, the next
// value is the context's error, even within a page. A negative page
// number, page size or MaxPages is a *ValidationError, and nothing is
// sent.
//
// The spec leaves open what next is, what hits counts and how an empty list
// answers, so the iterator ends a list only on proof, never on one
// ambiguous signal: an empty page; a page shorter than the size asked when
// neither next nor hits promises more; or hits, once shown to be a total
// (the same on every page, at least the items seen), reached. A null or
// absent next proves nothing alone: a full page without other proof is
// followed by the next page number, at the cost of one request on a
// platform whose null does mean the last page. A next that is a URL on the
// list's own path is followed; any other next (a page number, an offset, an
// opaque cursor) promises more, and the walk goes on by page number. A page
// past the end may answer empty, 404, or the last page again, also when
// the list shrank while it was read. A page that repeats where next or
// hits led, and that itself promises more, ends the iteration with
// ErrPageLoop.
//
// A 404 with problem details on the first page of the element list is an
// empty list. For an element's links it is either no links or no element:
// AllBusinessOrganizations returns ErrNotFound, and
// AllBusinessOrganizationsOfExisting, for an element the caller knows
// exists, yields nothing. The bearer token is only ever sent to the origin
// of the client's base URL: a next on another host, scheme or path is read
// for its page number only.
//
// A walk resumes where it stopped, after a failure, in this process or
// another, from a Cursor: AllPages yields the pages All reads, and each
// page's NextCursor names the page after it, a string to save once the
// page is handled. With ListOptions.Cursor, List, All, AllPages and the
// links lists read from that page on, at the page size the cursor was
// made with, whatever the platform's next is: no item is read twice or
// left out. A cursor is tied to the client's base URL, its list and its
// page size; one of another origin or list, or given with another
// PageNumber or PageSize, is a *ValidationError, and nothing is sent.
//
// # Errors
//
// A non-2xx answer is an *APIError with the status, method, path, the
// problem details (spec 7) and the correlation id where known. The
// problem's invalid fields, in the common shapes of its errors member,
// are read into Problem.FieldErrors. It also
// reads bodies that are not problem details, such as a proxy's HTML page or
// a rate limiter's {"message": "..."}, reading at most 64 KiB. errors.Is
// matches it against ErrNotFound, ErrUnauthorized, ErrForbidden,
// ErrRateLimited and ErrValidation by status, and against ErrDuplicate
// when it refuses a create because an element with the code exists.
//
// The spec gives a create only a 400 and shows neither the problem types
// nor how a 400 for a code that exists differs from one for a malformed
// field, so ErrDuplicate matches every plausible answer to a create:
//
//   - a 409 Conflict, with problem details, another body or none;
//   - a 400 (or 422) whose problem details say the element exists: an
//     errors entry naming wbsElementCode ($.wbsElementCode,
//     /wbsElementCode, code) or no field, with a message such as
//     "already exists"; the type's last segment (…/duplicate,
//     …/already-exists, …/conflict, ElementAlreadyExists, or RFC 9110's
//     section on 409); a code or reason member (WBS_ELEMENT_ALREADY_EXISTS);
//     the detail, title or message (`an element with code "P-1" exists`,
//     "WBS element P-1 already exists", "duplicate key", "must be unique",
//     "já existe"); or a status member of 409.
//
// Quoted text (the code itself) is not read; text about JSON members,
// properties, parameters, headers or business organizations, or that
// denies existence ("does not exist"), does not count, nor does a problem
// whose errors all name other fields. A 400 without problem details is
// never a duplicate. A duplicate does not match ErrValidation, so that
// ErrValidation keeps meaning a malformed request; errors.As still finds
// the *APIError.
//
// A 2xx answer whose body is not the operation's answer (empty, an HTML
// page, JSON cut short or of another shape, more than 16 MiB for a page or
// 1 MiB for an acknowledgement or a token) is a *BadResponseError
// matching ErrBadResponse, naming what is wrong; it is not retried. A body
// whose Content-Length announces more is refused before it is read. A 204
// is an acknowledgement without a correlation id.
//
// Requests are checked against the spec's limits before they are sent; a
// request that breaks any returns a *ValidationError listing every
// violated field (it too matches ErrValidation). Lengths are counted in
// Unicode code points: "Ä" is one character, text that is not valid UTF-8
// is refused.
//
// No error, log record or panic carries the client secret or an access
// token: text a server sends back is scrubbed of them, wherever it comes
// (a correlation id of a header or a body, a message, a body cut to
// length after it is scrubbed), as they are or as a JSON encoder escapes
// them. A panic in the token exchange, which runs apart from its callers,
// is returned to them as an error.
//
// # Retries
//
// Requests that converge when repeated (list, update, delete, the removal
// of links, the token exchange) are retried after transport errors and 429,
// 502, 503 and 504 (and 500 with WithServerErrorRetries), with
// exponential backoff and full jitter, honouring Retry-After and
// RateLimit-Reset up to a cap; the attempts of a call never exceed
// RetryPolicy.MaxAttempts, and each waits its turn at the limiter. Nothing
// below this loop resends: requests go out so that net/http does not
// replay them on a connection that failed, whatever their method or an
// Idempotency-Key header. A create, and a flow execution, is resent only
// where it provably never reached the platform: a refused connection, a
// 429, a 503 with Retry-After. A failure of a create that may have reached
// it (another 5xx, a reset or timed-out connection, an unreadable 2xx
// answer) is an *OutcomeUnknownError matching ErrOutcomeUnknown, so that
// the caller reads the element back instead of creating it twice; a 4xx is
// the platform's refusal and is returned as an *APIError. So is a create
// that the caller's own context cuts off once it may have been sent: the
// error matches both ErrOutcomeUnknown and the context's error, while a
// context that ended before anything was sent gives the context's error
// alone. See RetryPolicy.
//
// Waiting stops as soon as the context ends, and a retry that the
// context's deadline leaves no time for (a 429 asking for 30 s of a
// context with 2 s left) is not waited for: the call returns at once with
// an error that matches both the answer (ErrRateLimited, *APIError) and
// context.DeadlineExceeded. So is a rate limiter's turn that comes after
// the deadline: the error matches context.DeadlineExceeded.
//
// # Rate limits
//
// The platform allows 240 requests a minute per key. WithLimiter with
// rate.NewLimiter(rate.Every(time.Minute/240), 1) of golang.org/x/time/rate
// paces every attempt of a client, retries included, with a burst of one,
// so that the client alone never draws a 429; goroutines sharing the
// client share the pace. The rate headers of an answer (RateLimit-Limit,
// -Remaining, -Reset, or their X-RateLimit- spelling; Reset as seconds or
// a Unix time, Retry-After as seconds or an HTTP date) are read once, by
// ParseRate, into a Rate: carried by every Acknowledgement and Page (what
// is left of the window, and when it resets), by an *APIError, and handed
// to a Limiter given with WithLimiter that also implements
// ResponseObserver, to adapt its pace to a window that other clients of
// the same key draw on too.
//
// # Testing
//
// Package wbstest is a reference server to run a client against, with
// faults (latency, statuses, resets, answers lost after the commit) and a
// rate limit to switch on. Give the client a RetryPolicy with a small
// MaxRetryAfter (and BaseDelay and MaxDelay) in tests, so that a
// Retry-After of the server costs no real second.
//
// # HTTP
//
// Every request goes through one loop of the SDK's own (token, pacing,
// retries, renewal on 401, decoding), because the retry rules depend on
// whether a request may have reached the platform, which no generic retry
// middleware knows. github.com/go-resty/resty/v2 builds and sends each
// attempt over the client's net/http client (headers, body, the raw
// response, unparsed), with its own retries and logging turned off.
//
// # Logging
//
// With WithLogger the client writes one debug record per HTTP attempt:
// operation, method, path, status, duration, attempt and correlation id.
// Headers and bodies are never logged.
package sdk
