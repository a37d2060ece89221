package engine

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wbsctl/wbsctl/internal/notation"
	"gopkg.in/yaml.v3"
)

// Write writes records in a format Parse reads back to the same records.
// Every field is written, so that applying an export changes nothing.
func Write(w io.Writer, f Format, records []Record) error {
	out := make([]jsonRecord, len(records))
	for i, r := range records {
		code, desc := r.Code, deref(r.Description)
		orgs := make([]fileOrganization, len(r.Organizations))
		for k, o := range r.Organizations {
			orgs[k] = fileOrganization(o)
		}
		active := r.IsActive == nil || *r.IsActive
		out[i] = jsonRecord{Code: &code, Description: &desc, IsActive: &active, Organizations: &orgs}
	}
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case FormatNDJSON:
		enc := json.NewEncoder(w)
		for _, r := range out {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	case FormatYAML:
		return yaml.NewEncoder(w).Encode(out)
	case FormatCSV:
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"wbsElementCode", "description", "isActive", "businessOrganizations"})
		for i, r := range records {
			_ = cw.Write([]string{r.Code, deref(r.Description), fmt.Sprint(*out[i].IsActive), notation.Format(r.Organizations)})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("unknown format %q", f)
}
