package strictjson

import (
	"errors"
	"fmt"
	"testing"
)

type org struct {
	Code       string `json:"code"`
	EntityType string `json:"entityType"`
}

type record struct {
	Code          *string `json:"wbsElementCode"`
	Description   *string `json:"description"`
	IsActive      *bool   `json:"isActive"`
	Organizations *[]org  `json:"businessOrganizations"`
}

// Every way a text could be read other than written is refused, naming
// the member, and a text that can be read only one way is read.
func TestUnmarshal(t *testing.T) {
	for _, tt := range []struct {
		json    string
		kind    Kind
		path    string
		message string // "" : accepted
	}{
		{`{"wbsElementCode":"A","description":"d"}`, 0, "", ""},
		{` {"wbsElementCode":"A","description":null} `, 0, "", ""},
		{`{"wbsElementCode":"\ud83d\ude00"}`, 0, "", ""},
		{`{"wbsElementCode":"\\ud800"}`, 0, "", ""},
		{`{"wbsElementCode":"A","wbsElementCode":"B"}`, Duplicate, "wbsElementCode", "given more than once"},
		{`{"wbsElementCode":"A","WBSELEMENTCODE":"B"}`, Unknown, "WBSELEMENTCODE", `unknown member; the spec spells it "wbsElementCode"`},
		{`{"WbsElementCode":"A"}`, Unknown, "WbsElementCode", `unknown member; the spec spells it "wbsElementCode"`},
		{`{"wbsElementCode":"A","businessOrganizations":[{"code":"1","entityType":"c"},{"code":"2","entityType":"c","entityType":"d"}]}`,
			Duplicate, "businessOrganizations[1].entityType", "given more than once"},
		{`{"wbsElementCode":"A","businessOrganizations":[{"code":"1","x":"c"}]}`, Unknown, "businessOrganizations[0].x", "unknown member (known: code, entityType)"},
		{`{"wbsElementCode":"A","colour":"red"}`, Unknown, "colour", "unknown member (known: wbsElementCode, description, isActive, businessOrganizations)"},
		{`{"wbsElementCode":1}`, Type, "wbsElementCode", "must be string, not number"},
		{`{"wbsElementCode":"A","isActive":"yes"}`, Type, "isActive", "must be bool, not string"},
		{`{"wbsElementCode":true}`, Type, "wbsElementCode", "must be string, not bool"},
		{`{"wbsElementCode":"A","businessOrganizations":{}}`, Type, "businessOrganizations", "must be array, not object"},
		{`{"wbsElementCode":"A"}{"b":2}`, DataAfter, "", "data after the value"},
		{`{"wbsElementCode":"A"} x`, DataAfter, "", "data after the value"},
		{`{"wbsElementCode":"\ud800"}`, Syntax, "wbsElementCode", ""},
		{`{"wbsElementCode":"\udc00x"}`, Syntax, "wbsElementCode", ""},
		{`{"wbsElementCode":"\ud800\u0041"}`, Syntax, "wbsElementCode", ""},
		{`{"wbsElementCode":"A"`, Syntax, "", ""},
	} {
		var r record
		err := Unmarshal([]byte(tt.json), &r)
		var e *Error
		accepted := tt.message == "" && tt.kind == 0 && tt.path == ""
		switch {
		case accepted && err != nil:
			t.Errorf("%s: %v", tt.json, err)
		case accepted:
		case !errors.As(err, &e) || e.Kind != tt.kind || e.Path != tt.path || (tt.message != "" && e.Message != tt.message):
			t.Errorf("%s: %#v, want kind %d at %q: %s", tt.json, err, tt.kind, tt.path, tt.message)
		}
	}
}

type part struct {
	Shade shade `json:"shade,omitempty"`
}

type shade int

func (s *shade) UnmarshalJSON(b []byte) error {
	if string(b) != `"dark"` {
		return Refuse("dark is the only shade")
	}
	*s = 1
	return nil
}

type whole struct {
	part
	*Inner
	Name string `json:"name"`
}

type Inner struct {
	Size int `json:"size"`
}

// An embedded struct's members are named as the whole's own, and a type's
// own refusal is reported as it says it.
func TestEmbeddedAndOwnRefusals(t *testing.T) {
	var w whole
	var e *Error
	err := Unmarshal([]byte(`{"name":"a","colour":1}`), &w)
	if !errors.As(err, &e) || e.Message != "unknown member (known: shade, size, name)" {
		t.Errorf("%v", err)
	}
	err = Unmarshal([]byte(`{"name":"a","shade":"light"}`), &w)
	if !errors.As(err, &e) || e.Path != "shade" || e.Message != "dark is the only shade" {
		t.Errorf("%#v", err)
	}
	if err := Unmarshal([]byte(`{"name":"a","shade":"dark","size":2}`), &w); err != nil || w.Shade != 1 || w.Inner == nil || w.Size != 2 {
		t.Errorf("%v %+v", err, w)
	}
}

// A number an integer cannot hold is refused with the integer's range.
func TestNumberOutOfAnIntegersRange(t *testing.T) {
	type counts struct {
		Line  int32   `json:"line"`
		Pages *uint8  `json:"pages"`
		Ratio float64 `json:"ratio"`
	}
	for text, want := range map[string]string{
		`{"line":2.5}`:         "line: must be a whole number from -2147483648 to 2147483647",
		`{"line":3000000000}`:  "line: must be a whole number from -2147483648 to 2147483647",
		`{"pages":256}`:        "pages: must be a whole number from 0 to 255",
		`{"pages":-1}`:         "pages: must be a whole number from 0 to 255",
		`{"line":"2"}`:         "line: must be number, not string",
		`{"line":2,"ratio":1}`: "",
	} {
		var c counts
		err := Unmarshal([]byte(text), &c)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}
