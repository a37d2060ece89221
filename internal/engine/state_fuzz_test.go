package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// The state reader never panics, what it accepts is written back the
// same, and the writer writes exactly what a json.Encoder does.
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
		st, err := readState(bytes.NewReader(b), nil)
		// Read for a plan, the file is refused or accepted alike.
		if _, errNamed := readState(bytes.NewReader(b), newKnownStates([]wbsfile.Record{{Code: "A"}, {Code: "Z"}})); (err == nil) != (errNamed == nil) {
			t.Fatalf("read alone: %v; for records A and Z: %v", err, errNamed)
		}
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := json.NewEncoder(&again).Encode(st); err != nil {
			t.Fatal(err)
		}
		var written bytes.Buffer
		if err := writeState(&written, &st.stateHead, inOrder(st.Elements)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(written.Bytes(), again.Bytes()) {
			t.Fatalf("the writer writes\n%s\na json.Encoder\n%s", written.Bytes(), again.Bytes())
		}
		back, err := readState(bytes.NewReader(again.Bytes()), nil)
		if err != nil || !reflect.DeepEqual(st.Elements, back.Elements) {
			t.Fatalf("round trip: %v\n%s\n%s", err, b, again.Bytes())
		}
	})
}

// inOrder yields the elements of m in the order of their codes; nil where
// m is, as a state file without elements.
func inOrder(m stateElements) iter.Seq2[string, *State] {
	if m == nil {
		return nil
	}
	return func(yield func(string, *State) bool) {
		for _, code := range slices.Sorted(maps.Keys(m)) {
			if !yield(code, m[code]) {
				return
			}
		}
	}
}

// A state file the strict reading refuses is unusable, saying why.
func TestStateRefusals(t *testing.T) {
	for text, want := range map[string]string{
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{}} {}`:                                                     "data after the value",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{},"elements":{}}`:                                          "given more than once",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{"Description":"x"}}}`:                                 "unknown member",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{"isActive":"yes"}}}`:                                  "must be bool",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":[]}`:                                                        "elements: must be an object",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{},"A":{}}}`:                                           "elements.A: given more than once",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{"isActive":true,"isActive":false}}}`:                  "elements.A.isActive: given more than once",
		`{"formatVersion":1,"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{}}`:                                      "formatVersion: given more than once",
		`{"formatversion":1,"baseUrl":"u","clientId":"c","elements":{}}`:                                                        "formatversion: unknown member",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{"businessOrganizations":[{"code":"1","code":"2"}]}}}`: "elements.A.businessOrganizations[0].code: given more than once",
		`[]`: "must be an object",
		`{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{"A":{},}}`: "invalid JSON",
	} {
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		// Read alone, and for a plan of records that name A.
		for _, records := range [][]wbsfile.Record{nil, {{Code: "A"}}} {
			_, err := loadState(context.Background(), statestore.NewFile(path), "u", "c", records)
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrStateUnusable) {
				t.Errorf("%s, records %v: %v, want %q", text, records, err, want)
			}
		}
	}
}
