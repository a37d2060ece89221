package apply

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/engine"
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
	return fmt.Sprintf("%s: %s, nothing was sent: %v", e.file, engine.Count(len(e.problems), "problem"), sdk.ErrValidation)
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
// its fingerprint a digest of where and what it is, so that GitLab tells
// a problem fixed from one still there.
func writeCodeQuality(path, file string, problems []wbsfile.Problem) error {
	issues := make([]codeQualityIssue, 0, len(problems))
	for _, p := range problems {
		var is codeQualityIssue
		is.Description = p.String()
		is.CheckName = "wbsctl/" + cmp.Or(p.Field, "file")
		is.Severity = "major"
		is.Location.Path = file
		is.Location.Lines.Begin = max(p.Line, 1)
		sum := sha256.Sum256([]byte(file + "\x00" + p.Place() + "\x00" + p.Code + "\x00" + p.Field + "\x00" + p.Message))
		is.Fingerprint = hex.EncodeToString(sum[:16])
		issues = append(issues, is)
	}
	b, err := json.MarshalIndent(issues, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}
