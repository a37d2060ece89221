package notation

import (
	"reflect"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

func TestNotation(t *testing.T) {
	orgs := []sdk.BusinessOrganization{{EntityType: "cost=center", Code: "CC;1"}, {EntityType: `a\b`, Code: "x"}}
	s := Format(orgs)
	if s != `cost\=center=CC\;1;a\\b=x` {
		t.Fatalf("format: %s", s)
	}
	back, err := Parse(s)
	if err != nil || !reflect.DeepEqual(back, orgs) {
		t.Fatalf("parse: %v %v", back, err)
	}
}

// FuzzNotation checks the TYPE=CODE;... notation of CSV cells and
// --org: parsing never panics, and what parses formats back to a string
// that parses to the same organizations.
func FuzzNotation(f *testing.F) {
	for _, s := range []string{"", "company=1000", "company=1000;branch=B1", `cost\=center=CC\;1;a\\b=x`,
		"=", ";", "a=", "=b", `\`, `a=b\`, "a=b;;c=d", "a=b=c", "ä=ö;\u00a0=\u2028", "a=b;a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		orgs, err := Parse(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		again, err := Parse(Format(orgs))
		if err != nil || !reflect.DeepEqual(again, orgs) {
			t.Fatalf("%q: parsed %v, formatted %q, parsed back %v (%v)", s, orgs, Format(orgs), again, err)
		}
	})
}
