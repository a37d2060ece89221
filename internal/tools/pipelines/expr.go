package main

import (
	"fmt"
	"strings"
	"unicode"
)

// The expressions of GitHub Actions that the example workflow uses:
// string literals, property paths (github.event_name, inputs.x,
// needs.plan.result, vars.X, secrets.X, env.X, runner.temp), ==, !=, !,
// &&, || (which yield an operand, as GitHub's do), parentheses and the
// status functions always(), cancelled(), success() and failure().
// Values are strings; "" and "false" are false.

// scope answers the property paths and status functions of an expression.
type scope struct {
	values map[string]string // "github.event_name" → "push"
	// status is the result of what the expression is about so far:
	// "success", "failure" or "cancelled".
	status string
}

// eval evaluates expression src in s.
func (s *scope) eval(src string) (string, error) {
	p := &parser{src: src, s: s}
	v, err := p.or()
	if err != nil {
		return "", err
	}
	p.space()
	if p.pos < len(p.src) {
		return "", fmt.Errorf("expression %q: unexpected %q", src, p.src[p.pos:])
	}
	return v, nil
}

// truth is what GitHub takes as true.
func truth(v string) bool { return v != "" && v != "false" && v != "0" }

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

type parser struct {
	src string
	pos int
	s   *scope
}

func (p *parser) space() {
	for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *parser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *parser) or() (string, error) {
	v, err := p.and()
	for err == nil && p.eat("||") {
		var w string
		if w, err = p.and(); !truth(v) {
			v = w
		}
	}
	return v, err
}

func (p *parser) and() (string, error) {
	v, err := p.compare()
	for err == nil && p.eat("&&") {
		var w string
		if w, err = p.compare(); truth(v) {
			v = w
		}
	}
	return v, err
}

func (p *parser) compare() (string, error) {
	v, err := p.unary()
	if err != nil {
		return "", err
	}
	switch {
	case p.eat("=="):
		w, err := p.unary()
		return boolString(strings.EqualFold(v, w)), err
	case p.eat("!="):
		w, err := p.unary()
		return boolString(!strings.EqualFold(v, w)), err
	}
	return v, nil
}

func (p *parser) unary() (string, error) {
	if p.eat("!") {
		v, err := p.unary()
		return boolString(!truth(v)), err
	}
	if p.eat("(") {
		v, err := p.or()
		if err == nil && !p.eat(")") {
			err = fmt.Errorf("expression %q: no closing parenthesis", p.src)
		}
		return v, err
	}
	if p.eat("'") {
		end := strings.IndexByte(p.src[p.pos:], '\'')
		if end < 0 {
			return "", fmt.Errorf("expression %q: unterminated string", p.src)
		}
		v := p.src[p.pos : p.pos+end]
		p.pos += end + 1
		return v, nil
	}
	p.space()
	start := p.pos
	for p.pos < len(p.src) && (p.src[p.pos] == '.' || p.src[p.pos] == '_' || p.src[p.pos] == '-' ||
		unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos]))) {
		p.pos++
	}
	name := p.src[start:p.pos]
	if name == "" {
		return "", fmt.Errorf("expression %q: expected a value at %d", p.src, start)
	}
	if p.eat("(") {
		if !p.eat(")") {
			return "", fmt.Errorf("expression %q: %s takes no arguments here", p.src, name)
		}
		switch name {
		case "always":
			return "true", nil
		case "cancelled":
			return boolString(p.s.status == "cancelled"), nil
		case "success":
			return boolString(p.s.status == "success"), nil
		case "failure":
			return boolString(p.s.status == "failure"), nil
		}
		return "", fmt.Errorf("expression %q: unknown function %s", p.src, name)
	}
	switch name {
	case "true", "false":
		return name, nil
	}
	return p.s.values[name], nil
}

// usesStatus reports whether an if: expression names a status function:
// without one, GitHub puts success() && in front of it.
func usesStatus(src string) bool {
	for _, f := range []string{"always()", "cancelled()", "success()", "failure()"} {
		if strings.Contains(src, f) {
			return true
		}
	}
	return false
}

// condition evaluates an if: as GitHub does: "${{ }}" optional, and
// success() && in front where it names no status function.
func (s *scope) condition(src string) (bool, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		src = "success()"
	}
	src = strings.TrimSuffix(strings.TrimPrefix(src, "${{"), "}}")
	if !usesStatus(src) {
		src = "success() && (" + src + ")"
	}
	v, err := s.eval(src)
	return truth(v), err
}

// interpolate replaces each ${{ expr }} of text with its value.
func (s *scope) interpolate(text string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(text, "${{")
		if i < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		j := strings.Index(text[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("%q: no closing }}", text)
		}
		v, err := s.eval(text[i+3 : i+j])
		if err != nil {
			return "", err
		}
		b.WriteString(text[:i])
		b.WriteString(v)
		text = text[i+j+2:]
	}
}
