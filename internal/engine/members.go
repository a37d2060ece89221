package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// errDataAfterValue is a JSON text that holds more than one value, or
// garbage after it.
var errDataAfterValue = errors.New("data after the value")

// memberNames are the members of a record and of its organizations, as
// the spec spells them. encoding/json matches member names regardless of
// case and lets the last of two win; a file must not rely on either, since
// the reference server refuses both and a record would otherwise be read
// other than written.
var memberNames = []string{"wbsElementCode", "description", "isActive", "businessOrganizations", "code", "entityType"}

// MemberError is a member of a JSON text that is given twice, or in
// another case than the spec's.
type MemberError struct {
	// Path names the member, such as businessOrganizations[0].code.
	Path    string
	Message string
}

func (e *MemberError) Error() string { return e.Path + ": " + e.Message }

// CheckMembers walks one JSON value and returns a *MemberError for the
// first member given twice in an object (in the same or another case) or
// spelt in another case than the spec's, and an error for data after the
// value. It says nothing of other problems, which decoding reports.
func CheckMembers(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]string // case-folded name → name as given
		key    string            // the member being read
		index  int               // the element being read
		path   string
	}
	var stack []*frame
	pathOf := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			return strings.TrimPrefix(f.path+"."+f.key, ".")
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	// value is called after a value ends, to move its container on.
	value := func() {
		if len(stack) > 0 && !stack[len(stack)-1].object {
			stack[len(stack)-1].index++
		}
	}
	expectKey := func() bool {
		if len(stack) == 0 || !stack[len(stack)-1].object {
			return false
		}
		return stack[len(stack)-1].key == ""
	}
	for {
		if expectKey() {
			if !dec.More() {
				if _, err := dec.Token(); err != nil { // the closing brace
					return nil
				}
				stack = stack[:len(stack)-1]
				value()
				if len(stack) == 0 {
					break
				}
				if stack[len(stack)-1].object {
					stack[len(stack)-1].key = ""
				}
				continue
			}
			tok, err := dec.Token()
			if err != nil {
				return nil
			}
			name, _ := tok.(string)
			f := stack[len(stack)-1]
			folded := strings.ToLower(name)
			if prev, dup := f.keys[folded]; dup {
				f.key = name
				if prev == name {
					return &MemberError{pathOf(), "given more than once"}
				}
				return &MemberError{pathOf(), fmt.Sprintf("given twice, also as %q", prev)}
			}
			f.keys[folded] = name
			f.key = name
			for _, known := range memberNames {
				if name != known && strings.EqualFold(name, known) {
					return &MemberError{pathOf(), fmt.Sprintf("unknown member; the spec spells it %q", known)}
				}
			}
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return nil // decoding reports malformed JSON
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]string{}, path: pathOf()})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{path: pathOf()})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		value()
		if len(stack) == 0 {
			break
		}
		if f := stack[len(stack)-1]; f.object {
			f.key = ""
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errDataAfterValue
	}
	return nil
}

// DecodeStrict decodes one JSON value into v, refusing unknown members,
// members given twice or in another case (*MemberError), and data after
// the value.
func DecodeStrict(raw []byte, v any) error {
	if err := CheckMembers(raw); err != nil {
		var me *MemberError
		if errors.As(err, &me) {
			return err
		}
		// Data after the value: report it unless the value itself is
		// malformed, which decoding names better.
		if json.Valid(bytes.TrimSpace(raw)) {
			return err
		}
	}
	if loneSurrogate(raw) {
		// encoding/json would turn it into U+FFFD without a word.
		return errors.New("a string holds a lone UTF-16 surrogate (\\uD800 to \\uDFFF unpaired)")
	}
	return DecodeStrictAny(raw, v)
}

// DecodeStrictAny is DecodeStrict for any JSON document wbsctl writes
// itself (a state file, a saved plan): unknown members and data after
// the value are refused.
func DecodeStrictAny(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errDataAfterValue
	}
	return nil
}

// loneSurrogate reports whether a JSON text escapes half of a UTF-16
// surrogate pair without the other half.
func loneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // an escape of one character, such as \\ or \"
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			low, ok := hex4(i + 6)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}
