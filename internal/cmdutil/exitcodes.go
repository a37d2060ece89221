package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
)

// Exit codes of wbsctl; ExitCodes says what each means, and `wbsctl help
// exit-codes` and docs/exit-codes.md are made from it.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitUsage      = 2
	ExitNotFound   = 3
	ExitAuth       = 4
	ExitValidation = 5
	ExitPartial    = 6
	ExitPending    = 7
	// ExitPlanStale is a saved plan the platform no longer matches.
	ExitPlanStale = 8
	// ExitExists is a create refused because the element exists
	// (sdk.ErrDuplicate).
	ExitExists = 9
	// ExitOlderCommit is a run whose file is of an older commit than the
	// state's last apply.
	ExitOlderCommit = 10
	// ExitPartialPlan is a plan whose --max-duration passed before it
	// read what it needed.
	ExitPartialPlan = 11
	// ExitInterrupted is the code of a command stopped by SIGINT: 128 +
	// the signal's number, as a shell reports a process a signal ended.
	// SIGTERM gives 143 by the same rule.
	ExitInterrupted = 130
)

// ExitCodeInfo is a row of ExitCodes: an exit code and what it means.
type ExitCodeInfo struct {
	Code int
	// Also are further codes the row stands for: 143, SIGTERM's, beside
	// SIGINT's 130.
	Also []int
	// Meaning is one line of Markdown, as docs/exit-codes.md shows it;
	// the help text drops its backquotes.
	Meaning string
}

// Codes are the row's Code and its Also.
func (e ExitCodeInfo) Codes() []int { return append([]int{e.Code}, e.Also...) }

// Label is the row's codes as the help and the docs show them: "130, 143".
func (e ExitCodeInfo) Label() string {
	var s []string
	for _, c := range e.Codes() {
		s = append(s, strconv.Itoa(c))
	}
	return strings.Join(s, ", ")
}

// ExitCodes is the one table of wbsctl's exit codes, in order: every
// code ExitCode returns has a row, and no code two. ExitCodesHelp is made
// from it, and so is docs/exit-codes.md, by `go run
// ./internal/tools/gendocs -markdown docs/cli`.
var ExitCodes = []ExitCodeInfo{
	{Code: ExitOK, Meaning: "success"},
	{Code: ExitError, Meaning: "an error not listed below (network, server error, unknown outcome; the state's lock another run holds, or took from this run)"},
	{Code: ExitUsage, Meaning: "usage: a flag, argument, option or request wbsctl refuses before sending anything; the message says nothing was sent"},
	{Code: ExitNotFound, Meaning: "not found"},
	{Code: ExitAuth, Meaning: "authentication or permission (no or refused credentials, 401, 403)"},
	{Code: ExitValidation, Meaning: "validation: a 400 (other than for a code that exists, which is 9), or a local check before sending"},
	{Code: ExitPartial, Meaning: "partial failure of a bulk operation"},
	{Code: ExitPending, Meaning: "changes pending (`apply --dry-run --detailed-exitcode`)"},
	{Code: ExitPlanStale, Meaning: "plan stale: the platform changed since the saved plan of `apply --plan` was made, or another apply wrote the state it was made with since, or its -f file or --map file reads otherwise than when it was made; nothing was sent"},
	{Code: ExitExists, Meaning: "the element exists: a create (`element create`, or `api -X POST /v1/wbs-elements`) of a code the platform holds, answered 409 or with a 400 that says so (`sdk.ErrDuplicate`); the element is left as it was. Change it with `wbsctl element update CODE …`, or use `wbsctl apply -f FILE`, which creates or updates. `apply` settles such a create per element: it reads the element back and brings it to the file"},
	{Code: ExitOlderCommit, Meaning: "older commit: `apply`'s file (or its saved plan's) is of a commit older than the one the state's last apply carried out, as CI names them (`GITHUB_SHA`, `CI_COMMIT_SHA`); run, it would put an older file's values over a newer one's. Nothing was sent: plan the newest commit, or give `--allow-older-commit` to do so on purpose"},
	{Code: ExitPartialPlan, Meaning: "partial plan: `apply --dry-run --max-duration` passed its time before it read every link it needed; the plan shown is partial and no saved plan is written, the state holds what was read, and the next plan goes on from there"},
	{Code: ExitInterrupted, Also: []int{143}, Meaning: "interrupted: 128 + the signal's number, 130 for SIGINT and 143 for SIGTERM, as a shell reports a process a signal ended (`apply`: run it again to finish; an apply whose every change was made when the signal came exits as if none had come, and says so). A create, update or flow execution already sent when the signal came says that it may have been carried out, and that the platform's state is to be checked before running the command again"},
}

// ExitCodesHelp is the text of `wbsctl help exit-codes`: the rows of
// ExitCodes in plain text.
var ExitCodesHelp = exitCodesHelp(ExitCodes, exitCodesHelpWidth)

// exitCodesHelpWidth is the most columns of a line of ExitCodesHelp.
const exitCodesHelpWidth = 79

// exitCodesHelp lists rows in lines of at most width columns (a longer
// word keeps its line): each row's codes right-aligned, then its meaning
// without backquotes, its further lines indented under the first.
func exitCodesHelp(rows []ExitCodeInfo, width int) string {
	labelWidth := 0
	for _, r := range rows {
		labelWidth = max(labelWidth, len(r.Label()))
	}
	indent := strings.Repeat(" ", labelWidth+2)
	var b strings.Builder
	b.WriteString("wbsctl exits with:\n\n")
	for _, r := range rows {
		line := fmt.Sprintf("%*s ", labelWidth, r.Label())
		n := 0 // words on line
		for _, w := range strings.Fields(strings.ReplaceAll(r.Meaning, "`", "")) {
			if n > 0 && len([]rune(line))+1+len([]rune(w)) > width {
				b.WriteString(line + "\n")
				line, n = indent[:len(indent)-1], 0
			}
			line += " " + w
			n++
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
