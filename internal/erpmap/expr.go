package erpmap

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// The expressions of a map are those of github.com/expr-lang/expr,
// whose names are the columns of the export's header, every cell text:
//
//	Buchungskreis == "1000"
//	Buchungskreis in ["1000", "2000"] && !hasWord(Systemstatus, "DLFL")
//	trim(Bezeichnung)
//	concat(ProjectId, "-", WBSId)
//	$env["PSP-Element"]
//
// A name an identifier cannot spell (a space, a hyphen, a dot) is
// written $env["…"]. Backquotes delimit a raw text in expr-lang, not a
// name, so a map written for the old form `PSP-Element` is refused
// rather than read as a text. Besides expr-lang's operators (== != in
// && || ! and or not contains startsWith endsWith matches + …) and
// builtins (trim, upper, lower, replace, split, …) an expression may
// call the functions of the functions table.
//
// An expression is checked when the map is read, its names taken for
// text; Read compiles it again against the export's header, so that a
// misspelled column is refused before any row is read.

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

// option is the option of expr.Compile that holds the result to k.
func (k kind) option() expr.Option {
	if k == kindBool {
		return expr.AsBool()
	}
	return expr.AsKind(reflect.String)
}

// expression is an expression read and checked, not yet bound to a
// header: its names are column names still.
type expression struct {
	src  string
	want kind
	tree ast.Node // as parsed, for trimmedColumn
	// names are the columns it names, each once, in the order written.
	names []string
}

// function is a function this package adds to expr-lang's builtins.
type function struct {
	name string
	fn   func(params ...any) (any, error)
	typ  any // a func of the argument and result types, checked at compile
	doc  string
}

// functions are the functions an expression may call beyond expr-lang's
// builtins; concat replaces expr-lang's concat of lists.
var functions = []function{
	{"alpha", func(p ...any) (any, error) { return alpha(p[0].(string)), nil }, new(func(string) string),
		"digits without their leading zeros (SAP's ALPHA conversion); other text as it is"},
	{"concat", func(p ...any) (any, error) {
		var b strings.Builder
		for _, s := range p {
			b.WriteString(s.(string))
		}
		return b.String(), nil
	}, new(func(...string) string), "the texts one after the other"},
	{"hasWord", func(p ...any) (any, error) { return hasWord(p[0].(string), p[1].(string)), nil }, new(func(string, string) bool),
		"hasWord(s, word): whether s holds word between spaces, as a status cell (REL  AUC  SETC) does"},
}

// options are the options of every compilation of an expression.
var options = func() []expr.Option {
	opts := []expr.Option{expr.DisableBuiltin("concat")}
	for _, f := range functions {
		opts = append(opts, expr.Function(f.name, f.fn, f.typ))
	}
	return opts
}()

// functionNames names the functions, for a message and the schema.
func functionNames() string {
	names := make([]string, len(functions))
	for i, f := range functions {
		names[i] = f.name
	}
	return strings.Join(names, ", ") + " and expr-lang's builtins (trim, upper, lower, replace, split, …)"
}

// maxExprLength bounds an expression's text, so that reading one costs
// little whatever a file holds.
const maxExprLength = 4096

// parseExpr reads and type-checks src, which must give a value of kind
// want, taking each name it holds for a column of text.
func parseExpr(src string, want kind) (*expression, error) {
	if len(src) > maxExprLength {
		return nil, fmt.Errorf("the expression is longer than %d bytes", maxExprLength)
	}
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("the expression is empty")
	}
	c := conf.CreateNew()
	for _, o := range options {
		o(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	tree, err := parser.ParseWithConfig(src, c)
	if err != nil {
		return nil, exprError(src, err)
	}
	e := &expression{src: src, want: want, tree: tree.Node}
	if err := e.collect(); err != nil {
		return nil, err
	}
	if err := numberCompared(src, e.tree); err != nil {
		return nil, err
	}
	env := make(map[string]any, len(e.names))
	for _, n := range e.names {
		env[n] = ""
	}
	p, err := expr.Compile(src, append(slices.Clip(options), expr.Env(env))...)
	if err != nil {
		return nil, exprError(src, err)
	}
	switch t := p.Node().Type(); {
	case t == nil || t.Kind() == reflect.Interface:
	case t.Kind() == reflect.Bool && want != kindBool:
		return nil, fmt.Errorf("gives %s; %s is wanted", kindBool, want)
	case t.Kind() == reflect.String && want != kindText:
		return nil, fmt.Errorf("gives %s; %s is wanted", kindText, want)
	case t.Kind() != reflect.Bool && t.Kind() != reflect.String:
		return nil, fmt.Errorf("gives %s; %s is wanted", t, want)
	}
	return e, nil
}

// collect finds the columns e names, and refuses what expr-lang would
// read otherwise than its author meant: a backquoted name, which is a
// text, and a function that does not exist.
func (e *expression) collect() error {
	var nodes []ast.Node
	ast.Walk(&e.tree, visitor(func(n *ast.Node) { nodes = append(nodes, *n) }))
	// Post-order visits a node after its parts: what a node makes of its
	// parts is known before the parts are read.
	notColumn := map[ast.Node]bool{}
	declared := map[string]bool{}
	type named struct {
		name string
		at   int
	}
	var names []named
	for _, n := range slices.Backward(nodes) {
		switch n := n.(type) {
		case *ast.CallNode:
			notColumn[n.Callee] = true
			if id, ok := n.Callee.(*ast.IdentifierNode); ok && !slices.ContainsFunc(functions, func(f function) bool { return f.name == id.Value }) {
				return fmt.Errorf("unknown function %s at %s (the functions: %s)", id.Value, at(e.src, id.Location()), functionNames())
			}
		case *ast.VariableDeclaratorNode:
			declared[n.Name] = true
		case *ast.MemberNode:
			if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == "$env" {
				notColumn[id] = true
				s, ok := n.Property.(*ast.StringNode)
				if !ok {
					return fmt.Errorf(`$env at %s: write $env["column name"]`, at(e.src, id.Location()))
				}
				notColumn[s] = true
				names = append(names, named{s.Value, n.Location().From})
			}
		case *ast.StringNode:
			if !notColumn[n] && backquoted(e.src, n.Location()) {
				return fmt.Errorf("`%s` at %s is a text in expr-lang, not a column: write $env[%s] for the column, or %s for the text",
					n.Value, at(e.src, n.Location()), strconv.Quote(n.Value), strconv.Quote(n.Value))
			}
		case *ast.IdentifierNode:
			switch {
			case notColumn[n] || declared[n.Value]:
			case n.Value == "$env":
				return fmt.Errorf(`$env at %s: write $env["column name"]`, at(e.src, n.Location()))
			default:
				names = append(names, named{n.Value, n.Location().From})
			}
		}
	}
	slices.SortStableFunc(names, func(a, b named) int { return a.at - b.at })
	for _, n := range names {
		if !slices.Contains(e.names, n.name) {
			e.names = append(e.names, n.name)
		}
	}
	return nil
}

// visitor is a function as an ast.Visitor.
type visitor func(*ast.Node)

func (v visitor) Visit(n *ast.Node) { v(n) }

// backquoted reports whether the literal at loc is written in backquotes.
func backquoted(src string, loc file.Location) bool {
	i := byteOffset(src, loc.From)
	return i < len(src) && src[i] == '`'
}

// byteOffset is the byte offset of the rune offset r of src.
func byteOffset(src string, r int) int {
	for i := range src {
		if r == 0 {
			return i
		}
		r--
	}
	return len(src)
}

// at names an expression's place for a message.
func at(src string, loc file.Location) string {
	return fmt.Sprintf("character %d", min(loc.From, utf8.RuneCountInString(src))+1)
}

// exprError is an error of expr-lang on one line, with the place of
// the expression, and a hint for the mistakes of someone used to
// spreadsheets.
func exprError(src string, err error) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return err
	}
	if strings.Contains(fe.Message, `Operator("=")`) {
		return fmt.Errorf("a single = at %s: compare with ==", at(src, fe.Location))
	}
	for _, op := range []string{"contains", "startsWith", "endsWith"} {
		if strings.Contains(fe.Message, `Operator("`+op+`")`) {
			return fmt.Errorf("%s is an operator at %s: write Column %s \"text\", not %s(Column, \"text\")", op, at(src, fe.Location), op, op)
		}
	}
	for _, op := range []string{"&&", "||", "and", "or"} {
		if strings.HasPrefix(fe.Message, "invalid operation: "+op+" ") && !strings.Contains(fe.Message, "bool and bool") {
			return fmt.Errorf("%s at %s joins booleans, not text: compare the text first (Column == \"value\")", op, at(src, fe.Location))
		}
	}
	return fmt.Errorf("%s at %s", fe.Message, at(src, fe.Location))
}

// numberCompared refuses a number compared with a cell: expr-lang would
// refuse the types, or, in a list, find them unequal whatever the cell
// holds.
func numberCompared(src string, root ast.Node) error {
	var err error
	number := func(n ast.Node) (string, file.Location, bool) {
		switch n := n.(type) {
		case *ast.IntegerNode:
			return strconv.Itoa(n.Value), n.Location(), true
		case *ast.FloatNode:
			return strconv.FormatFloat(n.Value, 'f', -1, 64), n.Location(), true
		}
		return "", file.Location{}, false
	}
	// isText is whether n is a column, a text or a call: what a map
	// compares.
	isText := func(n ast.Node) bool {
		switch n.(type) {
		case *ast.IdentifierNode, *ast.MemberNode, *ast.StringNode, *ast.BuiltinNode, *ast.CallNode:
			return true
		}
		return false
	}
	ast.Walk(&root, visitor(func(n *ast.Node) {
		b, ok := (*n).(*ast.BinaryNode)
		if !ok || err != nil {
			return
		}
		var others []ast.Node
		switch b.Operator {
		case "==", "!=":
			if isText(b.Left) {
				others = []ast.Node{b.Right}
			} else if isText(b.Right) {
				others = []ast.Node{b.Left}
			}
		case "in", "not in":
			if a, ok := b.Right.(*ast.ArrayNode); ok && isText(b.Left) {
				others = a.Nodes
			}
		}
		for _, o := range others {
			if s, loc, ok := number(o); ok {
				err = fmt.Errorf("the number %s at %s: cells are text, so write it in quotes (%q)", s, at(src, loc), s)
				return
			}
		}
	}))
	return err
}

// program is an expression compiled against an export's header, and its
// result for the row at hand.
type program struct {
	prog *vm.Program
	rule string // the rule's key in the map
	line int    // the rule's line in the map
	col  int    // the column a problem of it names: its first, or -1
	text string
	b    bool
}

// compile compiles e against the columns its names were found at: env
// holds each name's cell of the row at hand.
func (e *expression) compile(columns map[string]int) (*vm.Program, error) {
	env := make(map[string]any, len(e.names))
	for _, n := range e.names {
		if _, ok := columns[n]; ok {
			env[n] = ""
		}
	}
	p, err := expr.Compile(e.src, append(slices.Clip(options), expr.Env(env), e.want.option())...)
	if err != nil {
		return nil, exprError(e.src, err)
	}
	return p, nil
}

// run evaluates p on env, the cells of a row, with machine m.
func (p *program) run(m *vm.VM, env map[string]any) error {
	out, err := m.Run(p.prog, env)
	if err != nil {
		return exprError(p.prog.Source().String(), err)
	}
	switch v := out.(type) {
	case string:
		p.text = v
	case bool:
		p.b = v
	default:
		return fmt.Errorf("gives %T", out)
	}
	return nil
}

// trimmedColumn is the column of an expression that is trim(column), or
// "": writing the column's text trimmed reads back the same.
func trimmedColumn(e *expression) string {
	n, ok := e.tree.(*ast.BuiltinNode)
	if !ok || n.Name != "trim" || len(n.Arguments) != 1 {
		return ""
	}
	switch a := n.Arguments[0].(type) {
	case *ast.IdentifierNode:
		if a.Value != "$env" {
			return a.Value
		}
	case *ast.MemberNode:
		id, ok := a.Node.(*ast.IdentifierNode)
		s, isText := a.Property.(*ast.StringNode)
		if ok && isText && id.Value == "$env" {
			return s.Value
		}
	}
	return ""
}

// textFn is a text rule bound to a header: it reads a row's cells.
type textFn func(row []string) string

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
