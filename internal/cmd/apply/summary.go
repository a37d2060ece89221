package apply

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
)

// summaryLine says a run's summary in one line for people, such as
// "create: 10 ok, 1 failed; unchanged: 5 ok (12 requests: …)".
func summaryLine(s engine.Summary) string {
	actions := slices.SortedFunc(maps.Keys(s.Actions), func(a, b engine.Action) int { return strings.Compare(a.String(), b.String()) })
	var parts []string
	for _, a := range actions {
		byStatus := s.Actions[a]
		var st []string
		for _, status := range []engine.Status{engine.StatusOK, engine.StatusFailed, engine.StatusSkipped, engine.StatusInvalid} {
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
		out += fmt.Sprintf(" (%s: %s, %s, %s; %d throttled)", output.Count(int(s.Requests), "request"),
			output.Count(int(s.Reads), "read"), output.Count(int(s.Writes), "write"), output.Count(int(s.Tokens), "token exchange"), s.Throttled)
	}
	return out
}
