package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestClientSideLimitsAtTheBounds(t *testing.T) {
	r := strings.Repeat
	org := func(code, typ string) []BusinessOrganization {
		return []BusinessOrganization{{Code: code, EntityType: typ}}
	}
	tests := []struct {
		name   string
		req    CreateWBSElementRequest
		fields []string
	}{
		{"code of 1", CreateWBSElementRequest{Code: "a"}, nil},
		{"code of 30 two-byte runes", CreateWBSElementRequest{Code: r("Ä", 30)}, nil},
		{"code of 31 two-byte runes", CreateWBSElementRequest{Code: r("Ä", 31)}, []string{"wbsElementCode"}},
		{"empty code", CreateWBSElementRequest{Code: ""}, []string{"wbsElementCode"}},
		{"code not UTF-8", CreateWBSElementRequest{Code: "a\xff"}, []string{"wbsElementCode"}},
		{"description of 100", CreateWBSElementRequest{Code: "a", Description: Ptr(r("x", 100))}, nil},
		{"description of 101", CreateWBSElementRequest{Code: "a", Description: Ptr(r("x", 101))}, []string{"description"}},
		{"org code of 1", CreateWBSElementRequest{Code: "a", BusinessOrganizations: org("1", "c")}, nil},
		{"empty org code and type", CreateWBSElementRequest{Code: "a", BusinessOrganizations: org("", "")},
			[]string{"businessOrganizations[0].code", "businessOrganizations[0].entityType"}},
		{"everything at once", CreateWBSElementRequest{Code: r("x", 31), Description: Ptr(r("x", 101)), BusinessOrganizations: org("", "c")},
			[]string{"wbsElementCode", "description", "businessOrganizations[0].code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if len(tt.fields) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			var got []string
			for _, v := range ve.Violations {
				got = append(got, v.Field)
				if v.Limit == "" || v.Message == "" {
					t.Errorf("violation %+v lacks its limit or message", v)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.fields, ",") {
				t.Fatalf("violations %v, want %v", got, tt.fields)
			}
		})
	}
}

func TestNothingIsSentForAnInvalidRequest(t *testing.T) {
	f := newFakePlatform(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
		t.Errorf("%s %s reached the platform", r.Method, r.URL.Path)
		return false
	}
	c := f.client(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"create":            func() error { _, err := c.WBSElements.Create(ctx, &CreateWBSElementRequest{}); return err },
		"update empty code": func() error { _, err := c.WBSElements.Update(ctx, "", &UpdateWBSElementRequest{}); return err },
		"update description": func() error {
			_, err := c.WBSElements.Update(ctx, "A", &UpdateWBSElementRequest{Description: Set(strings.Repeat("x", 101))})
			return err
		},
		"delete empty code": func() error { _, err := c.WBSElements.Delete(ctx, ""); return err },
		"delete links empty list": func() error {
			_, err := c.WBSElements.DeleteBusinessOrganizations(ctx, "A", &DeleteBusinessOrganizationsRequest{})
			return err
		},
		"list links empty code": func() error { _, err := c.WBSElements.ListBusinessOrganizations(ctx, "", nil); return err },
		"nil create":            func() error { _, err := c.WBSElements.Create(ctx, nil); return err },
		"nil delete links": func() error {
			_, err := c.WBSElements.DeleteBusinessOrganizations(ctx, "A", nil)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrValidation) {
			t.Errorf("%s: err = %v, want ErrValidation", name, err)
		}
	}
	if f.exchanges.Load() != 0 {
		t.Fatal("an invalid request exchanged a token")
	}
}

func TestUpdateFieldsHaveThreeStates(t *testing.T) {
	tests := []struct {
		req  UpdateWBSElementRequest
		want string
	}{
		{UpdateWBSElementRequest{}, `{}`},
		{UpdateWBSElementRequest{Description: Null[string]()}, `{"description":null}`},
		{UpdateWBSElementRequest{Description: Set("")}, `{"description":""}`},
		{UpdateWBSElementRequest{IsActive: Set(false)}, `{"isActive":false}`},
		{UpdateWBSElementRequest{BusinessOrganizations: Set([]BusinessOrganization{})}, `{"businessOrganizations":[]}`},
		{UpdateWBSElementRequest{BusinessOrganizations: Null[[]BusinessOrganization]()}, `{"businessOrganizations":null}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.req)
		if err != nil || string(b) != tt.want {
			t.Errorf("marshal = %s %v, want %s", b, err, tt.want)
		}
		var back UpdateWBSElementRequest
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); string(again) != tt.want {
			t.Errorf("round trip = %s, want %s", again, tt.want)
		}
	}
}
