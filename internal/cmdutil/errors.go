package cmdutil

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// ErrInterrupted is a command stopped by SIGINT or SIGTERM; the error of
// such a command is an *Interrupted, which matches it.
var ErrInterrupted = errors.New("interrupted")

// Interrupted is a command stopped by a signal. Its exit code is 128 +
// the signal's number: 130 for SIGINT, 143 for SIGTERM.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string {
	if e.Signal == nil {
		return "interrupted"
	}
	return "interrupted by " + signalName(e.Signal)
}

// Is makes every *Interrupted match ErrInterrupted.
func (e *Interrupted) Is(target error) bool { return target == ErrInterrupted }

// exitCode is 128 + the signal's number where the signal has one.
func (e *Interrupted) exitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok && s > 0 && s < 64 {
		return 128 + int(s)
	}
	return ExitInterrupted
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// UsageError is a command line wbsctl cannot read.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// AuthError is a missing or unusable credential.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// PartialError is a bulk operation where some items failed, or, as What
// says, were left out.
type PartialError struct {
	Failed, Total int
	What          string // what befell them; "failed" when empty
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d %s", e.Failed, e.Total, cmp.Or(e.What, "failed"))
}

// HintError is an error with the next step to take: PrintError writes
// the error as it would without it, then "hint: " and the step, and -o
// json adds it as "hint".
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// hint is the next step to print after err: its HintError's, else one
// for a TLS failure, else one for an error a first use meets.
func hint(err error) string {
	var he *HintError
	if errors.As(err, &he) && he.Hint != "" {
		return he.Hint
	}
	if h := certificateHint(err); h != "" {
		return h
	}
	return nextStep(err)
}

// ExitCode maps the error of a command to the process's exit code.
func ExitCode(err error) int {
	var (
		usage   *UsageError
		auth    *AuthError
		partial *PartialError
		pending *PendingError
		stale   *PlanStaleError
		older   *OlderCommitError
		part    *PartialPlanError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage):
		return ExitUsage
	case errors.Is(err, ErrInterrupted):
		var intr *Interrupted
		if errors.As(err, &intr) {
			return intr.exitCode()
		}
		return ExitInterrupted
	case errors.As(err, &partial):
		return ExitPartial
	case errors.As(err, &pending):
		return ExitPending
	case errors.As(err, &stale):
		return ExitPlanStale
	case errors.As(err, &older):
		return ExitOlderCommit
	case errors.As(err, &part):
		return ExitPartialPlan
	case errors.As(err, &auth), errors.Is(err, sdk.ErrUnauthorized), errors.Is(err, sdk.ErrForbidden), errors.Is(err, sdk.ErrInvalidCredentials),
		clientCertificateRefused(err):
		return ExitAuth
	case errors.Is(err, sdk.ErrDuplicate):
		return ExitExists
	case errors.Is(err, sdk.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, sdk.ErrValidation):
		return ExitValidation
	}
	return ExitError
}

// PrintError writes err on w: the problem details readably, or as JSON
// when asJSON.
func PrintError(w io.Writer, err error, asJSON bool) {
	var apiErr *sdk.APIError
	var ve *sdk.ValidationError
	if asJSON {
		doc := map[string]any{"error": err.Error(), "exitCode": ExitCode(err)}
		if errors.As(err, &apiErr) {
			doc["status"] = apiErr.StatusCode
			if apiErr.Problem != nil {
				doc["problem"] = apiErr.Problem
			}
			if apiErr.CorrelationID != "" {
				doc["correlationId"] = apiErr.CorrelationID
			}
		}
		if errors.As(err, &ve) {
			doc["violations"] = ve.Violations
		}
		if hint := hint(err); hint != "" {
			doc["hint"] = hint
		}
		var de DataError
		if errors.As(err, &de) {
			for k, v := range de.ErrorData() {
				doc[k] = v
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(doc)
		return
	}
	// Every string here may come from the platform or a file: escaped,
	// so that no escape sequence or bidi control reaches a terminal.
	esc := output.Escape
	switch {
	case errors.As(err, &apiErr) && apiErr.Problem != nil:
		p := apiErr.Problem
		// What wbsctl was doing, then what the platform said, on one
		// line: "error: list WBS elements: GET /v1/wbs-elements: …".
		lead := "error: "
		if context := strings.TrimSuffix(strings.TrimSuffix(err.Error(), apiErr.Error()), ": "); context != err.Error() && context != "" {
			lead += output.EscapeLines(context) + ": "
		}
		fmt.Fprintf(w, "%s%s %s: %s\n", lead, apiErr.Method, esc(apiErr.Path), esc(cmp.Or(p.Title, fmt.Sprint(apiErr.StatusCode))))
		for _, kv := range [][2]string{{"detail", p.Detail}, {"status", fmt.Sprint(apiErr.StatusCode)}, {"type", p.Type}, {"instance", p.Instance}, {"correlation id", apiErr.CorrelationID}} {
			if kv[1] != "" {
				fmt.Fprintf(w, "  %-15s %s\n", kv[0]+":", esc(kv[1]))
			}
		}
	case errors.As(err, &ve):
		fmt.Fprintf(w, "error: %s: invalid request\n", ve.Operation)
		for _, v := range ve.Violations {
			fmt.Fprintf(w, "  %s: %s (limit: %s)\n", esc(v.Field), esc(v.Message), esc(v.Limit))
		}
	default:
		fmt.Fprintf(w, "error: %s\n", output.EscapeLines(err.Error()))
	}
	if hint := hint(err); hint != "" {
		fmt.Fprintf(w, "hint: %s\n", output.EscapeLines(hint))
	}
}

// clientCertificateRefused reports the platform's refusal of the client
// certificate, or of its absence: a credential refused.
func clientCertificateRefused(err error) bool {
	var te *sdk.TLSError
	return errors.As(err, &te) && te.ClientCertificate()
}

// DataError is an error that carries data for -o json, such as the
// problems of a file: its members are added to the error's document.
type DataError interface {
	error
	ErrorData() map[string]any
}

// PendingError is a dry run that found changes, asked to say so.
type PendingError struct{}

func (*PendingError) Error() string { return "changes pending" }

// PartialPlanError is a plan that ran out of its time before it read
// what it needed.
type PartialPlanError struct{ Err error }

func (e *PartialPlanError) Error() string { return e.Err.Error() }
func (e *PartialPlanError) Unwrap() error { return e.Err }

// OlderCommitError is a run whose file is from a commit older than the
// one the state's last apply carried out.
type OlderCommitError struct{ Err error }

func (e *OlderCommitError) Error() string { return e.Err.Error() }
func (e *OlderCommitError) Unwrap() error { return e.Err }

// PlanStaleError is a saved plan that the platform no longer matches.
type PlanStaleError struct{ Err error }

func (e *PlanStaleError) Error() string { return e.Err.Error() }
func (e *PlanStaleError) Unwrap() error { return e.Err }
