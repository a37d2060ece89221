package links

import (
	"slices"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

func TestLinkListsShareEqualLists(t *testing.T) {
	l := newLists(2)
	org := func(typ, code string) sdk.BusinessOrganization {
		return sdk.BusinessOrganization{EntityType: typ, Code: code}
	}
	ab := []sdk.BusinessOrganization{org("company", "1000"), org("branch", "B1")}
	first := l.share(ab)
	again := l.share(slices.Clone(ab))
	if &first[0] != &again[0] {
		t.Error("an equal list is held twice")
	}
	if !slices.Equal(first, ab) {
		t.Errorf("share(%v) = %v", ab, first)
	}
	// Order, and where type ends and code begins, tell lists apart.
	ba := l.share([]sdk.BusinessOrganization{ab[1], ab[0]})
	if ba[0] != ab[1] {
		t.Errorf("the reversed list reads %v", ba)
	}
	if got := l.share([]sdk.BusinessOrganization{org("company1", "000"), ab[1]}); got[0].EntityType != "company1" {
		t.Errorf("company1=000 reads %v", got)
	}
	// Past the bound a list is its own.
	own := []sdk.BusinessOrganization{org("plant", "P1")}
	if got := l.share(own); &got[0] != &own[0] {
		t.Error("a list past the bound was copied")
	}
	// An append to a held list leaves it as it is.
	grown := append(first, org("plant", "P2"))
	if len(l.share(slices.Clone(ab))) != 2 || &grown[0] == &first[0] {
		t.Error("an append changed a held list")
	}
	if l.share(nil) != nil || l.share([]sdk.BusinessOrganization{}) == nil {
		t.Error("nil and an empty list must stay apart")
	}
}
