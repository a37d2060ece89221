// Package notation is wbsctl's one-cell notation of business
// organizations, TYPE=CODE pairs separated by ';', shared by the CSV cells
// of apply and export, --org, the plan and completion. The SDK knows
// nothing of it.
package notation

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/sdk"
)

// Parse reads the one-cell notation of organizations:
// TYPE=CODE pairs separated by ';', with '\' escaping ';', '=' and '\'.
// "company=1000;branch=B\;1" is company 1000 and branch "B;1". An empty
// cell is an empty list.
func Parse(s string) ([]sdk.BusinessOrganization, error) {
	if strings.TrimSpace(s) == "" {
		return []sdk.BusinessOrganization{}, nil
	}
	if !strings.Contains(s, `\`) && utf8.ValidString(s) {
		// Nothing escaped: the parts are substrings of s, and no copy is
		// made of them, which counts in a file of many records. (Text
		// that is not UTF-8 is read rune by rune, as below, so that it
		// reads the same either way.)
		return parsePlain(s)
	}
	var out []sdk.BusinessOrganization
	var parts [2]strings.Builder
	part, escaped := 0, false
	flush := func() error {
		t, c := parts[0].String(), parts[1].String()
		parts[0].Reset()
		parts[1].Reset()
		if part == 0 {
			return fmt.Errorf("%q: want TYPE=CODE", t)
		}
		if t == "" || c == "" {
			return fmt.Errorf("%q: type and code must not be empty", t+"="+c)
		}
		out = append(out, sdk.BusinessOrganization{EntityType: t, Code: c})
		part = 0
		return nil
	}
	for _, r := range s {
		switch {
		case escaped:
			parts[part].WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '=' && part == 0:
			part = 1
		case r == ';':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			parts[part].WriteRune(r)
		}
	}
	if escaped {
		return nil, errors.New("ends with a lone backslash")
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// parsePlain is Parse of a text without a backslash.
func parsePlain(s string) ([]sdk.BusinessOrganization, error) {
	out := make([]sdk.BusinessOrganization, 0, strings.Count(s, ";")+1)
	for item := range strings.SplitSeq(s, ";") {
		t, c, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want TYPE=CODE", item)
		}
		if t == "" || c == "" {
			return nil, fmt.Errorf("%q: type and code must not be empty", item)
		}
		out = append(out, sdk.BusinessOrganization{EntityType: t, Code: c})
	}
	return out, nil
}

// escaper escapes what the notation gives a meaning to. A Replacer is
// built on its first use and safe for use by many goroutines at once.
var escaper = strings.NewReplacer(`\`, `\\`, ";", `\;`, "=", `\=`)

// Format writes organizations in the notation Parse reads.
func Format(orgs []sdk.BusinessOrganization) string {
	var b strings.Builder
	for i, o := range orgs {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(escaper.Replace(o.EntityType))
		b.WriteByte('=')
		b.WriteString(escaper.Replace(o.Code))
	}
	return b.String()
}

// FormatOne writes one organization in the notation.
func FormatOne(o sdk.BusinessOrganization) string { return Format([]sdk.BusinessOrganization{o}) }
