package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"pgregory.net/rapid"
)

// A streamed JSON list is the same bytes as the whole list encoded at
// once, for any number of items and with text JSON escapes.
func TestStreamedJSONIsTheListEncodedAtOnce(t *testing.T) {
	d := `<b>&"x"</b>`
	all := []item{{"A", &d, true}, {"B", nil, false}, {"C\u2028", &d, true}}
	for n := range len(all) + 1 {
		var got, want bytes.Buffer
		p, err := New(&got, Options{Format: "json"}, "CODE")
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range all[:n] {
			if err := p.Add(it, it.Code); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		list := all[:n]
		if n == 0 {
			list = []item{}
		}
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d items:\n%s\nwant\n%s", n, got.String(), want.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the streamWriter's timer.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Streamed rows reach the reader without Flush, while the listing waits
// for its next page.
func TestStreamedRowsArriveWhileTheListingWaits(t *testing.T) {
	for _, format := range []string{"plain", "csv", "ndjson", "json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			var out syncBuffer
			p, err := New(&out, Options{Format: format}, "CODE")
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Add(item{Code: "FIRST-PAGE"}, "FIRST-PAGE"); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(out.String(), "FIRST-PAGE") {
				if time.Now().After(deadline) {
					t.Fatalf("the row was not written while the listing waited")
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

// Sync writes out what was listed before an error, without ending the
// output: a JSON list cut by an error stays unfinished, not a valid but
// short list.
func TestSyncWritesWhatWasListedWithoutEndingIt(t *testing.T) {
	var out bytes.Buffer
	p, err := New(&out, Options{Format: "json"}, "CODE")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := p.Add(item{Code: fmt.Sprint("E", i)}, "E"); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Sync(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"E2"`) {
		t.Fatalf("the items listed were not written: %q", out.String())
	}
	if json.Valid(out.Bytes()) {
		t.Fatalf("a list cut short reads as a whole one: %q", out.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A write error reaches the command, at the latest from Flush.
func TestWriteErrorIsReturned(t *testing.T) {
	p, err := New(failingWriter{}, Options{Format: "plain"}, "CODE")
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		_ = p.Add(item{Code: "E"}, "E")
	}
	if err := p.Flush(); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("Flush: %v, want the write error", err)
	}
	if err := p.Add(item{Code: "E"}, "E"); err == nil {
		t.Fatal("Add after a write error: nil")
	}
}

// A YAML list written an item at a time is the list encoded at once, for
// text YAML quotes, folds into blocks or escapes.
func TestStreamedYAMLIsTheListEncodedAtOnce(t *testing.T) {
	text := rapid.SampledFrom([]string{"", "P-1", "1000", "null", "a: b", "- x", " lead", "two\nlines", "gap\n\nline", "ü\u2028\t\"", "\x1b[31m"})
	rapid.Check(t, func(t *rapid.T) {
		list := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) item {
			it := item{Code: text.Draw(t, "code"), IsActive: rapid.Bool().Draw(t, "active")}
			if rapid.Bool().Draw(t, "described") {
				it.Description = new(text.Draw(t, "description"))
			}
			return it
		}), 0, 5).Draw(t, "items")
		var got bytes.Buffer
		p, err := New(&got, Options{Format: "yaml"}, "CODE")
		if err != nil {
			t.Fatal(err)
		}
		whole := []any{}
		for _, it := range list {
			if err := p.Add(it, it.Code); err != nil {
				t.Fatal(err)
			}
			g, _ := Generic(it)
			whole = append(whole, g)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		want, err := yaml.Marshal(whole)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Fatalf("streamed:\n%s\nencoded at once:\n%s", got.String(), want)
		}
	})
}
