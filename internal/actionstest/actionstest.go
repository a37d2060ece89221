// Package actionstest is the GitHub Actions runner's reading of a log,
// for tests: which workflow commands it runs.
package actionstest

import "strings"

// Commands returns the names of the workflow commands a runner runs of
// log: each line that starts with "::NAME::" once its blanks are
// trimmed, "\r" ending a line too, except between ::stop-commands::TOKEN
// and ::TOKEN::.
func Commands(log string) []string {
	var run []string
	stopped := "" // the token that resumes, while stopped
	log = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(log)
	for line := range strings.SplitSeq(log, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "::")
		if !ok {
			continue
		}
		head, data, ok := strings.Cut(rest, "::")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(head, " ")
		switch {
		case stopped != "":
			if strings.EqualFold(name, stopped) {
				stopped = ""
			}
		case name == "stop-commands":
			stopped = data
		default:
			run = append(run, name)
		}
	}
	return run
}
