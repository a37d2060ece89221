package engine

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The state reader never panics, and what it accepts is written back the
// same.
func FuzzState(f *testing.F) {
	for _, s := range []string{
		`{"formatVersion":1,"baseUrl":"https://p.example","clientId":"integrationhub-1","elements":{"A":{"description":"d","isActive":true,"businessOrganizations":[{"code":"1","entityType":"company"}]}}}`,
		`{"formatVersion":1,"baseUrl":"","clientId":"","elements":{}}`, `{"formatVersion":2}`, `null`, `{"elements":{"A":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseState(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseState(again)
		if err != nil || !reflect.DeepEqual(st.Known(), back.Known()) {
			t.Fatalf("round trip: %v\n%s\n%s", err, b, again)
		}
	})
}
