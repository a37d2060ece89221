package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Summary counts the results of a run.
type Summary struct {
	Records int `json:"records"`
	// Actions counts the results per action and status, such as
	// {"create": {"ok": 10, "failed": 1}}.
	Actions map[Action]map[Status]int `json:"actions"`
	Failed  int                       `json:"failed"`
	Skipped int                       `json:"skipped"`
	Invalid int                       `json:"invalid"`
	// Requests counts the HTTP attempts of the run, retries included.
	Requests int64 `json:"requests,omitempty"`
	// Reads, Writes and Tokens count the answers to reads (the plan's
	// and the read-backs), to writes and to token exchanges.
	Reads  int64 `json:"reads"`
	Writes int64 `json:"writes"`
	Tokens int64 `json:"tokenExchanges"`
	// Throttled counts the 429 answers seen.
	Throttled   int64 `json:"throttled"`
	Interrupted bool  `json:"interrupted,omitempty"`
}

// Summarize counts results.
func Summarize(results *Results) Summary {
	s := Summary{Actions: map[Action]map[Status]int{}}
	for _, r := range results.All() {
		if r.Line > 0 {
			s.Records++
		}
		if s.Actions[r.Action] == nil {
			s.Actions[r.Action] = map[Status]int{}
		}
		s.Actions[r.Action][r.Status]++
		switch r.Status {
		case StatusFailed:
			s.Failed++
		case StatusSkipped:
			s.Skipped++
		case StatusInvalid:
			s.Invalid++
		}
	}
	return s
}

// String renders the summary in one line for people, such as
// "create: 10 ok, 1 failed; unchanged: 5 ok".
func (s Summary) String() string {
	actions := slices.SortedFunc(maps.Keys(s.Actions), func(a, b Action) int { return strings.Compare(a.String(), b.String()) })
	var parts []string
	for _, a := range actions {
		byStatus := s.Actions[a]
		var st []string
		for _, status := range []Status{StatusOK, StatusFailed, StatusSkipped, StatusInvalid} {
			if n := byStatus[status]; n > 0 {
				st = append(st, fmt.Sprintf("%d %s", n, status))
			}
		}
		parts = append(parts, a.String()+": "+strings.Join(st, ", "))
	}
	out := strings.Join(parts, "; ")
	if out == "" {
		out = "nothing to do"
	}
	if s.Requests > 0 {
		out += fmt.Sprintf(" (%s: %s, %s, %s; %d throttled)", Count(int(s.Requests), "request"),
			Count(int(s.Reads), "read"), Count(int(s.Writes), "write"), Count(int(s.Tokens), "token exchange"), s.Throttled)
	}
	return out
}

// Count is n and the noun, in the plural unless n is 1: "1 read",
// "3 problems".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WriteReport writes one JSON line per result, then one line holding the
// summary: {"summary": {...}}.
func WriteReport(w io.Writer, results *Results, s Summary) error {
	enc := json.NewEncoder(w)
	for _, r := range results.All() {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return enc.Encode(struct {
		Summary Summary `json:"summary"`
	}{s})
}
