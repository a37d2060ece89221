package api_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"pgregory.net/rapid"
)

// A segment of a generated path, with what it does to the depth below the
// base URL's path: +1 for a name, 0 for ".", -1 for "..", hidden for a
// dot-segment behind an encoded slash or a backslash.
type segment struct {
	text    string
	decoded string
	depth   int
	hidden  bool
}

var segments = []segment{
	{"v1", "v1", 1, false}, {"orders", "orders", 1, false}, {"A-1", "A-1", 1, false},
	{"a..b", "a..b", 1, false}, {"%41b", "Ab", 1, false}, {"x y", "x y", 1, false}, {"A%2FB", "A/B", 1, false},
	{".", "", 0, false}, {"%2e", "", 0, false}, {"%2E", "", 0, false},
	{"..", "", -1, false}, {"%2e%2e", "", -1, false}, {"%2E.", "", -1, false}, {".%2E", "", -1, false},
	{"x%2F..%2F..", "", 0, true}, {"..%5Cx", "", 0, true}, {`x\..`, "", 0, true},
}

// A field as the command line gives it.
type field struct {
	typed      bool
	key, value string
}

// invocation is a generated `wbsctl api` command line.
type invocation struct {
	method   string // "" is no -X
	path     []segment
	slash    bool // the path starts with a slash
	absolute bool // the path is an absolute URL on the platform's origin
	other    bool // the path is an absolute URL on another origin
	query    [][2]string
	fields   []field
	headers  []string
	input    string // "" is none, "-" standard input, else a file
	body     string // the --input body
}

func drawInvocation(t *rapid.T) invocation {
	inv := invocation{
		method: rapid.SampledFrom([]string{"", "", "GET", "get", "POST", "PUT", "PATCH", "DELETE", "HEAD", "GET /x"}).Draw(t, "method"),
		path:   rapid.SliceOfN(rapid.SampledFrom(segments), 0, 5).Draw(t, "path"),
		slash:  rapid.Bool().Draw(t, "slash"),
		query: rapid.SliceOfN(rapid.SampledFrom([][2]string{{"q", "1"}, {"status", "open"}, {"a", "z"}}), 0, 2).
			Draw(t, "query"),
		headers: rapid.SliceOfN(rapid.SampledFrom([]string{
			"X-Note: hello", "X-Note: again", "Accept: text/plain", "Content-Type: text/plain", "User-Agent: prop/1",
			"Host: evil.example.com", "Authorization: Bearer mine", "X-Note: a\r\nHost: evil.example.com",
		}), 0, 3).Draw(t, "headers"),
	}
	switch rapid.IntRange(0, 9).Draw(t, "where") {
	case 0:
		inv.absolute = true
	case 1:
		inv.other = true
	}
	switch rapid.IntRange(0, 3).Draw(t, "body") {
	case 0:
		inv.input = rapid.SampledFrom([]string{"-", "file"}).Draw(t, "input")
		inv.body = rapid.String().Draw(t, "bytes")
	default:
		inv.fields = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) field {
			f := field{typed: rapid.Bool().Draw(t, "typed")}
			f.key = rapid.SampledFrom([]string{"s", "n", "a", "a[b]", "a[c]", "l[]", "o[][k]"}).Draw(t, "key")
			values := []string{"x", "two words", "42", "true", "a&b=c", ""}
			if f.typed {
				values = []string{"true", "false", "null", "0", "-7", "42", "12345678901234567890", "1.5", "1e3",
					"0x10", "1_000", "007", "+1", "Inf", "text", "@file", "@-"}
			}
			f.value = rapid.SampledFrom(values).Draw(t, "value")
			return f
		}), 0, 4).Draw(t, "fields")
	}
	return inv
}

// args writes the command line; file is the file of @file and --input.
func (inv invocation) args(p, elsewhere *platform, file string) []string {
	var texts []string
	for _, s := range inv.path {
		texts = append(texts, s.text)
	}
	path := strings.Join(texts, "/")
	switch {
	case inv.absolute:
		path = p.baseURL() + "/" + path
	case inv.other:
		path = elsewhere.srv.URL + p.basePath + "/" + path
	case inv.slash:
		path = "/" + path
	}
	if len(inv.query) > 0 {
		var q []string
		for _, kv := range inv.query {
			q = append(q, kv[0]+"="+kv[1])
		}
		path += "?" + strings.Join(q, "&")
	}
	args := []string{path}
	if inv.method != "" {
		args = append(args, "-X", inv.method)
	}
	for _, h := range inv.headers {
		args = append(args, "-H", h)
	}
	for _, f := range inv.fields {
		flag, value := "-f", f.value
		if f.typed {
			flag = "-F"
			if value == "@file" {
				value = "@" + file
			}
		}
		args = append(args, flag, f.key+"="+value)
	}
	switch inv.input {
	case "-":
		args = append(args, "--input", "-")
	case "file":
		args = append(args, "--input", file)
	}
	return args
}

// promise is the request that gh's rules, as docs/commands.md's api section
// states them, promise for inv; refused is a command line that sends
// nothing.
type promise struct {
	refused  bool
	method   string
	segments []string // decoded, below the base URL's path
	query    url.Values
	body     any // a JSON document, a string for --input, nil for none
	header   map[string][]string
}

func (inv invocation) promise(fileText, stdin string) promise {
	var w promise
	var segs []string
	lastDot := false
	for _, s := range inv.path {
		lastDot = s.depth <= 0 && !s.hidden
		switch {
		case s.hidden:
			w.refused = true
		case s.depth == 1:
			segs = append(segs, s.decoded)
		case s.depth == -1 && len(segs) == 0:
			w.refused = true // leaves the base URL's path
		case s.depth == -1:
			segs = segs[:len(segs)-1]
		}
	}
	if lastDot || len(segs) == 0 {
		segs = append(segs, "")
	}
	w.segments = segs
	w.refused = w.refused || inv.other || inv.method == "GET /x" || inv.input != "" && len(inv.fields) > 0
	w.method = strings.ToUpper(inv.method)
	if w.method == "" {
		w.method = "GET"
		if inv.input != "" || len(inv.fields) > 0 {
			w.method = "POST"
		}
	}
	w.refused = w.refused || inv.input != "" && (w.method == "GET" || w.method == "HEAD")

	w.header = map[string][]string{}
	for _, h := range inv.headers {
		name, value, _ := strings.Cut(h, ": ")
		switch name {
		case "Host", "Authorization":
			w.refused = true
		}
		if strings.ContainsAny(value, "\r\n") {
			w.refused = true
		}
		w.header[name] = append(w.header[name], value)
	}
	w.refused = w.refused || len(w.header["User-Agent"]) > 1

	// Fields: -f before -F; a key given two meanings is refused.
	fields := slices.Concat(
		slices.DeleteFunc(slices.Clone(inv.fields), func(f field) bool { return f.typed }),
		slices.DeleteFunc(slices.Clone(inv.fields), func(f field) bool { return !f.typed }))
	count := map[string]int{}
	for _, f := range fields {
		count[f.key]++
	}
	for _, k := range []string{"s", "n", "a", "a[b]", "a[c]"} {
		w.refused = w.refused || count[k] > 1
	}
	w.refused = w.refused || count["a"] > 0 && count["a[b]"]+count["a[c]"] > 0

	w.query = url.Values{}
	for _, kv := range inv.query {
		w.query.Add(kv[0], kv[1])
	}
	asQuery := w.method == "GET" || w.method == "HEAD"
	doc := map[string]any{}
	stdinRead := false
	for _, f := range fields {
		var value any = f.value
		text := f.value
		if f.typed {
			switch f.value {
			case "true", "false":
				value = f.value == "true"
			case "null":
				value, text = nil, ""
			case "0", "-7", "42", "12345678901234567890":
				value = json.Number(f.value)
			case "@file":
				value, text = fileText, fileText
			case "@-":
				if stdinRead {
					value, text = "", ""
				} else {
					value, text = stdin, stdin
				}
				stdinRead = true
			}
		}
		if asQuery {
			w.query.Add(f.key, text)
			continue
		}
		switch f.key {
		case "a[b]", "a[c]":
			sub, _ := doc["a"].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
				doc["a"] = sub
			}
			sub[f.key[2:3]] = value
		case "l[]":
			list, _ := doc["l"].([]any)
			doc["l"] = append(list, value)
		case "o[][k]":
			list, _ := doc["o"].([]any)
			doc["o"] = append(list, map[string]any{"k": value})
		default:
			doc[f.key] = value
		}
	}
	switch {
	case inv.input != "":
		w.body = inv.body
	case len(fields) > 0 && !asQuery:
		w.body = doc
	}
	return w
}

// The request that goes out is the one the flags promise, by gh's rules;
// a command line with a local mistake sends nothing and exits 2; and the
// token goes to no other host, under no other Host, and nowhere outside
// the base URL's path.
func TestAPIWireMatchesFlags(t *testing.T) {
	p := newPlatform(t, "/tenant-a")
	elsewhere := newPlatform(t, "")
	host := strings.TrimPrefix(p.srv.URL, "http://")
	file := filepath.Join(t.TempDir(), "value.txt")
	rapid.Check(t, func(rt *rapid.T) {
		inv := drawInvocation(rt)
		fileText, stdin := "from a file", "from stdin"
		content := fileText
		switch inv.input {
		case "file":
			content = inv.body
		case "-":
			stdin = inv.body
		}
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			rt.Fatal(err)
		}
		res := p.run(t, cmdtest.Run{Stdin: stdin}, inv.args(p, elsewhere, file)...)
		all := p.take()
		if n := elsewhere.reached(); n != 0 {
			rt.Fatalf("%d requests reached another origin", n)
		}
		for _, r := range all {
			if r.Header.Get("Authorization") == "" {
				continue
			}
			if r.Host != host || !strings.HasPrefix(r.RequestURI, p.basePath+"/") || hasDotSegment(r.RequestURI) {
				rt.Fatalf("the token went to Host %s, %s", r.Host, r.RequestURI)
			}
		}
		want := inv.promise(fileText, stdin)
		if want.refused {
			if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "nothing was sent") || len(all) != 0 {
				rt.Fatalf("exit %d, %d requests, want exit 2 and none: %s", res.Code, len(all), res.ErrOut)
			}
			return
		}
		reqs := slices.DeleteFunc(all, func(r received) bool { return r.Header.Get("Authorization") == "" })
		if res.Code != 0 || len(reqs) != 1 {
			rt.Fatalf("exit %d, %d requests: %s", res.Code, len(reqs), res.ErrOut)
		}
		got := reqs[0]
		if got.Method != want.method {
			rt.Errorf("method %s, want %s", got.Method, want.method)
		}
		rawPath, rawQuery, _ := strings.Cut(got.RequestURI, "?")
		var segs []string
		for _, s := range strings.Split(strings.TrimPrefix(rawPath, p.basePath+"/"), "/") {
			d, _ := url.PathUnescape(s)
			segs = append(segs, d)
		}
		if !slices.Equal(segs, want.segments) {
			rt.Errorf("path %s: segments %q, want %q", rawPath, segs, want.segments)
		}
		if q, _ := url.ParseQuery(rawQuery); !reflect.DeepEqual(q, want.query) {
			rt.Errorf("query %v, want %v", q, want.query)
		}
		switch body := want.body.(type) {
		case nil:
			if got.Body != "" {
				rt.Errorf("body %q, want none", got.Body)
			}
		case string:
			if got.Body != body {
				rt.Errorf("body %q, want %q", got.Body, body)
			}
		default:
			dec := json.NewDecoder(bytes.NewReader([]byte(got.Body)))
			dec.UseNumber()
			var doc any
			if err := dec.Decode(&doc); err != nil || !reflect.DeepEqual(doc, body) {
				rt.Errorf("body %s, want %v (%v)", got.Body, body, err)
			}
		}
		for _, name := range []string{"X-Note", "Accept", "User-Agent", "Content-Type"} {
			values, given := want.header[name]
			switch gotValues := got.Header.Values(name); {
			case given && !slices.Equal(gotValues, values):
				rt.Errorf("%s: %q, want %q", name, gotValues, values)
			case given:
			case name == "Accept" || name == "User-Agent":
				if len(gotValues) != 1 {
					rt.Errorf("%s: %q, want one default", name, gotValues)
				}
			case name == "Content-Type" && want.body != nil:
				if !slices.Equal(gotValues, []string{"application/json"}) {
					rt.Errorf("%s: %q, want the default", name, gotValues)
				}
			case len(gotValues) != 0:
				rt.Errorf("%s: %q, want none", name, gotValues)
			}
		}
	})
}

// hasDotSegment reports whether a request target has a segment that a
// server may resolve as . or .., even percent-encoded.
func hasDotSegment(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	for _, s := range strings.Split(path, "/") {
		if d, _ := url.PathUnescape(s); d == "." || d == ".." {
			return true
		}
	}
	return false
}
