package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The state reader never panics, what it accepts is written back the
// same, and Save's writer writes exactly what json.Marshal does.
func FuzzState(f *testing.F) {
	for _, s := range []string{
		`{"formatVersion":1,"baseUrl":"https://p.example","clientId":"integrationhub-1","elements":{"A":{"description":"d","isActive":true,"businessOrganizations":[{"code":"1","entityType":"company"}]}}}`,
		`{"formatVersion":1,"baseUrl":"","clientId":"","elements":{}}`, `{"formatVersion":2}`, `null`, `{"elements":{"A":null}}`,
		`{"formatVersion":1,"baseUrl":"u<&>","clientId":"c","elements":{"Z":{},"a\u2028<b>":{"description":"x&y"},"A":{"isActive":true}}}`,
		`{"formatVersion":1,"elements":null}`,
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
		var written bytes.Buffer
		w := bufio.NewWriter(&written)
		if err := st.write(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if !bytes.Equal(written.Bytes(), again) {
			t.Fatalf("Save writes\n%s\njson.Marshal\n%s", written.Bytes(), again)
		}
		back, err := parseState(again)
		if err != nil || !reflect.DeepEqual(st.Known(), back.Known()) {
			t.Fatalf("round trip: %v\n%s\n%s", err, b, again)
		}
	})
}
