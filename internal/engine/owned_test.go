package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A file that owns some entity types (an ERP export through a map) makes
// the links of those types exact and leaves the others as they are: a
// branch linked by hand survives, a plant the export no longer states is
// removed, and one it states is added.
func TestOwnedTypesLeaveTheOthersAlone(t *testing.T) {
	for name, orgUpdate := range map[string]wbstest.OrgUpdateMode{"merge": wbstest.OrgMerge, "replace": wbstest.OrgReplace} {
		t.Run(name, func(t *testing.T) {
			srv := wbstest.NewServer(wbstest.WithOrgUpdateMode(orgUpdate))
			defer srv.Close()
			srv.Put(wbstest.Element{Code: "P-1", IsActive: true, BusinessOrganizations: []wbstest.BusinessOrganization{
				{Code: "1000", EntityType: "company"}, {Code: "B3", EntityType: "branch"}, {Code: "W1", EntityType: "plant"},
			}})
			c := testClient(t, srv)
			file := &wbsfile.File{Records: []wbsfile.Record{{Line: 2, Code: "P-1", OrganizationsSet: true,
				Organizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "W2", EntityType: "plant"}}}}}
			prune := Prune{OwnedTypes: []string{"company", "plant"}}
			out, err := Run(context.Background(), c, Input{File: file, Prune: prune}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			ch := out.Plan.Changes[0]
			if ch.Action != ActionUpdate || !slices.Equal(ch.Added(), []sdk.BusinessOrganization{{Code: "W2", EntityType: "plant"}}) ||
				!slices.Equal(ch.Removed(), []sdk.BusinessOrganization{{Code: "W1", EntityType: "plant"}}) {
				t.Fatalf("plan %v: added %v, removed %v", ch.Action, ch.Added(), ch.Removed())
			}
			el, _ := srv.Element("P-1")
			got := map[wbstest.BusinessOrganization]bool{}
			for _, o := range el.BusinessOrganizations {
				got[o] = true
			}
			want := []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B3", EntityType: "branch"}, {Code: "W2", EntityType: "plant"}}
			if len(got) != len(want) {
				t.Fatalf("the element holds %v, want %v", el.BusinessOrganizations, want)
			}
			for _, o := range want {
				if !got[o] {
					t.Fatalf("the element holds %v, want %v", el.BusinessOrganizations, want)
				}
			}
			// Applied again, nothing changes: the branch is not the file's.
			file.Records[0].Organizations = []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "W2", EntityType: "plant"}}
			out, err = Run(context.Background(), c, Input{File: file, Prune: prune, DryRun: true}, Hooks{})
			if err != nil || out.Plan.Pending() {
				t.Fatalf("a second run plans %v (%v)", out.Plan.Counts(), err)
			}
		})
	}
}
