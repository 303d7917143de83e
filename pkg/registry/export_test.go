package registry

import "time"

// SetNow sets r's clock.
func SetNow(r *Registry, now func() time.Time) { r.now = now }
