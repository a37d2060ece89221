package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"pgregory.net/rapid"
)

// planOfEveryKind draws a plan of every kind of change: states held and
// made from records, link changes, text that JSON escapes, and no changes
// at all.
var planOfEveryKind = rapid.Custom(func(t *rapid.T) *Plan {
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
	change := rapid.Custom(func(t *rapid.T) Change {
		ch := Change{
			Action: rapid.SampledFrom([]Action{ActionCreate, ActionUpdate, ActionUnchanged, ActionDelete}).Draw(t, "action"),
			Line:   rapid.Int32Range(0, 1<<20).Draw(t, "line"),
			Code:   text.Draw(t, "code"),
			Fields: FieldSet(rapid.IntRange(0, 7).Draw(t, "fields")),
			before: state.Draw(t, "before"),
			after:  state.Draw(t, "after"),
		}
		if rapid.Bool().Draw(t, "linkChanges") {
			ch.LinkChanges = &LinkChanges{AddOrganizations: orgs.Draw(t, "add"), RemoveOrganizations: orgs.Draw(t, "remove")}
		}
		if rapid.Bool().Draw(t, "record") {
			r := &wbsfile.Record{Code: ch.Code, IsActive: new(rapid.Bool().Draw(t, "recordActive")), Organizations: orgs.Draw(t, "recordLinks")}
			r.OrganizationsSet = r.Organizations != nil
			if rapid.Bool().Draw(t, "recordDescribed") {
				r.Description = new(text.Draw(t, "recordDescription"))
			}
			ch.record = r
		}
		return ch
	})
	return &Plan{Changes: rapid.SliceOfN(change, 0, 6).Draw(t, "changes")}
})

// savedWhole is the saved form of plan held whole, as WriteSaved writes
// it a step at a time.
func savedWhole(p *Plan, baseURL, clientID string, src Source, now time.Time) *SavedPlan {
	sp := p.savedHead(baseURL, clientID, src, now)
	for step := range p.stepsToSave() {
		sp.Steps = append(sp.Steps, step)
	}
	return sp
}

// TestSavedPlanIsWrittenAsSaveMarshals holds WriteSaved, which writes a
// step at a time, to the bytes of the saved plan marshalled at once.
func TestSavedPlanIsWrittenAsSaveMarshals(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 25, 14, 0, 0, 123, time.FixedZone("CET", 3600))
	rapid.Check(t, func(t *rapid.T) {
		plan := planOfEveryKind.Draw(t, "plan")
		plan.prune = rapid.Bool().Draw(t, "prune")
		// A file name that spells the steps member is still a string.
		file := rapid.SampledFrom([]string{"a<&>.csv", "x\n  \"steps\": []\n}", `"steps": []`}).Draw(t, "file")
		args := []string{"https://p.example", "integrationhub-1", file, "sha256:00"}

		want, err := json.MarshalIndent(savedWhole(plan, args[0], args[1], Source{File: args[2], FileDigest: args[3]}, now), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "plan.json")
		if err := plan.WriteSaved(path, args[0], args[1], Source{File: args[2], FileDigest: args[3]}, now); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Fatalf("written:\n%s\nmarshalled whole:\n%s", got, want)
		}
	})
}
