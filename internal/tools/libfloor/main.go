// Command libfloor links the libraries wbsctl is built on and does nothing
// else: scripts/startup times it beside wbsctl version and a hello-world
// binary, so that the part of start-up spent in those libraries' package
// initialisation (which runs in every command, whether it uses them or
// not) is told apart from wbsctl's own.
package main

import (
	"fmt"
	"net/http"

	_ "github.com/go-json-experiment/json"
	_ "github.com/go-resty/resty/v2"
	_ "github.com/itchyny/gojq"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/xuri/excelize/v2"
	_ "github.com/zalando/go-keyring"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/text/encoding/charmap"
	_ "golang.org/x/time/rate"
	_ "gopkg.in/yaml.v3"
)

func main() {
	fmt.Println("hello", http.StatusOK)
}
