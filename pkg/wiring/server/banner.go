package server

import (
	"fmt"
	"io"
	"net"
)

// Welcome is what memoryd prints on standard error once it listens: the
// addresses of the explorer, the API reference and MCP, and the key to
// use with them.
type Welcome struct {
	// Addr is the address the server listens on.
	Addr net.Addr
	// DevKey is the development key of the data directory ("" when
	// API_KEYS names the keys); Created says it was made by this start,
	// the only time it is printed (later starts name the file, KeyFile).
	DevKey  string
	Created bool
	KeyFile string
	// Org is the development key's org.
	Org string
}

// Write prints w's lines to out.
func (w Welcome) Write(out io.Writer) {
	base := "http://" + w.Addr.String()
	if tcp, ok := w.Addr.(*net.TCPAddr); ok && (tcp.IP == nil || tcp.IP.IsUnspecified()) {
		base = fmt.Sprintf("http://127.0.0.1:%d", tcp.Port) // listening on every interface: this machine's address
	}
	fmt.Fprintf(out, "memoryd listening on %s\n", base)
	fmt.Fprintf(out, "  memory explorer:  %s/ui/\n", base)
	fmt.Fprintf(out, "  API reference:    %s/docs\n", base)
	fmt.Fprintf(out, "  MCP:              %s/mcp  (Authorization: Bearer <key>; stdio: memctl mcp)\n", base)
	switch {
	case w.DevKey != "" && w.Created:
		fmt.Fprintf(out, "  API key:          %s  (the development key of org %q, kept in %s; printed once)\n", w.DevKey, w.Org, w.KeyFile)
	case w.DevKey != "":
		fmt.Fprintf(out, "  API key:          the development key of org %q, in %s\n", w.Org, w.KeyFile)
	default:
		fmt.Fprintf(out, "  API key:          one of API_KEYS\n")
	}
	fmt.Fprintf(out, "  try:              export AGENTMEM_URL=%s AGENTMEM_API_KEY=<key>; memctl add \"Dana prefers jasmine tea\"; memctl search tea\n", base)
}
