package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// workflowCommand is p as a GitHub Actions workflow command, which the
// runner shows as an error on the file's own line:
//
//	::error file=wbs.csv,line=12,title=wbsctl apply::line 12 (code "P-1"): description: …
//
// The message and the properties are escaped as the actions toolkit
// escapes them (%, CR and LF; in a property also : and ,), so that text of
// the file can neither end the command nor start another; controls are
// escaped as on a terminal first.
func workflowCommand(file string, p wbsfile.Problem) string {
	props := []string{"file=" + escapeProperty(output.Escape(file))}
	if p.Line > 0 {
		props = append(props, "line="+strconv.Itoa(p.Line))
	}
	props = append(props, "title="+escapeProperty("wbsctl apply"))
	return "::error " + strings.Join(props, ",") + "::" + escapeData(output.Escape(p.String()))
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// problemsError is a file with problems, of which nothing was sent. With
// -o json the error carries them as data (cmdutil.DataError).
type problemsError struct {
	file     string
	problems []wbsfile.Problem
}

func (e *problemsError) Error() string {
	return fmt.Sprintf("%s: %s, nothing was sent: %v", e.file, output.Count(len(e.problems), "problem"), sdk.ErrValidation)
}

func (e *problemsError) Unwrap() error { return sdk.ErrValidation }

// ErrorData is the file and its problems, each with its line (or sheet
// and cell), code, field and message.
func (e *problemsError) ErrorData() map[string]any {
	return map[string]any{"file": e.file, "problems": e.problems}
}

// codeQualityIssue is a problem as a GitLab Code Quality report holds it
// (the subset of the Code Climate format GitLab reads).
type codeQualityIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

// writeCodeQuality writes problems of file to path as a GitLab Code
// Quality report: an issue a problem, on its line (1 where it has none),
// at the file's path in the repository (see reportPath), its description
// escaped as on a terminal, its check name the kind of problem it is
// (see checkName), and its fingerprint a digest of where and what it is,
// so that GitLab tells a problem fixed from one still there however -f
// was spelt. GitLab sets CI_PROJECT_DIR to the clone a job runs in.
func writeCodeQuality(path, file string, problems []wbsfile.Problem) error {
	where := reportPath(file, os.Getenv("CI_PROJECT_DIR"))
	issues := make([]codeQualityIssue, 0, len(problems))
	for _, p := range problems {
		var is codeQualityIssue
		is.Description = output.Escape(p.String())
		is.CheckName = checkName(p)
		is.Severity = "major"
		is.Location.Path = where
		is.Location.Lines.Begin = max(p.Line, 1)
		sum := sha256.Sum256([]byte(where + "\x00" + p.Place() + "\x00" + p.Code + "\x00" + p.Field + "\x00" + p.Message))
		is.Fingerprint = hex.EncodeToString(sum[:16])
		issues = append(issues, is)
	}
	b, err := json.MarshalIndent(issues, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

// reportPath is file as a Code Quality report names it: relative to
// root, the repository's root (CI_PROJECT_DIR), or to the working
// directory when root is "", cleaned and with forward slashes, which is
// how GitLab names the files of a merge request's diff. A file outside
// the root keeps its path as given, cleaned: there is no path in the
// repository to give. Stdin is "-", as -f names it and as wbsctl's
// messages do.
func reportPath(file, root string) string {
	if file == "-" {
		return "-"
	}
	cleaned := filepath.Clean(file)
	abs, err := filepath.Abs(cleaned)
	if err == nil && root == "" {
		root, err = os.Getwd()
	}
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err == nil {
		// IsLocal refuses "..", "../x" and another volume's path.
		if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(cleaned)
}

// The check names of a Code Quality report, one a kind of problem. GitLab
// shows a check name beside the problem and groups by it, so it is made
// of the kind alone, never of the file's text.
const (
	// checkInvalidEncoding: the bytes are not text in the file's
	// encoding (not UTF-8, a byte-order mark against --encoding, a byte
	// no character of windows-1252, a lone UTF-16 surrogate).
	checkInvalidEncoding = "wbsctl/invalid-encoding"
	// checkInvalidSyntax: the file is not one of its format (invalid
	// JSON or YAML, an unreadable CSV row, a row of another number of
	// cells, data after the records, a document not of records).
	checkInvalidSyntax = "wbsctl/invalid-syntax"
	// checkInvalidWorkbook: a workbook, sheet or cell that cannot be
	// read as a spreadsheet shows it (a damaged file, a formula never
	// calculated, no such sheet).
	checkInvalidWorkbook = "wbsctl/invalid-workbook"
	// checkNoRecords: the file holds no records.
	checkNoRecords = "wbsctl/no-records"
	// checkUnknownMember: a member or column the spec does not have.
	checkUnknownMember = "wbsctl/unknown-member"
	// checkDuplicateMember: a member or column given twice.
	checkDuplicateMember = "wbsctl/duplicate-member"
	// checkMissingValue: a value that must be there is not (a record
	// without wbsElementCode, an empty code, a header without its column).
	checkMissingValue = "wbsctl/missing-value"
	// checkInvalidValue: a value of the wrong type or form (a boolean
	// that is none, organizations that are not TYPE=CODE, a date cell).
	checkInvalidValue = "wbsctl/invalid-value"
	// checkTooLong: text longer than the spec allows.
	checkTooLong = "wbsctl/too-long"
	// checkControlCharacter: text with a control character, or a code
	// with a character that shows as nothing or a bidi control (refused
	// unless --allow-invisible-codes).
	checkControlCharacter = "wbsctl/control-character"
	// checkDuplicateCode: a code given by another record too.
	checkDuplicateCode = "wbsctl/duplicate-code"
	// checkInvalidRecord: any other problem.
	checkInvalidRecord = "wbsctl/invalid-record"
)

// checkName is the check name of p's kind. A Problem does not carry its
// kind, so it is told by the words wbsfile and the SDK's validation
// start their messages with (a few by words further on, after a number
// or the file's text), and else by its field; a message of no known kind
// is checkInvalidRecord. Text of the file can at worst make a problem
// look like another kind: the name is always one of the constants.
func checkName(p wbsfile.Problem) string {
	m := p.Message
	starts := func(prefixes ...string) bool {
		return slices.ContainsFunc(prefixes, func(s string) bool { return strings.HasPrefix(m, s) })
	}
	holds := func(parts ...string) bool {
		return slices.ContainsFunc(parts, func(s string) bool { return strings.Contains(m, s) })
	}
	switch {
	case p.Field == "wbsElementCode" && starts("the same code is"):
		return checkDuplicateCode
	case starts("unknown member", "unknown column"):
		return checkUnknownMember
	case m == "given more than once" || m == "column given twice":
		return checkDuplicateMember
	case starts("is required", "is empty (limit", "the header has no "):
		return checkMissingValue
	case starts("is ") && holds(" characters long (limit"):
		return checkTooLong
	case starts("holds the control character", "holds the invisible character", "holds the bidi control"):
		return checkControlCharacter
	case starts("cannot be read as a workbook", "cannot read the workbook", "cannot read the sheet",
		"the workbook ", "every sheet of the workbook", "the sheet has more than",
		"holds a formula whose value was never calculated") ||
		strings.HasSuffix(m, "the file is damaged") || holds("half of a character escaped as Excel writes one"):
		return checkInvalidWorkbook
	case starts("is not valid UTF-8", "starts with the byte-order mark", "is UTF-16 by its byte-order mark",
		"holds the byte ", "cannot be read as "):
		return checkInvalidEncoding
	case m == "the file holds no records":
		return checkNoRecords
	case starts("invalid JSON", "invalid YAML", "unreadable ", "data after ", "the array is not closed",
		"a JSON file must hold", "a YAML file must hold", "a second YAML document", "a record must be a mapping",
		"must be an array of records", "must be a sequence of records", "the header holds ") ||
		(starts("has ") && holds(" cells, the header ")):
		return checkInvalidSyntax
	case starts("must be ", "wrong type", "is a date", "holds the number", "holds the error", "holds the escaped character") ||
		p.Field == "isActive" || p.Field == "businessOrganizations":
		// The fields: a value's own message, such as `"maybe" is not a
		// boolean` or `"x": want TYPE=CODE`, starts with the file's text.
		return checkInvalidValue
	}
	return checkInvalidRecord
}
