package element_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A create of a code that exists exits 9, however the platform answers
// it (each answer of the reference server), says the element exists and
// names the next step: element update, or apply, which creates or
// updates. The element is left as it was.
func TestCreateOfAnExistingCodeSaysTheNextStep(t *testing.T) {
	const hint = `hint: change it with "wbsctl element update P-100.01 …", or use "wbsctl apply -f FILE", which creates or updates` + "\n"
	for _, answer := range wbstest.DuplicateAnswers() {
		t.Run(answer.String(), func(t *testing.T) {
			srv := wbstest.Start(t, wbstest.WithDuplicateAnswer(answer))
			d := "first"
			srv.Put(wbstest.Element{Code: "P-100.01", Description: &d, IsActive: true})
			r := run(t, srv, false, "", "element", "create", "P-100.01", "--description", "second")
			if r.Code != cmdutil.ExitExists || cmdutil.ExitExists != 9 {
				t.Fatalf("exit %d, want 9: %s", r.Code, r.ErrOut)
			}
			if !strings.HasPrefix(r.ErrOut, "error: P-100.01 exists: POST /v1/wbs-elements: ") || !strings.HasSuffix(r.ErrOut, hint) || r.Out != "" {
				t.Fatalf("stderr:\n%s\nwant the element named as existing, and then\n%s", r.ErrOut, hint)
			}
			if el, _ := srv.Element("P-100.01"); el.Description == nil || *el.Description != "first" {
				t.Fatalf("the element changed: %+v", el)
			}

			r = run(t, srv, false, `{"wbsElementCode":"P-100.01"}`, "element", "create", "--from-file", "-", "-o", "json")
			var doc map[string]any
			if err := json.Unmarshal([]byte(r.ErrOut), &doc); err != nil || r.Code != 9 {
				t.Fatalf("-o json: exit %d, %v: %s", r.Code, err, r.ErrOut)
			}
			if doc["exitCode"] != float64(9) || doc["hint"] != strings.TrimSuffix(strings.TrimPrefix(hint, "hint: "), "\n") ||
				!strings.HasPrefix(doc["error"].(string), "P-100.01 exists: POST /v1/wbs-elements: ") || doc["status"] == nil {
				t.Fatalf("-o json: %s", r.ErrOut)
			}
		})
	}
}

// A code a shell would split or take for a flag is quoted in the next
// step as a shell needs it.
func TestCreateOfAnExistingCodeQuotesItForAShell(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithDuplicateAnswer(wbstest.DuplicateConflictBare))
	for _, tt := range []struct {
		args     []string
		lead     string
		nextStep string
	}{
		{[]string{"P 2=x;y"}, `error: 'P 2=x;y' exists: POST /v1/wbs-elements: 409 Conflict`, `"wbsctl element update 'P 2=x;y' …"`},
		{[]string{"it's"}, `error: 'it'\''s' exists: `, `"wbsctl element update 'it'\''s' …"`},
		{[]string{"--", "-X"}, `error: -X exists: `, `"wbsctl element update … -- -X"`},
	} {
		code := tt.args[len(tt.args)-1]
		srv.Put(wbstest.Element{Code: code, IsActive: true})
		r := run(t, srv, false, "", append([]string{"element", "create"}, tt.args...)...)
		if r.Code != cmdutil.ExitExists || !strings.HasPrefix(r.ErrOut, tt.lead) || !strings.Contains(r.ErrOut, "hint: change it with "+tt.nextStep+", or use") {
			t.Errorf("create %q: exit %d:\n%s\nwant %q and %s", code, r.Code, r.ErrOut, tt.lead, tt.nextStep)
		}
	}
}

// A malformed field is still exit 5, with no word of an element that
// exists; so is a create the platform refuses for a bad field.
func TestCreateOfAMalformedFieldIsNoDuplicate(t *testing.T) {
	srv := wbstest.Start(t)
	r := run(t, srv, false, "", "element", "create", strings.Repeat("x", 31))
	if r.Code != cmdutil.ExitValidation || strings.Contains(r.ErrOut, "exists") || strings.Contains(r.ErrOut, "hint:") {
		t.Fatalf("local validation: exit %d: %s", r.Code, r.ErrOut)
	}
	r = run(t, srv, false, `{"wbsElementCode":"P-1","businessOrganizations":[{"code":"1000"}]}`, "element", "create", "--from-file", "-")
	if r.Code != cmdutil.ExitValidation || strings.Contains(r.ErrOut, "exists") || strings.Contains(r.ErrOut, "hint:") {
		t.Fatalf("platform validation: exit %d: %s", r.Code, r.ErrOut)
	}
	if len(srv.Elements()) != 0 {
		t.Fatalf("elements %v", srv.Elements())
	}
}
