package apply

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// TestPlanYAMLIsTheDocumentEncoded holds writePlanYAML, which encodes a
// change at a time, to what -o yaml writes for the whole document at
// once, for plans of every kind of change and text that YAML quotes,
// folds into blocks or escapes.
func TestPlanYAMLIsTheDocumentEncoded(t *testing.T) {
	text := rapid.SampledFrom([]string{"", "P-1", "1000", "true", "null", "a: b", "- x", "#c", " lead", "trail ",
		"two\nlines", "gap\n\nline", "\n", "ü\u2028\t\"\\", "\x1b[31m", "~", "'q'", "a<b>&c"})
	orgs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) sdk.BusinessOrganization {
		return sdk.BusinessOrganization{Code: text.Draw(t, "code"), EntityType: text.Draw(t, "type")}
	}), -1, 3)
	state := rapid.Custom(func(t *rapid.T) *engine.State {
		if rapid.Bool().Draw(t, "nil") {
			return nil
		}
		s := &engine.State{IsActive: rapid.Bool().Draw(t, "active"), BusinessOrganizations: orgs.Draw(t, "links")}
		if rapid.Bool().Draw(t, "described") {
			s.Description = new(text.Draw(t, "description"))
		}
		return s
	})
	change := rapid.Custom(func(t *rapid.T) engine.Change {
		ch := engine.Change{
			Action: rapid.SampledFrom([]engine.Action{engine.ActionCreate, engine.ActionUpdate, engine.ActionUnchanged, engine.ActionDelete}).Draw(t, "action"),
			Line:   rapid.Int32Range(0, 1<<20).Draw(t, "line"),
			Code:   text.Draw(t, "code"),
			Fields: engine.FieldSet(rapid.IntRange(0, 7).Draw(t, "fields")),
			Before: state.Draw(t, "before"),
			After:  state.Draw(t, "after"),
		}
		if rapid.Bool().Draw(t, "linkChanges") {
			ch.LinkChanges = &engine.LinkChanges{AddOrganizations: orgs.Draw(t, "add"), RemoveOrganizations: orgs.Draw(t, "remove")}
		}
		return ch
	})
	rapid.Check(t, func(t *rapid.T) {
		plan := &engine.Plan{Changes: rapid.SliceOfN(change, 0, 5).Draw(t, "changes")}
		showUnchanged := rapid.Bool().Draw(t, "showUnchanged")

		var want bytes.Buffer
		p, err := output.New(&want, output.Options{Format: "yaml"})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Single(plan.Document(showUnchanged)); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writePlanYAML(&got, plan, showUnchanged); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("written:\n%s\nencoded whole:\n%s", got.String(), want.String())
		}
	})
}
