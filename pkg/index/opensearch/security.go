package opensearch

import (
	"context"
	"net/http"
)

// WriterRole is the OpenSearch security role the service's pipeline
// functions are mapped to: read and write on the alias's indices only.
const WriterRole = "agentmem_writer"

// MapWriterRoles makes the IAM roles arns (the pipeline functions'
// roles) members of WriterRole, creating the role: with fine-grained access
// control, IAM lets a request reach the domain, and this mapping decides
// what it may do there. The caller must be the domain's master user (the
// API function). It uses the security plugin's REST API, which the
// development node (security off) does not have; it is not exercised by
// the tests.
func (ix *Index) MapWriterRoles(ctx context.Context, arns []string) error {
	role := map[string]any{
		"cluster_permissions": []string{"cluster_composite_ops", "indices:data/read/msearch", "indices:data/write/bulk"},
		"index_permissions": []any{map[string]any{
			"index_patterns":  []string{ix.cfg.Alias + "*"},
			"allowed_actions": []string{"crud", "create_index", "indices:admin/aliases*", "indices:admin/mapping/get", "indices:monitor/stats", "indices:admin/refresh*"},
		}},
	}
	if err := ix.do(ctx, http.MethodPut, "/_plugins/_security/api/roles/"+WriterRole, role, nil); err != nil {
		return err
	}
	return ix.do(ctx, http.MethodPut, "/_plugins/_security/api/rolesmapping/"+WriterRole,
		map[string]any{"backend_roles": arns}, nil)
}
