package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"pgregory.net/rapid"
)

// A saved plan of another format version is refused as such, even where
// its steps break this version's rules: they may mean other things there.
// A plan that does not give its version is refused the same way.
func TestSavedPlanOfAnotherVersionIsNamedSo(t *testing.T) {
	for text, want := range map[string]string{
		`{"formatVersion":2,"baseUrl":"u","clientId":"c","steps":[{"action":"update","wbsElementCode":"C"}]}`:                                                                        "format version 2, want 3",
		`{"formatVersion":4,"steps":[{"action":"rename","wbsElementCode":"C"}]}`:                                                                                                     "format version 4, want 3",
		`{"baseUrl":"u","clientId":"c","steps":[]}`:                                                                                                                                  "format version 0, want 3",
		`{"formatVersion":3,"steps":[{"action":"update","wbsElementCode":"C"}]}`:                                                                                                     `step 1 (update "C"): an update has a before, an after and a record`,
		`{"formatVersion":3,"steps":[{"action":"unchanged","wbsElementCode":"C","before":{"description":null,"isActive":true,"businessOrganizations":null},"fields":["isActive"]}]}`: `step 1 (unchanged "C"): an unchanged element has a before and nothing else`,
	} {
		_, err := readSavedPlan(strings.NewReader(text))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}

// TestSavedPlanOfAnyDescriptionIsAccepted holds the plan and the saved
// plan's check to one comparison: whatever the platform lists as no
// description (null or "") and whatever the record states, the update a
// plan makes is read back from its saved plan as it was made.
func TestSavedPlanOfAnyDescriptionIsAccepted(t *testing.T) {
	dir := t.TempDir()
	desc := rapid.Custom(func(t *rapid.T) *string {
		return rapid.SampledFrom([]*string{nil, new(""), new("a"), new("b")}).Draw(t, "description")
	})
	rapid.Check(t, func(t *rapid.T) {
		before := &State{Texts: wbsfile.Texts{Description: desc.Draw(t, "listed")}, IsActive: rapid.Bool().Draw(t, "listedActive")}
		r := &wbsfile.Record{Line: 2, Code: "P-1", Texts: wbsfile.Texts{Description: desc.Draw(t, "record")},
			IsActive: rapid.SampledFrom([]*bool{nil, new(true), new(false)}).Draw(t, "recordActive")}
		ch := diffElement(r, before)
		if (ch.Action == ActionUpdate) != (deref(before.Description) != deref(ch.Desired().Description) || before.IsActive != ch.Desired().IsActive) {
			t.Fatalf("%s of %+v to %+v", ch.Action, before, ch.Desired())
		}
		plan := &Plan{Changes: []Change{ch}}
		path := filepath.Join(dir, "plan.json")
		if err := plan.WriteSaved(path, "https://p.example", "id", Source{File: "f.csv", FileDigest: "sha256:00"}, time.Now()); err != nil {
			t.Fatal(err)
		}
		sp, err := ReadSavedPlanFile(path)
		if err != nil {
			t.Fatalf("%s of %+v to %+v: %v", ch.Action, before, ch.Desired(), err)
		}
		if got := sp.Plan().Pending(); got != plan.Pending() {
			t.Fatalf("read back pending %v, made %v", got, plan.Pending())
		}
		// The record a reviewer reads states what the file stated: no
		// description member where the file left it out.
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Steps []struct {
				Record map[string]any `json:"record"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Steps) != 1 {
			t.Fatalf("%v: %s", err, b)
		}
		if rec := doc.Steps[0].Record; rec != nil {
			got, stated := rec["description"]
			if stated != (r.Description != nil) || stated && got != *r.Description {
				t.Fatalf("the saved record %v, of a record stating description %v", rec, r.Description)
			}
		}
	})
}
