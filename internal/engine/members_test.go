package engine

import (
	"errors"
	"testing"
)

func TestCheckMembers(t *testing.T) {
	for _, tt := range []struct {
		json, path string // path "" : no member problem
	}{
		{`{"wbsElementCode":"A","description":"d"}`, ""},
		{`{"wbsElementCode":"A","wbsElementCode":"B"}`, "wbsElementCode"},
		{`{"wbsElementCode":"A","WBSELEMENTCODE":"B"}`, "WBSELEMENTCODE"},
		{`{"WbsElementCode":"A"}`, "WbsElementCode"},
		{`{"wbsElementCode":"A","businessOrganizations":[{"code":"1","entityType":"c"},{"code":"2","entityType":"c","entityType":"d"}]}`, "businessOrganizations[1].entityType"},
		{`[{"a":1},{"b":{"c":[1,{"d":1,"D":2}]}}]`, "[1].b.c[1].D"},
		{`{"a":{"x":1},"b":{"x":1}}`, ""}, // the same name in two objects
	} {
		err := CheckMembers([]byte(tt.json))
		var me *MemberError
		switch {
		case tt.path == "" && err != nil:
			t.Errorf("%s: %v", tt.json, err)
		case tt.path != "" && (!errors.As(err, &me) || me.Path != tt.path):
			t.Errorf("%s: %v, want a problem at %s", tt.json, err, tt.path)
		}
	}
}

func TestDecodeStrict(t *testing.T) {
	var v map[string]any
	for _, bad := range []string{
		`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":"\ud800"}`, `{"a":"\udc00x"}`, `{"a":"\ud800\u0041"}`,
	} {
		if err := DecodeStrict([]byte(bad), &v); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	for _, good := range []string{`{"a":"\ud83d\ude00"}`, `{"a":"\\ud800"}`, ` {"a":1} `} {
		if err := DecodeStrict([]byte(good), &v); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
