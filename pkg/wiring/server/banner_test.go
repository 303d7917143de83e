package server

import (
	"net"
	"strings"
	"testing"
)

func TestWelcome(t *testing.T) {
	any8080 := &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}
	lo := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9000}
	for _, tc := range []struct {
		name    string
		w       Welcome
		want    []string
		wantNot []string
	}{
		{"first start", Welcome{Addr: any8080, DevKey: "amk_dev_secret", Created: true, KeyFile: "data/dev-api-key", Org: "dev"},
			[]string{"memoryd listening on http://127.0.0.1:8080\n", "http://127.0.0.1:8080/ui/", "http://127.0.0.1:8080/docs",
				"http://127.0.0.1:8080/mcp", "amk_dev_secret", "data/dev-api-key"}, nil},
		{"later start", Welcome{Addr: lo, DevKey: "amk_dev_secret", KeyFile: "data/dev-api-key", Org: "dev"},
			[]string{"http://127.0.0.1:9000/ui/", "http://127.0.0.1:9000/docs", "http://127.0.0.1:9000/mcp", "data/dev-api-key"},
			[]string{"amk_dev_secret"}},
		{"API_KEYS", Welcome{Addr: lo}, []string{"http://127.0.0.1:9000/mcp", "one of API_KEYS"}, []string{"development"}},
	} {
		var b strings.Builder
		tc.w.Write(&b)
		for _, s := range tc.want {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s: no %q in\n%s", tc.name, s, b.String())
			}
		}
		for _, s := range tc.wantNot {
			if strings.Contains(b.String(), s) {
				t.Errorf("%s: %q in\n%s", tc.name, s, b.String())
			}
		}
	}
}
