package engine

import (
	"encoding/json"
	"errors"
	"io"
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
	// Moved counts the elements a saved plan found otherwise than the
	// platform now holds them; Refused says why a run sent nothing at
	// all (a stale plan, exit 8), empty for a run that went ahead.
	Moved   int    `json:"moved,omitempty"`
	Refused string `json:"refused,omitempty"`
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

// RequestCounts are the HTTP requests of a run, as the command's
// transport counted them.
type RequestCounts struct {
	Sent, Throttled, Reads, Writes, Tokens int64
}

// Summarize counts results, and the requests that made them.
func Summarize(results *Results, requests RequestCounts) Summary {
	s := Summary{Actions: map[Action]map[Status]int{},
		Requests: requests.Sent, Throttled: requests.Throttled,
		Reads: requests.Reads, Writes: requests.Writes, Tokens: requests.Tokens}
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
		case StatusMoved:
			s.Moved++
		}
	}
	return s
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

// RefusedResults are the results of a run refused before any write: one
// per element a stale saved plan found moved (StaleError), or none.
func RefusedResults(err error) *Results {
	rs := newResults(&Plan{})
	if stale := (*StaleError)(nil); errors.As(err, &stale) {
		rs.added = append(rs.added, stale.Moved...)
	}
	return rs
}
