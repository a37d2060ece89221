package engine

import (
	"bytes"
	"testing"
)

// The saved plan reader never panics, and a plan it accepts has what its
// steps need to be carried out.
func FuzzSavedPlan(f *testing.F) {
	for _, s := range []string{
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","file":"f","fileDigest":"d","createdAt":"2026-01-01T00:00:00Z","steps":[{"action":"create","wbsElementCode":"A","record":{"wbsElementCode":"A"},"after":{"description":null,"isActive":true,"businessOrganizations":null}}]}`,
		`{"formatVersion":1,"steps":[{"action":"delete","wbsElementCode":"B","before":{"description":"x","isActive":true,"businessOrganizations":null}}]}`,
		`{"formatVersion":1,"steps":[{"action":"update","wbsElementCode":"C"}]}`, `{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sp, err := readSavedPlan(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, st := range sp.Steps {
			if (st.Action == ActionCreate || st.Action == ActionUpdate) && (st.record == nil || st.record.Code != st.Code) {
				t.Fatalf("step without a record accepted: %+v", st)
			}
			if (st.Action == ActionUpdate || st.Action == ActionDelete) && st.Before == nil {
				t.Fatalf("step without a before accepted: %+v", st)
			}
		}
	})
}
