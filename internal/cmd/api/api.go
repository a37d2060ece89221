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
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// maxBody bounds a body read from a file or standard input.
const maxBody = 16 << 20

// Options are the inputs of `wbsctl api`.
type Options struct {
	cmdutil.Deps
	// Global are the global flags, read once they are parsed.
	Global    *cmdutil.GlobalOptions
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
	PageSize  int
	Rate      string
}

// NewCmdAPI returns `wbsctl api`.
func NewCmdAPI(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps(), Global: &f.Global}
	cmd := &cobra.Command{
		Use:   "api PATH",
		Short: "Make a request to any interface of the platform",
		Long: `Make an authenticated request to any interface of the platform, with the
credentials, token cache, --ca-file and client certificate of the other
commands. PATH is relative to the base URL (/v1/...); an absolute URL on
another origin is refused, so the token never leaves the platform.

-f key=value adds a string field, -F key=value a typed one: true, false,
null and numbers are JSON, @FILE is a file's contents (@- standard input),
anything else a string. Keys nest: a[b]=c makes {"a":{"b":"c"}}, a[]=x
appends to an array. Fields make the JSON body, or the query of a GET.
--input FILE (or -) sends a body as it is.

--paginate follows the platform's list envelope (data, hits, next) by the
rules of every other list: each page's data items are written as they
arrive, one JSON value a line, or gathered into one array with --slurp.
-o formats, --jq and --template apply to the items of a list.

A method other than GET and HEAD is never resent once it may have reached
the platform, like a create, unless --retry-safe says that repeating it
does no harm. A 401 renews the token once. The exit codes are those of
every command: 4 for 401 and 403, 3 for 404, 5 for 400, 1 otherwise.`,
		Example: `  wbsctl api /v1/wbs-elements
  wbsctl api /v1/wbs-elements --paginate --slurp --jq 'length'
  wbsctl api -X PUT /v1/wbs-elements/P-100 -F isActive=false -f description='Site works'
  wbsctl api -X POST /integration-hub-api/v1/flows/1234/execute --input payload.json
  wbsctl api /v1/orders -f status=open --include`,
		Args:              cmdutil.ExactArgs(1),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if !cmd.Flags().Changed("method") && (len(opts.Fields)+len(opts.RawFields) > 0 || opts.Input != "") {
				opts.Method = http.MethodPost // as gh: fields make a body
			}
			if opts.Slurp && !opts.Paginate {
				return &cmdutil.UsageError{Err: errors.New("--slurp gathers the pages of --paginate: give both")}
			}
			if opts.Input != "" && len(opts.Fields)+len(opts.RawFields) > 0 {
				return &cmdutil.UsageError{Err: errors.New("--input sends a body as it is: it cannot be combined with -f or -F")}
			}
			return cmdutil.Pick(runF, Run)(cmd.Context(), opts)
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
	fl.IntVar(&opts.PageSize, "page-size", 100, "with --paginate: items per page")
	fl.StringVar(&opts.Rate, "rate", "0", "requests per unit at most, such as 240/min (the platform's RateLimit headers and 429 pace it always)")
	return cmd
}

// Run makes the request and writes the answer.
func Run(ctx context.Context, o *Options) error {
	perMinute, err := engine.ParseRate(o.Rate)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	req := &sdk.RawRequest{Method: strings.ToUpper(o.Method), Path: o.Path, Header: http.Header{}, Safe: o.RetrySafe}
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return &cmdutil.UsageError{Err: fmt.Errorf("-H %q: want 'Name: value'", h)}
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if err := o.body(req); err != nil {
		return err
	}
	// The apply limiter: header-driven pauses and 429 handling, shared by
	// every page.
	c, err := o.Client(sdk.WithLimiter(engine.NewLimiter(perMinute)))
	if err != nil {
		return err
	}
	if o.Paginate {
		return o.paginate(ctx, c, req)
	}
	resp, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	if o.Silent {
		return nil
	}
	if o.Include {
		writeHead(o.IO.Out, resp)
	}
	g := *o.Global
	if !o.Structured() {
		_, err := o.IO.Out.Write(resp.Body)
		return err
	}
	var doc any
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return fmt.Errorf("the answer is not JSON, so --jq, --template and -o do not apply: %w", err)
	}
	if env, ok := doc.(map[string]any); ok && g.Output != "" {
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

// body makes the request's body, or its query for a GET or HEAD.
func (o *Options) body(req *sdk.RawRequest) error {
	if o.Input != "" {
		b, err := cmdutil.ReadFileOrStdin(o.IO.In, o.Input, maxBody)
		if err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--input: %w", err)}
		}
		req.Body = b
		return nil
	}
	if len(o.Fields)+len(o.RawFields) == 0 {
		return nil
	}
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		q := url.Values{}
		for _, kv := range append(append([]string(nil), o.RawFields...), o.Fields...) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return &cmdutil.UsageError{Err: fmt.Errorf("field %q: want key=value", kv)}
			}
			q.Add(k, v)
		}
		sep := "?"
		if strings.Contains(req.Path, "?") {
			sep = "&"
		}
		req.Path += sep + q.Encode()
		return nil
	}
	body := map[string]any{}
	for _, kv := range o.RawFields {
		if err := setField(body, kv, false, o.IO.In); err != nil {
			return err
		}
	}
	for _, kv := range o.Fields {
		if err := setField(body, kv, true, o.IO.In); err != nil {
			return err
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req.Body = b
	return nil
}

// setField sets key=value in body: a[b]=c nests, a[]=x appends, and typed
// values are read as gh reads them.
func setField(body map[string]any, kv string, typed bool, stdin io.Reader) error {
	key, raw, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return &cmdutil.UsageError{Err: fmt.Errorf("field %q: want key=value", kv)}
	}
	var value any = raw
	if typed {
		v, err := typedValue(raw, stdin)
		if err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("field %s: %w", key, err)}
		}
		value = v
	}
	name, rest, _ := strings.Cut(key, "[")
	path := []string{name}
	if rest != "" {
		rest = "[" + rest
		for rest != "" {
			if !strings.HasPrefix(rest, "[") || !strings.Contains(rest, "]") {
				return &cmdutil.UsageError{Err: fmt.Errorf("field %q: a key is name[part][part] or name[]", key)}
			}
			part, after, _ := strings.Cut(rest[1:], "]")
			path, rest = append(path, part), after
		}
	}
	return setPath(body, path, value, key)
}

func setPath(m map[string]any, path []string, value any, key string) error {
	head := path[0]
	if len(path) == 1 {
		m[head] = value
		return nil
	}
	if path[1] == "" { // name[]
		if len(path) > 2 {
			return &cmdutil.UsageError{Err: fmt.Errorf("field %q: [] must come last", key)}
		}
		list, _ := m[head].([]any)
		m[head] = append(list, value)
		return nil
	}
	sub, ok := m[head].(map[string]any)
	if !ok {
		sub = map[string]any{}
		m[head] = sub
	}
	return setPath(sub, path[1:], value, key)
}

func typedValue(raw string, stdin io.Reader) (any, error) {
	switch raw {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if strings.HasPrefix(raw, "@") {
		b, err := cmdutil.ReadFileOrStdin(stdin, raw[1:], maxBody)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		return f, nil
	}
	return raw, nil
}

// paginate streams the items of every page, or gathers them with --slurp.
func (o *Options) paginate(ctx context.Context, c *sdk.Client, req *sdk.RawRequest) error {
	g := *o.Global
	pages := c.DoPages(ctx, req, &sdk.ListOptions{PageSize: o.PageSize, MaxPages: engine.DefaultMaxPages})
	if o.Slurp || g.JQ != "" || g.Template != "" || g.Output == "json" || g.Output == "yaml" || g.Output == "table" {
		var items []any
		for raw, err := range pages {
			if err != nil {
				return err
			}
			var v any
			_ = json.Unmarshal(raw, &v)
			items = append(items, v)
		}
		if o.Silent {
			return nil
		}
		if g.Output != "" && g.Output != "json" || g.JQ != "" || g.Template != "" {
			return writeItems(o, items)
		}
		if items == nil {
			items = []any{}
		}
		enc := json.NewEncoder(o.IO.Out)
		return enc.Encode(items)
	}
	var p *output.Printer
	for raw, err := range pages {
		if err != nil {
			return err
		}
		if o.Silent {
			continue
		}
		if g.Output == "" || g.Output == "ndjson" {
			if _, err := fmt.Fprintf(o.IO.Out, "%s\n", compact(raw)); err != nil {
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
