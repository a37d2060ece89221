package erpmap

import (
	"bytes"
	"encoding/csv"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// verdicts ask wbsfile how it reads a cell, so that a map reads a column
// of booleans, and checks a code, exactly as apply reads its own files:
// the booleans of every language wbsfile knows (WAHR, FALSCH, …), and
// the invisible characters it refuses in a code. A column's few distinct
// booleans are each asked once; a code only when it holds a character
// that could be invisible.
type verdicts struct {
	checks   wbsfile.Checks
	booleans map[string]booleanVerdict
}

type booleanVerdict struct {
	value, stated bool
	problem       string
}

func newVerdicts(checks wbsfile.Checks) *verdicts {
	return &verdicts{checks: checks, booleans: map[string]booleanVerdict{}}
}

// maxCachedBooleans bounds the distinct cells of a boolean column kept.
const maxCachedBooleans = 1024

// boolean reads cell as wbsfile reads an isActive cell: an empty cell
// states nothing.
func (v *verdicts) boolean(cell string) (value, stated bool, problem string) {
	if got, ok := v.booleans[cell]; ok {
		return got.value, got.stated, got.problem
	}
	var got booleanVerdict
	file := askWBSFile(wbsfile.Checks{}, []string{"wbsElementCode", "isActive"}, []string{"x", cell})
	switch {
	case file == nil:
		got.problem = "cannot be read as a boolean"
	case len(file.Problems) > 0:
		got.problem = file.Problems[0].Message
	case len(file.Records) == 1 && file.Records[0].IsActive != nil:
		got.value, got.stated = *file.Records[0].IsActive, true
	}
	if len(v.booleans) < maxCachedBooleans {
		v.booleans[cell] = got
	}
	return got.value, got.stated, got.problem
}

// codeProblem is the problem wbsfile finds in code beyond the spec's
// limits (which Read checks itself): an invisible character or a bidi
// control, unless the checks allow them. "" when there is none.
func (v *verdicts) codeProblem(code string) string {
	if v.checks.AllowInvisibleCodes || !mayBeInvisible(code) {
		return ""
	}
	strict := askWBSFile(wbsfile.Checks{}, []string{"wbsElementCode"}, []string{code})
	lax := askWBSFile(wbsfile.Checks{AllowInvisibleCodes: true}, []string{"wbsElementCode"}, []string{code})
	if strict == nil || lax == nil {
		return ""
	}
	for _, p := range strict.Problems {
		found := false
		for _, q := range lax.Problems {
			found = found || q == p
		}
		if !found {
			return p.Message
		}
	}
	return ""
}

// mayBeInvisible reports whether code holds a character that may show as
// nothing: the soft hyphen, or a character from U+034F (the combining
// grapheme joiner, the first such past Latin) on. Codes of ASCII and the
// Latin letters are not asked about.
func mayBeInvisible(code string) bool {
	for i := 0; i < len(code); i++ {
		if code[i] >= 0x80 {
			for _, r := range code[i:] {
				if r == 0xad || r >= 0x34f {
					return true
				}
			}
			return false
		}
	}
	return false
}

// askWBSFile reads a CSV file of one row under header as apply would.
func askWBSFile(checks wbsfile.Checks, header, row []string) *wbsfile.File {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	w.Write(row)
	w.Flush()
	file, err := wbsfile.ParseBytesChecked(b.Bytes(), wbsfile.FormatCSV, wbsfile.ReadOptions{Delimiter: ','}, checks)
	if err != nil {
		return nil
	}
	return file
}
