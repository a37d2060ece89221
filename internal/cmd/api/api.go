// Package api is `wbsctl api`: a request to any interface of the platform
// with the credentials, token cache, paging and safety of the other
// commands, after gh api.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/ratelimit"
	"github.com/wbsctl/wbsctl/sdk"
)

// maxBody bounds a body read from a file or standard input.
const maxBody = 16 << 20

// Options are the inputs of `wbsctl api`.
type Options struct {
	cmdutil.Deps
	Path      string
	Method    string
	Headers   []string
	RawFields []string
	Fields    []string
	Input     string
	Paginate  bool
	Slurp     bool
	Include   bool
	Silent    bool
	RetrySafe bool
	// PageSize is the items per page of --paginate; 0 is the path's
	// pageSize, or defaultPageSize.
	PageSize int
	// MaxPages bounds the pages --paginate reads.
	MaxPages int
	Rate     string
}

// defaultPageSize is --paginate's page size when neither --page-size nor
// the path's query gives one: the platform's default of 10 (spec 8) would
// make ten times the requests.
const defaultPageSize = 100

// defaultMaxPages bounds --paginate: far more than a list of the platform
// needs (100,000 items at the default page size), and an endless next
// ends in seconds rather than hours.
const defaultMaxPages = 1000

// NewCmdAPI returns `wbsctl api`.
func NewCmdAPI(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "api PATH",
		Short: "Make a request to any interface of the platform",
		Long: `Make an authenticated request to any interface of the platform, with the
credentials, token cache, --ca-file and client certificate of the other
commands. PATH is relative to the base URL (/v1/...), or an absolute URL
below it. Dot-segments (.., %2E%2E) are resolved before sending, and a
PATH that then leaves the base URL's path, or a URL on another origin,
is refused: the token never leaves the platform.

Without -X, the method is GET, or POST when fields or --input give a body,
as gh api does. -f key=value adds a string field, -F key=value a typed
one: true, false, null and integers (as written: 12345678901234567890
stays that number) are JSON, @FILE is a file's contents (@- standard
input), anything else (1.5, 1e3, 0x10) a string. Keys nest as gh nests
them: a[b]=c makes {"a":{"b":"c"}}, a[]=x appends to an array, a[][b]=c
adds b to the array's last object, a[] alone is an empty array; a key
given two meanings, such as -F a=1 -F a[b]=2, is refused. -f fields come
before -F fields. Fields make the JSON body; with -X GET or -X HEAD they
make the query instead, each under its key as written. --input FILE (or
-) sends a body as it is.

-H 'Name: value' adds a header; a Content-Type, Accept or User-Agent
replaces the default one. Authorization, Host, Content-Length,
Transfer-Encoding and the headers of the connection (Trailer,
Connection, Upgrade, TE, Keep-Alive, Proxy-*) are wbsctl's own, and a
header with CR or LF is refused.

--paginate reads a list with GET, following the platform's list envelope
(data, hits, next) by the rules of every other list: it starts at the
pageNumber of PATH's query (default 1), and each page's data items are
written as they arrive, one JSON value a line, or gathered into one array
with --slurp. It stops with an error after --max-pages pages. -o formats,
--jq and --template apply to the items of a list.

A method other than GET and HEAD is never resent once it may have reached
the platform, like a create, unless --retry-safe says that repeating it
does no harm. A 401 renews the token once. The exit codes are those of
every command: 2 for a mistake found before anything was sent, 4 for 401
and 403, 3 for 404, 5 for 400, 1 otherwise.`,
		Example: `  wbsctl api /v1/wbs-elements
  wbsctl api -X GET /v1/wbs-elements -f pageSize=5 -F pageNumber=2
  wbsctl api /v1/wbs-elements --paginate --slurp --jq 'length'
  wbsctl api '/v1/wbs-elements?pageNumber=3' --paginate --max-pages 2
  wbsctl api /v1/wbs-elements -f wbsElementCode=P-100 -F isActive=true \
      -f 'businessOrganizations[][code]=1000' -f 'businessOrganizations[][entityType]=company'
  wbsctl api -X PUT /v1/wbs-elements/P-100 -F isActive=false -f description='Site works'
  wbsctl api -X POST /integration-hub-api/v1/flows/1234/execute --input payload.json
  wbsctl api -X GET /v1/orders -f status=open --include`,
		Args:              cmdutil.ExactArgs(1),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			hasBody := len(opts.Fields)+len(opts.RawFields) > 0 || opts.Input != ""
			if !cmd.Flags().Changed("method") && hasBody {
				opts.Method = http.MethodPost // as gh: fields make a body
			}
			opts.Method = strings.ToUpper(opts.Method)
			switch {
			case opts.Method == "":
				return notSent(errors.New("-X: the method is empty"))
			case opts.Slurp && !opts.Paginate:
				return notSent(errors.New("--slurp gathers the pages of --paginate: give both"))
			case opts.Input != "" && len(opts.Fields)+len(opts.RawFields) > 0:
				return notSent(errors.New("--input sends a body as it is: it cannot be combined with -f or -F"))
			case opts.Paginate && opts.Method != http.MethodGet && !cmd.Flags().Changed("method") && hasBody:
				return notSent(errors.New("--paginate reads a list with GET, and a body makes a POST: give -X GET for fields to make the query"))
			case opts.Paginate && opts.Method != http.MethodGet:
				return notSent(fmt.Errorf("--paginate reads a list with GET, not %s", opts.Method))
			case opts.PageSize < 0:
				return notSent(fmt.Errorf("--page-size %d: want a number from 1 on", opts.PageSize))
			case opts.MaxPages < 1:
				return notSent(fmt.Errorf("--max-pages %d: want a number from 1 on", opts.MaxPages))
			}
			return cmdutil.Pick(runF, runAPI)(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Method, "method", "X", http.MethodGet, "HTTP `METHOD`")
	fl.StringArrayVarP(&opts.Headers, "header", "H", nil, "add a header, as 'Name: value' (repeatable)")
	fl.StringArrayVarP(&opts.RawFields, "raw-field", "f", nil, "add a string field, as key=value (repeatable)")
	fl.StringArrayVarP(&opts.Fields, "field", "F", nil, "add a typed field, as key=value: true, false, null, a number, @FILE (repeatable)")
	fl.StringVar(&opts.Input, "input", "", "send the body in this `FILE` (- for standard input)")
	fl.BoolVar(&opts.Paginate, "paginate", false, "read every page of a list")
	fl.BoolVar(&opts.Slurp, "slurp", false, "with --paginate: write the items of every page as one array")
	fl.BoolVarP(&opts.Include, "include", "i", false, "write the status line and the headers before the body")
	fl.BoolVar(&opts.Silent, "silent", false, "write nothing on success")
	fl.BoolVar(&opts.RetrySafe, "retry-safe", false, "the request may be repeated without harm: retry it like a GET")
	fl.IntVar(&opts.PageSize, "page-size", 0, "with --paginate: items per page (default the pageSize of PATH's query, else 100)")
	fl.IntVar(&opts.MaxPages, "max-pages", defaultMaxPages, "with --paginate: stop with an error after this many pages, as a guard against a list that never ends")
	fl.StringVar(&opts.Rate, "rate", "0", "requests per unit at most, such as 240/min (the platform's RateLimit headers and 429 pace it always)")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

// runAPI makes the request and writes the answer.
func runAPI(ctx context.Context, o *Options) error {
	perMinute, err := ratelimit.ParsePerMinute(o.Rate)
	if err != nil {
		return notSent(err)
	}
	req := &sdk.RawRequest{Method: o.Method, Path: o.Path, Header: http.Header{}, Safe: o.RetrySafe}
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return notSent(fmt.Errorf("-H %q: want 'Name: value'", h))
		}
		// Only blanks are trimmed: a CR or LF stays, for the client to
		// refuse rather than to hide.
		req.Header.Add(strings.TrimSpace(name), strings.Trim(value, " \t"))
	}
	if err := o.body(req); err != nil {
		return err
	}
	// The apply limiter: header-driven pauses and 429 handling, shared by
	// every page.
	c, err := o.Client(sdk.WithLimiter(ratelimit.New(perMinute)))
	if err != nil {
		return err
	}
	if o.Paginate {
		return refused(o.paginate(ctx, c, req))
	}
	resp, err := c.Do(ctx, req)
	if err != nil {
		return refused(err)
	}
	if o.Silent {
		return nil
	}
	out := cmdutil.DataOut(o.IO)
	if o.Include {
		writeHead(out, resp)
	}
	mode := o.Mode()
	if !mode.Structured() {
		_, err := out.Write(resp.Body)
		return err
	}
	var doc any
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return fmt.Errorf("the answer is not JSON, so --jq, --template and -o do not apply: %w", err)
	}
	if env, ok := doc.(map[string]any); ok && mode.Format != "" {
		if items, ok := env["data"].([]any); ok {
			return writeItems(o, items)
		}
	}
	p, err := o.Printer()
	if err != nil {
		return err
	}
	return p.Single(doc)
}

// notSent is a mistake found before anything was sent: a usage error,
// which says so, since a user who sees a failed POST asks whether it
// happened.
func notSent(err error) error {
	return &cmdutil.UsageError{Err: fmt.Errorf("%w; nothing was sent", err)}
}

// refused makes the client's refusal of a request, which it makes before
// sending anything, a usage error; its message says nothing was sent.
func refused(err error) error {
	var r *sdk.RefusedError
	if errors.As(err, &r) {
		return &cmdutil.UsageError{Err: err}
	}
	return err
}

// body makes the request's body, or its query for a GET or HEAD.
func (o *Options) body(req *sdk.RawRequest) error {
	if o.Input != "" {
		b, err := cmdutil.ReadFileOrStdin(o.IO.In, o.Input, maxBody)
		if err != nil {
			return notSent(fmt.Errorf("--input: %w", err))
		}
		req.Body = b
		return nil
	}
	if len(o.Fields)+len(o.RawFields) == 0 {
		return nil
	}
	fields, err := parseFields(o.RawFields, o.Fields, o.IO.In)
	if err != nil {
		return notSent(err)
	}
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		path, _, _ := strings.Cut(req.Path, "#") // never sent; the query goes before it
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		req.Path = path + sep + fieldQuery(fields).Encode()
		return nil
	}
	// Strings as written: json.Marshal would send & as \u0026.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return notSent(err)
	}
	req.Body = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return nil
}

// paginate streams the items of every page, or gathers them with --slurp.
func (o *Options) paginate(ctx context.Context, c *sdk.Client, req *sdk.RawRequest) error {
	mode := o.Mode()
	size := o.PageSize
	if size == 0 && !pathHasQuery(req.Path, "pageSize") {
		size = defaultPageSize
	}
	if o.Include && !o.Silent {
		// Each page's status and headers, as the page arrives.
		req.OnPage = func(resp *sdk.RawResponse) { writeHead(cmdutil.DataOut(o.IO), resp) }
	}
	pages := c.DoPages(ctx, req, &sdk.ListOptions{PageSize: size, MaxPages: o.MaxPages})
	if o.Slurp || mode.Whole() {
		return o.slurpItems(pages, mode)
	}
	return o.streamItems(pages, mode)
}

// slurpItems reads the items of every page, then writes them as one JSON
// array, or in the -o format.
func (o *Options) slurpItems(pages iter.Seq2[json.RawMessage, error], mode output.Mode) error {
	var items []any
	for raw, err := range pages {
		if err != nil {
			return o.pageError(err)
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		items = append(items, v)
	}
	if o.Silent {
		return nil
	}
	if mode.Format != "" && mode.Format != output.JSON || mode.Filter {
		return writeItems(o, items)
	}
	if items == nil {
		items = []any{}
	}
	enc := json.NewEncoder(cmdutil.DataOut(o.IO))
	return enc.Encode(items)
}

// streamItems writes the items of every page as they arrive: one JSON
// value a line, or rows of the -o format, whose columns are the members
// of the first item.
func (o *Options) streamItems(pages iter.Seq2[json.RawMessage, error], mode output.Mode) error {
	var p *output.Printer
	for raw, err := range pages {
		if err != nil {
			return o.pageError(err)
		}
		if o.Silent {
			continue
		}
		if !mode.Structured() || mode.Lines() {
			if _, err := fmt.Fprintf(cmdutil.DataOut(o.IO), "%s\n", compact(raw)); err != nil {
				return err
			}
			continue
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		if p == nil {
			if p, err = o.Printer(columnsOf(v)...); err != nil {
				return err
			}
			defer p.Sync() // what was listed before an error is written out
		}
		if err := p.Add(v, cells(v, columnsOf(v))...); err != nil {
			return err
		}
	}
	if p != nil {
		return p.Flush()
	}
	return nil
}

// pageError names --max-pages in the error of a list that goes on past
// it, the one flag that reads further.
func (o *Options) pageError(err error) error {
	if errors.Is(err, sdk.ErrListTooLong) {
		return fmt.Errorf("--paginate: %w; --max-pages (%d) bounds the pages read", err, o.MaxPages)
	}
	return err
}

// pathHasQuery reports whether the query of path has name.
func pathHasQuery(path, name string) bool {
	_, query, _ := strings.Cut(path, "?")
	query, _, _ = strings.Cut(query, "#")
	q, _ := url.ParseQuery(query)
	return q.Has(name)
}

// writeItems writes list items in the -o format, the columns of a table
// being the members of the first item.
func writeItems(o *Options, items []any) error {
	var cols []string
	if len(items) > 0 {
		cols = columnsOf(items[0])
	}
	p, err := o.Printer(cols...)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := p.Add(it, cells(it, cols)...); err != nil {
			return err
		}
	}
	return p.Flush()
}

func columnsOf(v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{"VALUE"}
	}
	cols := make([]string, 0, len(m))
	for k := range m {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	return cols
}

func cells(v any, cols []string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		b, _ := json.Marshal(v)
		return []string{string(b)}
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		switch x := m[c].(type) {
		case nil:
		case string:
			out[i] = x
		default:
			b, _ := json.Marshal(x)
			out[i] = string(b)
		}
	}
	return out
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

func writeHead(w io.Writer, resp *sdk.RawResponse) {
	fmt.Fprintf(w, "HTTP %d %s\n", resp.StatusCode, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(w, "%s: %s\n", k, output.Escape(v))
		}
	}
	fmt.Fprintln(w)
}

// completePaths completes the paths of the WBS element interface and the
// execution endpoint.
func completePaths(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, p := range []string{
		"/v1/wbs-elements", "/v1/wbs-elements/{wbsElementCode}",
		"/v1/wbs-elements/{wbsElementCode}/business-organizations",
		"/v1/wbs-elements/{wbsElementCode}/business-organizations/delete",
		"/integration-hub-api/v1/flows/{flowId}/execute",
	} {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
