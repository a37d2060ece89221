package engine

import (
	"strings"
	"testing"
)

// A saved plan of another format version is refused as such, even where
// its steps break this version's rules: they may mean other things there.
// A plan that does not give its version is refused the same way.
func TestSavedPlanOfAnotherVersionIsNamedSo(t *testing.T) {
	for text, want := range map[string]string{
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","steps":[{"action":"update","wbsElementCode":"C"}]}`: "format version 1, want 2",
		`{"formatVersion":3,"steps":[{"action":"rename","wbsElementCode":"C"}]}`:                              "format version 3, want 2",
		`{"baseUrl":"u","clientId":"c","steps":[]}`:                                                           "format version 0, want 2",
		`{"formatVersion":2,"steps":[{"action":"update","wbsElementCode":"C"}]}`:                              `step 1 (update "C"): an update has a before, an after and a record`,
	} {
		_, err := readSavedPlan(strings.NewReader(text))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}
