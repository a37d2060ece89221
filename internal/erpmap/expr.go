package erpmap

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The expressions of a map are a small language of their own, typed and
// without loops, so that a map file cannot do more than turn the cells of
// a row into a value, and a mistake in one is found when the map is read:
//
//	Buchungskreis == "1000"
//	Buchungskreis in ["1000", "2000"] && !hasWord(Systemstatus, "DLFL")
//	trim(Bezeichnung)
//	concat(ProjectId, "-", WBSId)
//	`PSP-Element`  or  $env["PSP-Element"]
//
// A value is text or a boolean. A name is a column of the header; a name
// an identifier cannot spell (a space, a hyphen, a dot) is written in
// backquotes, or as $env["…"], the form of github.com/expr-lang/expr.
// Text literals are in double or single quotes. Operators: == and != on
// text or booleans, in [list of text], && (and), || (or), ! (not) and
// parentheses; the functions are those of the functions table.

// kind is the type of a value.
type kind uint8

const (
	kindText kind = iota + 1
	kindBool
)

func (k kind) String() string {
	if k == kindBool {
		return "a boolean"
	}
	return "text"
}

// expression is an expression read and checked, not yet bound to a
// header: its names are column names still.
type expression struct {
	src   string
	root  *exprNode
	names []string // the columns it names, each once, in order
}

// exprNode is a node of an expression's tree.
type exprNode struct {
	op   string // "text", "bool", "column", "call", "==", "!=", "in", "&&", "||", "!"
	text string // a literal's text, a column's or a function's name
	b    bool
	args []*exprNode
	list []string // the texts of in
	kind kind
}

// function is a function of the language: the kinds of its arguments
// (the last repeats when variadic) and of its result.
type function struct {
	args     []kind
	variadic bool
	result   kind
	doc      string
}

// functions are the functions an expression may call.
var functions = map[string]function{
	"trim":       {args: []kind{kindText}, result: kindText, doc: "the text without the spaces around it"},
	"upper":      {args: []kind{kindText}, result: kindText, doc: "the text in upper case"},
	"lower":      {args: []kind{kindText}, result: kindText, doc: "the text in lower case"},
	"alpha":      {args: []kind{kindText}, result: kindText, doc: "digits without their leading zeros (SAP's ALPHA conversion); other text as it is"},
	"concat":     {args: []kind{kindText}, variadic: true, result: kindText, doc: "the texts one after the other"},
	"replace":    {args: []kind{kindText, kindText, kindText}, result: kindText, doc: "replace(s, old, new): s with every old replaced by new"},
	"contains":   {args: []kind{kindText, kindText}, result: kindBool, doc: "contains(s, part): whether s holds part"},
	"startsWith": {args: []kind{kindText, kindText}, result: kindBool, doc: "startsWith(s, prefix)"},
	"endsWith":   {args: []kind{kindText, kindText}, result: kindBool, doc: "endsWith(s, suffix)"},
	"hasWord":    {args: []kind{kindText, kindText}, result: kindBool, doc: "hasWord(s, word): whether s holds word between spaces, as a status cell (REL  AUC  SETC) does"},
}

// functionNames are the names of functions, sorted, for a message.
func functionNames() string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// maxExprLength bounds an expression's text, and maxExprDepth its
// nesting, so that reading one costs little whatever a file holds.
const (
	maxExprLength = 4096
	maxExprDepth  = 64
)

// parseExpr reads and type-checks src, which must give a value of kind
// want.
func parseExpr(src string, want kind) (*expression, error) {
	if len(src) > maxExprLength {
		return nil, fmt.Errorf("the expression is longer than %d bytes", maxExprLength)
	}
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("the expression is empty")
	}
	p := &exprParser{src: src}
	if err := p.next(); err != nil {
		return nil, err
	}
	root, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEnd {
		return nil, fmt.Errorf("unexpected %s at %s", p.tok.describe(), p.at(p.tok.pos))
	}
	if root.kind != want {
		return nil, fmt.Errorf("gives %s; %s is wanted", root.kind, want)
	}
	e := &expression{src: src, root: root}
	e.collect(root)
	return e, nil
}

func (e *expression) collect(n *exprNode) {
	if n.op == "column" && !slices.Contains(e.names, n.text) {
		e.names = append(e.names, n.text)
	}
	for _, a := range n.args {
		e.collect(a)
	}
}

type tokKind uint8

const (
	tokEnd tokKind = iota
	tokText
	tokName   // an identifier
	tokQuoted // a `name` or $env["name"]
	tokPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tokEnd:
		return "end of the expression"
	case tokText:
		return fmt.Sprintf("text %q", t.text)
	case tokName, tokQuoted:
		return fmt.Sprintf("name %s", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

type exprParser struct {
	src string
	pos int
	tok token
}

// at names a byte offset of the expression for a message.
func (p *exprParser) at(pos int) string {
	return fmt.Sprintf("character %d", utf8.RuneCountInString(p.src[:pos])+1)
}

// next reads the next token into p.tok.
func (p *exprParser) next() error {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	if p.pos >= len(p.src) {
		p.tok = token{kind: tokEnd, pos: start}
		return nil
	}
	c := p.src[p.pos]
	switch {
	case c == '"' || c == '\'':
		s, err := p.quoted(c)
		if err != nil {
			return err
		}
		p.tok = token{kind: tokText, text: s, pos: start}
		return nil
	case c == '`':
		end := strings.IndexByte(p.src[p.pos+1:], '`')
		if end < 0 {
			return fmt.Errorf("the name at %s has no closing `", p.at(start))
		}
		name := p.src[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
		p.tok = token{kind: tokQuoted, text: name, pos: start}
		return nil
	case strings.HasPrefix(p.src[p.pos:], "$env"):
		// $env["PSP-Element"], as expr-lang writes a name it cannot spell.
		p.pos += len("$env")
		rest := strings.TrimLeft(p.src[p.pos:], " ")
		p.pos = len(p.src) - len(rest)
		if !strings.HasPrefix(rest, "[") {
			return fmt.Errorf(`$env at %s: write $env["column name"]`, p.at(start))
		}
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] == ' ' {
			p.pos++
		}
		if p.pos >= len(p.src) || (p.src[p.pos] != '"' && p.src[p.pos] != '\'') {
			return fmt.Errorf(`$env at %s: write $env["column name"]`, p.at(start))
		}
		name, err := p.quoted(p.src[p.pos])
		if err != nil {
			return err
		}
		for p.pos < len(p.src) && p.src[p.pos] == ' ' {
			p.pos++
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ']' {
			return fmt.Errorf(`$env at %s: write $env["column name"]`, p.at(start))
		}
		p.pos++
		p.tok = token{kind: tokQuoted, text: name, pos: start}
		return nil
	}
	for _, op := range []string{"==", "!=", "&&", "||", "(", ")", "[", "]", ",", "!"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			p.pos += len(op)
			p.tok = token{kind: tokPunct, text: op, pos: start}
			return nil
		}
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	if !identStart(r) {
		if r >= '0' && r <= '9' {
			end := p.pos
			for end < len(p.src) && (p.src[end] >= '0' && p.src[end] <= '9' || p.src[end] == '.') {
				end++
			}
			return fmt.Errorf("the number %s at %s: cells are text, so write it in quotes (\"%s\")", p.src[p.pos:end], p.at(start), p.src[p.pos:end])
		}
		if r == '=' {
			return fmt.Errorf("a single = at %s: compare with ==", p.at(start))
		}
		return fmt.Errorf("unexpected %q at %s", r, p.at(start))
	}
	p.pos += size
	for p.pos < len(p.src) {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if !identStart(r) && !unicode.IsDigit(r) {
			break
		}
		p.pos += size
	}
	word := p.src[start:p.pos]
	switch word {
	case "and":
		p.tok = token{kind: tokPunct, text: "&&", pos: start}
	case "or":
		p.tok = token{kind: tokPunct, text: "||", pos: start}
	case "not":
		p.tok = token{kind: tokPunct, text: "!", pos: start}
	default:
		p.tok = token{kind: tokName, text: word, pos: start}
	}
	return nil
}

func identStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

// quoted reads the literal in quotes q at p.pos: \\, \", \', \n and \t
// are escapes, any other character stands for itself.
func (p *exprParser) quoted(q byte) (string, error) {
	start := p.pos
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == q:
			p.pos = i + 1
			return b.String(), nil
		case c == '\\' && i+1 < len(p.src):
			i++
			switch e := p.src[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"', '\'':
				b.WriteByte(e)
			default:
				return "", fmt.Errorf("unknown escape \\%c at %s (known: \\\\ \\\" \\' \\n \\t)", e, p.at(i-1))
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("the text at %s has no closing %c", p.at(start), q)
}

func (p *exprParser) punct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

func (p *exprParser) or(depth int) (*exprNode, error) {
	return p.binary(depth, "||", p.and)
}

func (p *exprParser) and(depth int) (*exprNode, error) {
	return p.binary(depth, "&&", p.comparison)
}

// binary reads operands of operand joined by op, each a boolean.
func (p *exprParser) binary(depth int, op string, operand func(int) (*exprNode, error)) (*exprNode, error) {
	left, err := operand(depth)
	if err != nil {
		return nil, err
	}
	for p.punct(op) {
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := operand(depth)
		if err != nil {
			return nil, err
		}
		if left.kind != kindBool || right.kind != kindBool {
			return nil, fmt.Errorf("%s at %s joins booleans, not text: compare the text first (Column == \"value\")", op, p.at(pos))
		}
		left = &exprNode{op: op, args: []*exprNode{left, right}, kind: kindBool}
	}
	return left, nil
}

func (p *exprParser) comparison(depth int) (*exprNode, error) {
	left, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	switch {
	case p.punct("==") || p.punct("!="):
		op, pos := p.tok.text, p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		if left.kind != right.kind {
			return nil, fmt.Errorf("%s at %s compares %s with %s", op, p.at(pos), left.kind, right.kind)
		}
		return &exprNode{op: op, args: []*exprNode{left, right}, kind: kindBool}, nil
	case p.tok.kind == tokName && p.tok.text == "in":
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		if left.kind != kindText {
			return nil, fmt.Errorf("in at %s looks for text, not %s", p.at(pos), left.kind)
		}
		list, err := p.list()
		if err != nil {
			return nil, err
		}
		return &exprNode{op: "in", args: []*exprNode{left}, list: list, kind: kindBool}, nil
	}
	return left, nil
}

// list reads ["a", "b", …].
func (p *exprParser) list() ([]string, error) {
	if !p.punct("[") {
		return nil, fmt.Errorf("in wants a list such as [\"1000\", \"2000\"] at %s, not %s", p.at(p.tok.pos), p.tok.describe())
	}
	var list []string
	for {
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.punct("]") && len(list) == 0 {
			break
		}
		if p.tok.kind != tokText {
			return nil, fmt.Errorf("a list holds text in quotes; %s at %s", p.tok.describe(), p.at(p.tok.pos))
		}
		list = append(list, p.tok.text)
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.punct("]") {
			break
		}
		if !p.punct(",") {
			return nil, fmt.Errorf("expected , or ] at %s, not %s", p.at(p.tok.pos), p.tok.describe())
		}
	}
	return list, p.next()
}

func (p *exprParser) unary(depth int) (*exprNode, error) {
	if depth > maxExprDepth {
		return nil, fmt.Errorf("the expression nests deeper than %d", maxExprDepth)
	}
	if p.punct("!") {
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		n, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		if n.kind != kindBool {
			return nil, fmt.Errorf("! at %s negates a boolean, not text", p.at(pos))
		}
		return &exprNode{op: "!", args: []*exprNode{n}, kind: kindBool}, nil
	}
	return p.primary(depth)
}

func (p *exprParser) primary(depth int) (*exprNode, error) {
	tok := p.tok
	switch {
	case tok.kind == tokText:
		return &exprNode{op: "text", text: tok.text, kind: kindText}, p.next()
	case tok.kind == tokQuoted:
		return &exprNode{op: "column", text: tok.text, kind: kindText}, p.next()
	case tok.kind == tokPunct && tok.text == "(":
		if err := p.next(); err != nil {
			return nil, err
		}
		n, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if !p.punct(")") {
			return nil, fmt.Errorf("expected ) at %s, not %s", p.at(p.tok.pos), p.tok.describe())
		}
		return n, p.next()
	case tok.kind == tokName:
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.punct("(") {
			return p.call(tok, depth)
		}
		switch tok.text {
		case "true", "false":
			return &exprNode{op: "bool", b: tok.text == "true", kind: kindBool}, nil
		}
		return &exprNode{op: "column", text: tok.text, kind: kindText}, nil
	}
	return nil, fmt.Errorf("unexpected %s at %s", tok.describe(), p.at(tok.pos))
}

// call reads the arguments of the function name, whose ( is p.tok.
func (p *exprParser) call(name token, depth int) (*exprNode, error) {
	fn, ok := functions[name.text]
	if !ok {
		return nil, fmt.Errorf("unknown function %s at %s (the functions: %s)", name.text, p.at(name.pos), functionNames())
	}
	n := &exprNode{op: "call", text: name.text, kind: fn.result}
	if err := p.next(); err != nil {
		return nil, err
	}
	for !p.punct(")") {
		if len(n.args) > 0 {
			if !p.punct(",") {
				return nil, fmt.Errorf("expected , or ) in %s( at %s, not %s", name.text, p.at(p.tok.pos), p.tok.describe())
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		arg, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, arg)
	}
	switch {
	case fn.variadic && len(n.args) < len(fn.args):
		return nil, fmt.Errorf("%s at %s takes at least %d arguments, not %d", name.text, p.at(name.pos), len(fn.args), len(n.args))
	case !fn.variadic && len(n.args) != len(fn.args):
		return nil, fmt.Errorf("%s at %s takes %d arguments, not %d", name.text, p.at(name.pos), len(fn.args), len(n.args))
	}
	for i, a := range n.args {
		want := fn.args[min(i, len(fn.args)-1)]
		if a.kind != want {
			return nil, fmt.Errorf("argument %d of %s at %s is %s; %s takes %s", i+1, name.text, p.at(name.pos), a.kind, name.text, want)
		}
	}
	return n, p.next()
}

// textFn and boolFn are expressions bound to a header: they read a row's
// cells by their column.
type (
	textFn func(row []string) string
	boolFn func(row []string) bool
)

// cellFn reads the cell of column col; a row shorter than the header has
// empty cells at its end, as a workbook leaves them out.
func cellFn(col int) textFn {
	return func(row []string) string {
		if col < len(row) {
			return row[col]
		}
		return ""
	}
}

// bindText and bindBool turn n into a function of a row, its columns
// found by column.
func bindText(n *exprNode, column map[string]int) textFn {
	switch n.op {
	case "text":
		s := n.text
		return func([]string) string { return s }
	case "column":
		return cellFn(column[n.text])
	}
	args := make([]textFn, len(n.args))
	for i, a := range n.args {
		args[i] = bindText(a, column)
	}
	switch n.text {
	case "trim":
		a := args[0]
		return func(r []string) string { return strings.TrimSpace(a(r)) }
	case "upper":
		a := args[0]
		return func(r []string) string { return strings.ToUpper(a(r)) }
	case "lower":
		a := args[0]
		return func(r []string) string { return strings.ToLower(a(r)) }
	case "alpha":
		a := args[0]
		return func(r []string) string { return alpha(a(r)) }
	case "replace":
		s, old, repl := args[0], args[1], args[2]
		return func(r []string) string {
			if o := old(r); o != "" {
				return strings.ReplaceAll(s(r), o, repl(r))
			}
			return s(r)
		}
	}
	// concat
	return func(r []string) string {
		var b strings.Builder
		for _, a := range args {
			b.WriteString(a(r))
		}
		return b.String()
	}
}

func bindBool(n *exprNode, column map[string]int) boolFn {
	switch n.op {
	case "bool":
		b := n.b
		return func([]string) bool { return b }
	case "!":
		a := bindBool(n.args[0], column)
		return func(r []string) bool { return !a(r) }
	case "&&":
		a, b := bindBool(n.args[0], column), bindBool(n.args[1], column)
		return func(r []string) bool { return a(r) && b(r) }
	case "||":
		a, b := bindBool(n.args[0], column), bindBool(n.args[1], column)
		return func(r []string) bool { return a(r) || b(r) }
	case "in":
		a, list := bindText(n.args[0], column), n.list
		return func(r []string) bool { return slices.Contains(list, a(r)) }
	case "==", "!=":
		eq := n.op == "=="
		if n.args[0].kind == kindBool {
			a, b := bindBool(n.args[0], column), bindBool(n.args[1], column)
			return func(r []string) bool { return (a(r) == b(r)) == eq }
		}
		a, b := bindText(n.args[0], column), bindText(n.args[1], column)
		return func(r []string) bool { return (a(r) == b(r)) == eq }
	}
	// A call of a function of booleans.
	a, b := bindText(n.args[0], column), bindText(n.args[1], column)
	switch n.text {
	case "contains":
		return func(r []string) bool { return strings.Contains(a(r), b(r)) }
	case "startsWith":
		return func(r []string) bool { return strings.HasPrefix(a(r), b(r)) }
	case "endsWith":
		return func(r []string) bool { return strings.HasSuffix(a(r), b(r)) }
	}
	// hasWord
	return func(r []string) bool { return hasWord(a(r), b(r)) }
}

// hasWord reports whether s holds word between spaces (or at its ends),
// without splitting s.
func hasWord(s, word string) bool {
	if word == "" {
		return false
	}
	for {
		i := strings.Index(s, word)
		if i < 0 {
			return false
		}
		end := i + len(word)
		if (i == 0 || isSpace(s[i-1])) && (end == len(s) || isSpace(s[end])) {
			return true
		}
		s = s[i+1:]
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// alpha is s without the leading zeros of a value of digits only, as
// SAP's ALPHA conversion shows a number (0000004711 is 4711, 0000 is 0);
// other text is as it is.
func alpha(s string) string {
	if s == "" {
		return s
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return s
		}
	}
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0"
	}
	return t
}
