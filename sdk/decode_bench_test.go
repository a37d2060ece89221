package sdk

// decodePage (json.Unmarshal of the envelope, data fingerprinted by its
// bytes) beside a bare json.Unmarshal of the same page of 50 into a
// struct, which neither checks the envelope nor fingerprints the page:
//
//	go test -run '^$' -bench DecodePage -benchmem ./sdk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func pageBody() []byte {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range 50 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"wbsElementCode":"E%03d","description":"element %d","isActive":true}`, i, i)
	}
	b.WriteString(`],"hits":50,"next":null}`)
	return []byte(b.String())
}

func BenchmarkDecodePage(b *testing.B) {
	body := pageBody()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePage[WBSElement](body, 1, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePageUnmarshal(b *testing.B) {
	body := pageBody()
	b.ReportAllocs()
	for b.Loop() {
		var page struct {
			Data []WBSElement `json:"data"`
			Hits *int         `json:"hits"`
			Next *string      `json:"next"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			b.Fatal(err)
		}
	}
}
