package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

// The state written after Begin and Finish holds, in code order, the
// elements the plan does not name as they were, and those it names as the
// plan and its results leave them.
func TestStateWritesPlanAndResults(t *testing.T) {
	desc := func(s string) *string { return &s }
	links := []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}}
	st := NewState("u", "c")
	for _, code := range []string{"A", "C", "D", "F", "G"} {
		st.Elements[code] = &State{Description: desc("old " + code), IsActive: true, BusinessOrganizations: links}
	}
	recs := []Record{
		{Line: 2, Code: "E", Description: desc("new E"), Organizations: links, OrganizationsSet: true},
		{Line: 3, Code: "C"},
		{Line: 4, Code: "B", Description: desc("new B")},
		{Line: 5, Code: "D", Description: desc("changed D")},
	}
	same := &State{Description: desc("old C"), IsActive: true, BusinessOrganizations: links}
	plan := &Plan{Changes: []Change{
		{Action: ActionCreate, Line: 2, Code: "E", record: &recs[0]},
		{Action: ActionUnchanged, Line: 3, Code: "C", record: &recs[1], Before: same, After: same},
		{Action: ActionCreate, Line: 4, Code: "B", record: &recs[2]},
		{Action: ActionUpdate, Line: 5, Code: "D", record: &recs[3], Fields: FieldDescription,
			Before: &State{Description: desc("old D"), IsActive: true}, After: &State{Description: desc("changed D"), IsActive: true}},
		{Action: ActionDelete, Code: "G", Before: &State{IsActive: true}},
	}}
	path := filepath.Join(t.TempDir(), "state.json")
	saved := func() string {
		t.Helper()
		if err := st.Save(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const head = `{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{`
	org := `"businessOrganizations":[{"code":"1000","entityType":"company"}]`

	st.Begin(plan)
	// Before any write: what is about to change has no entry.
	want := head + `"A":{"description":"old A","isActive":true,` + org + `},` +
		`"C":{"description":"old C","isActive":true,` + org + `},` +
		`"F":{"description":"old F","isActive":true,` + org + `}}}`
	if got := saved(); got != want {
		t.Errorf("after Begin:\n got %s\nwant %s", got, want)
	}

	// E and G done, B failed, D not started.
	rs := newResults(plan)
	rs.setStatus(0, StatusOK)
	rs.setStatus(1, StatusOK)
	rs.setStatus(2, StatusFailed)
	rs.setStatus(4, StatusOK)
	st.Finish(rs)
	want = head + `"A":{"description":"old A","isActive":true,` + org + `},` +
		`"C":{"description":"old C","isActive":true,` + org + `},` +
		`"E":{"description":"new E","isActive":true,` + org + `},` +
		`"F":{"description":"old F","isActive":true,` + org + `}}}`
	if got := saved(); got != want {
		t.Errorf("after Finish:\n got %s\nwant %s", got, want)
	}
	back, err := LoadState(path, "u", "c")
	if err != nil || len(back.Elements) != 4 || *back.Elements["E"].Description != "new E" {
		t.Errorf("read back: %v, %v", back, err)
	}
}
