// Package connect gives the examples a platform: the one named by
// WBSCTL_BASE_URL, WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET when set, else
// an in-process reference server.
package connect

import (
	"log"
	"os"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Platform is where the examples run.
type Platform struct {
	BaseURL, ClientID, ClientSecret string
	// Close releases the in-process server, if one was started.
	Close func()
}

// Open returns the platform of the environment or starts a reference
// server.
func Open() Platform {
	p := Platform{os.Getenv("WBSCTL_BASE_URL"), os.Getenv("WBSCTL_CLIENT_ID"), os.Getenv("WBSCTL_CLIENT_SECRET"), func() {}}
	if p.BaseURL == "" {
		srv := wbstest.NewServer()
		p = Platform{srv.URL, srv.ClientID, srv.ClientSecret, srv.Close}
	}
	return p
}

// Client returns a client of p.
func (p Platform) Client(opts ...sdk.Option) *sdk.Client {
	c, err := sdk.NewClient(p.BaseURL, append([]sdk.Option{sdk.WithCredentials(p.ClientID, p.ClientSecret)}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Client opens the platform and returns a client and the close function.
func Client(opts ...sdk.Option) (*sdk.Client, func()) {
	p := Open()
	return p.Client(opts...), p.Close
}
