package engine

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// TestDocumentJSONIsTheDocumentEncoded holds WriteDocumentJSON, which
// writes a change at a time, to the bytes of the whole document encoded
// at once, for plans of every kind of change: states held and made from
// records, link changes, text that JSON escapes, and empty plans.
func TestDocumentJSONIsTheDocumentEncoded(t *testing.T) {
	text := rapid.SampledFrom([]string{"", "P-1", "a<b>&c", "ü\u2028\t\"\\", "line\nbreak"})
	orgs := rapid.Custom(func(t *rapid.T) []sdk.BusinessOrganization {
		return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) sdk.BusinessOrganization {
			return sdk.BusinessOrganization{Code: text.Draw(t, "code"), EntityType: text.Draw(t, "type")}
		}), -1, 3).Draw(t, "orgs")
	})
	state := rapid.Custom(func(t *rapid.T) *State {
		if rapid.Bool().Draw(t, "nil") {
			return nil
		}
		s := &State{IsActive: rapid.Bool().Draw(t, "active"), BusinessOrganizations: orgs.Draw(t, "links")}
		if rapid.Bool().Draw(t, "described") {
			d := text.Draw(t, "description")
			s.Description = &d
		}
		return s
	})
	rapid.Check(t, func(t *rapid.T) {
		var records []Record
		changes := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Change {
			ch := Change{
				Action: rapid.SampledFrom([]Action{ActionCreate, ActionUpdate, ActionUnchanged, ActionDelete}).Draw(t, "action"),
				Line:   rapid.Int32Range(0, 1<<20).Draw(t, "line"),
				Code:   text.Draw(t, "code"),
				Fields: FieldSet(rapid.IntRange(0, 7).Draw(t, "fields")),
				Before: state.Draw(t, "before"),
				After:  state.Draw(t, "after"),
			}
			if rapid.Bool().Draw(t, "linkChanges") {
				ch.LinkChanges = &LinkChanges{AddOrganizations: orgs.Draw(t, "add"), RemoveOrganizations: orgs.Draw(t, "remove")}
			}
			if rapid.Bool().Draw(t, "record") {
				r := Record{Code: ch.Code, IsActive: new(rapid.Bool().Draw(t, "recordActive")), Organizations: orgs.Draw(t, "recordLinks")}
				r.OrganizationsSet = r.Organizations != nil
				records = append(records, r)
				ch.record = &records[len(records)-1]
			}
			return ch
		}), 0, 6).Draw(t, "changes")
		plan := &Plan{Changes: changes}
		showUnchanged := rapid.Bool().Draw(t, "showUnchanged")

		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(plan.Document(showUnchanged)); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := plan.WriteDocumentJSON(&got, showUnchanged); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("written:\n%s\nencoded whole:\n%s", got.String(), want.String())
		}
	})
}
