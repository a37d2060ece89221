package element

import (
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// flagName is the flag of a text field: its name in kebab case
// (responsiblePerson is --responsible-person).
func flagName(f wbsfile.TextField) string {
	var b strings.Builder
	for _, r := range f.Name {
		if unicode.IsUpper(r) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// textFlags declares a flag for each text field of wbsfile.TextFields,
// which sets it in texts; usage says what it does.
func textFlags(cmd *cobra.Command, texts *wbsfile.Texts, usage func(wbsfile.TextField) string) {
	for _, f := range wbsfile.TextFields {
		cmd.Flags().Var(textFlag{f.Of(texts)}, flagName(f), usage(f))
	}
}

// textFlag sets a text field; given, even as "", it is stated.
type textFlag struct{ p **string }

func (t textFlag) String() string {
	if t.p == nil || *t.p == nil {
		return ""
	}
	return **t.p
}

func (t textFlag) Set(s string) error { *t.p = &s; return nil }
func (t textFlag) Type() string       { return "string" }
