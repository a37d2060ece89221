package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// parseFields reads the -f (raw) and then the -F (typed) fields as gh
// builds them: a[b]=c nests, a[]=x appends to an array, a[][b]=c adds b to
// the array's last object (or a new one when that has b already), and a[]
// alone is an empty array. A key given two meanings (a=1 and a[b]=2, or a
// value twice) is an error rather than one field silently replacing the
// other.
func parseFields(raw, typed []string, stdin io.Reader) (map[string]any, error) {
	fields := map[string]any{}
	for _, group := range []struct {
		flag  string
		list  []string
		typed bool
	}{{"-f", raw, false}, {"-F", typed, true}} {
		for _, kv := range group.list {
			if err := addField(fields, kv, group.typed, stdin); err != nil {
				return nil, fmt.Errorf("%s %s: %w", group.flag, kv, err)
			}
		}
	}
	return fields, nil
}

func addField(fields map[string]any, kv string, typed bool, stdin io.Reader) error {
	key, text, hasValue := strings.Cut(kv, "=")
	parts, err := keyParts(key)
	if err != nil {
		return err
	}
	isArray := parts[len(parts)-1] == ""
	if !hasValue && !isArray {
		return fmt.Errorf("want key=value (or name[] for an empty array)")
	}
	var value any = text
	if typed && hasValue {
		if value, err = typedValue(text, stdin); err != nil {
			return err
		}
	}
	// Walk to the object that holds the last name; a [] between two names
	// puts the second in an object of the first's array.
	dest, name, inArray := fields, parts[0], false
	for _, part := range parts[1:] {
		if part == "" {
			inArray = true
			continue
		}
		if inArray {
			dest, err = arrayObject(dest, name, part)
		} else {
			dest, err = object(dest, name)
		}
		if err != nil {
			return err
		}
		name, inArray = part, false
	}
	old, exists := dest[name]
	if !isArray {
		if exists {
			return fmt.Errorf("%s is already %s", name, kind(old))
		}
		dest[name] = value
		return nil
	}
	list, isList := old.([]any)
	switch {
	case exists && !isList:
		return fmt.Errorf("%s is already %s, not an array", name, kind(old))
	case hasValue:
		dest[name] = append(list, value)
	case !exists:
		dest[name] = []any{}
	}
	return nil
}

// keyParts splits name[a][][b] into name, a, "", b.
func keyParts(key string) ([]string, error) {
	name, rest, nested := strings.Cut(key, "[")
	if name == "" || strings.Contains(name, "]") {
		return nil, fmt.Errorf("a key is name, name[key] or name[]")
	}
	parts := []string{name}
	if !nested {
		return parts, nil
	}
	rest = "[" + rest
	for rest != "" {
		part, after, ok := strings.Cut(rest[1:], "]")
		if rest[0] != '[' || !ok || strings.Contains(part, "[") {
			return nil, fmt.Errorf("a key is name followed by [key] or [] parts")
		}
		if part == "" && parts[len(parts)-1] == "" {
			return nil, fmt.Errorf("[][] is not a key: an array holds values or objects")
		}
		parts, rest = append(parts, part), after
	}
	return parts, nil
}

// object returns the object under name in m, made if missing.
func object(m map[string]any, name string) (map[string]any, error) {
	old, exists := m[name]
	if !exists {
		sub := map[string]any{}
		m[name] = sub
		return sub, nil
	}
	sub, ok := old.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is already %s, not an object", name, kind(old))
	}
	return sub, nil
}

// arrayObject returns the object of the array under name in m that next
// takes its member next: the last one while it has no next yet, else a
// new one.
func arrayObject(m map[string]any, name, next string) (map[string]any, error) {
	old, exists := m[name]
	list, ok := old.([]any)
	if exists && !ok {
		return nil, fmt.Errorf("%s is already %s, not an array", name, kind(old))
	}
	if len(list) > 0 {
		if last, ok := list[len(list)-1].(map[string]any); ok {
			if v, taken := last[next]; !taken {
				return last, nil
			} else if _, isList := v.([]any); isList {
				return last, nil
			}
		}
	}
	sub := map[string]any{}
	m[name] = append(list, sub)
	return sub, nil
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a value"
}

// typedValue reads a -F value as gh does: true, false, null and integers
// are JSON, @FILE is the file's text (@- standard input), anything else
// is a string. An integer goes out as written, however large, since it
// never passes through a machine number; 1.5, 1e3, 0x10, 1_000, +1 and
// 007 are not integers as JSON writes them, and stay strings.
func typedValue(text string, stdin io.Reader) (any, error) {
	switch {
	case text == "true":
		return true, nil
	case text == "false":
		return false, nil
	case text == "null":
		return nil, nil
	case strings.HasPrefix(text, "@"):
		b, err := cmdutil.ReadFileOrStdin(stdin, text[1:], maxBody)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case isInteger(text):
		return json.Number(text), nil
	}
	return text, nil
}

// isInteger reports whether s is an integer in JSON's grammar.
func isInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] == '0' && len(digits) > 1 {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// fieldQuery writes fields as a query: each value under its key as it was
// given (a[b], a[]), null as an empty value. gh would drop the a of a[b];
// the key as written is what the flags promise.
func fieldQuery(fields map[string]any) url.Values {
	q := url.Values{}
	var add func(key string, v any)
	add = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				add(key+"["+k+"]", sub)
			}
		case []any:
			for _, item := range x {
				add(key+"[]", item)
			}
		case nil:
			q.Add(key, "")
		case string:
			q.Add(key, x)
		default: // bool, json.Number
			q.Add(key, fmt.Sprint(x))
		}
	}
	for k, v := range fields {
		add(k, v)
	}
	return q
}
