package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// synth builds the stack of a stage with placeholder function binaries
// (the template, not the code, is under test) and returns its template.
func synth(t *testing.T, stage string) (assertions.Template, map[string]any) {
	t.Helper()
	assets := t.TempDir()
	for _, f := range functions {
		os.MkdirAll(filepath.Join(assets, f.name), 0o755)
		os.WriteFile(filepath.Join(assets, f.name, "bootstrap"), []byte("placeholder"), 0o755)
	}
	start := time.Now()
	app := awscdk.NewApp(nil)
	stack := NewStack(app, "agentmem-"+stage, Props{Stage: Stages[stage], AssetsDir: assets})
	tmpl := assertions.Template_FromStack(stack, nil)
	var raw map[string]any
	js, _ := json.Marshal(tmpl.ToJSON())
	json.Unmarshal(js, &raw)
	t.Logf("%s: synthesized in %v, %d resources", stage, time.Since(start).Round(time.Millisecond), len(raw["Resources"].(map[string]any)))
	return tmpl, raw
}

func props(p map[string]any) *map[string]any { return &p }

// allowedWildcards lists the actions allowed on Resource "*" because AWS
// offers no narrower resource for them (CDK's bucket-notification handler
// is scoped to the bucket); an addition here must say why.
var allowedWildcards = map[string]bool{
	// X-Ray active tracing (Tracing_ACTIVE): X-Ray has no resource-level
	// permissions for sending segments.
	"xray:PutTraceSegments": true, "xray:PutTelemetryRecords": true,
}

func TestStack(t *testing.T) {
	for _, stage := range []string{"dev", "prod"} {
		t.Run(stage, func(t *testing.T) {
			tmpl, raw := synth(t, stage)
			prod := stage == "prod"

			// DynamoDB: the store's keys and indexes, on-demand, PITR, TTL, encryption.
			tmpl.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), props(map[string]any{
				"BillingMode":                      "PAY_PER_REQUEST",
				"KeySchema":                        []any{map[string]any{"AttributeName": "PK", "KeyType": "HASH"}, map[string]any{"AttributeName": "SK", "KeyType": "RANGE"}},
				"PointInTimeRecoverySpecification": map[string]any{"PointInTimeRecoveryEnabled": true},
				"TimeToLiveSpecification":          map[string]any{"AttributeName": "ttl", "Enabled": true},
				"DeletionProtectionEnabled":        prod,
			}))
			for _, ix := range schema.Indexes {
				tmpl.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), props(map[string]any{
					"GlobalSecondaryIndexes": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
						"IndexName": ix.Name,
						"KeySchema": []any{map[string]any{"AttributeName": ix.PartitionKey, "KeyType": "HASH"}, map[string]any{"AttributeName": ix.SortKey, "KeyType": "RANGE"}},
					})}),
				}))
			}
			policy := "Delete"
			if prod {
				policy = "Retain"
			}
			tmpl.HasResource(jsii.String("AWS::DynamoDB::Table"), props(map[string]any{"DeletionPolicy": policy}))

			// S3: no public access, encryption, versioning, TLS enforced, notifications.
			tmpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), props(map[string]any{
				"PublicAccessBlockConfiguration": map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
				"BucketEncryption":               map[string]any{"ServerSideEncryptionConfiguration": []any{map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}}}},
				"VersioningConfiguration":        map[string]any{"Status": "Enabled"},
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), props(map[string]any{
				"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
					"Effect": "Deny", "Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
				})})},
			}))
			tmpl.HasResourceProperties(jsii.String("Custom::S3BucketNotifications"), props(map[string]any{
				"NotificationConfiguration": map[string]any{"LambdaFunctionConfigurations": assertions.Match_ArrayWith(&[]any{
					assertions.Match_ObjectLike(&map[string]any{"Events": []any{"s3:ObjectCreated:*"}}),
					assertions.Match_ObjectLike(&map[string]any{"Events": []any{"s3:ObjectRemoved:*"}}),
				})},
			}))

			// SQS with a dead-letter queue; the extract function consumes with partial failures.
			tmpl.HasResourceProperties(jsii.String("AWS::SQS::Queue"), props(map[string]any{
				"RedrivePolicy":        map[string]any{"maxReceiveCount": 5, "deadLetterTargetArn": assertions.Match_AnyValue()},
				"SqsManagedSseEnabled": true,
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), props(map[string]any{
				"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
			}))
			// EventBridge schedule for consolidation.
			tmpl.HasResourceProperties(jsii.String("AWS::Events::Rule"), props(map[string]any{"ScheduleExpression": "cron(0 3 * * ? *)"}))
			// The hourly maintenance rule targets the ingest function, which may be invoked by it.
			ingestFn := logicalID(t, raw, "AWS::Lambda::Function", "FunctionName", "agentmem-"+stage+"-ingest")
			tmpl.HasResourceProperties(jsii.String("AWS::Events::Rule"), props(map[string]any{
				"Name": "agentmem-" + stage + "-ingest-maintenance", "ScheduleExpression": "rate(1 hour)", "State": "ENABLED",
				"Targets": []any{assertions.Match_ObjectLike(&map[string]any{"Arn": map[string]any{"Fn::GetAtt": []any{ingestFn, "Arn"}}})},
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Permission"), props(map[string]any{
				"Action": "lambda:InvokeFunction", "Principal": "events.amazonaws.com",
				"FunctionName": map[string]any{"Fn::GetAtt": []any{ingestFn, "Arn"}},
			}))

			// OpenSearch: encryption, HTTPS only, fine-grained access control.
			tmpl.HasResourceProperties(jsii.String("AWS::OpenSearchService::Domain"), props(map[string]any{
				"EngineVersion":               "OpenSearch_2.19",
				"EncryptionAtRestOptions":     map[string]any{"Enabled": true},
				"NodeToNodeEncryptionOptions": map[string]any{"Enabled": true},
				"DomainEndpointOptions":       map[string]any{"EnforceHTTPS": true, "TLSSecurityPolicy": "Policy-Min-TLS-1-2-2019-07"},
				"AdvancedSecurityOptions":     assertions.Match_ObjectLike(&map[string]any{"Enabled": true, "InternalUserDatabaseEnabled": false}),
			}))

			// The API function maps the pipeline roles in OpenSearch at start.
			tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"Environment": map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{
					"OPENSEARCH_WRITER_ROLES": assertions.Match_AnyValue(), "OPENSEARCH_SIGV4": "true", "BACKEND": "aws",
					"EXTRACT_QUEUE_URL": assertions.Match_AnyValue()})},
			}))

			// The extraction model: named to the api, ingest and extract
			// functions (writes are left pending for it); the api function
			// is told whether searches may call it.
			withModel := tmpl.FindResources(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"Properties": map[string]any{"Environment": map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{
					"BEDROCK_LLM_MODEL": Stages[stage].LLMModel})}},
			}))
			if n := len(*withModel); n != 3 {
				t.Errorf("%d functions are given BEDROCK_LLM_MODEL, want 3 (api, ingest, extract)", n)
			}
			tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"Environment": map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{
					"LLM_QUERIES": fmt.Sprint(Stages[stage].QueryLLM), "EXTRACT_QUEUE_URL": assertions.Match_AnyValue()})},
			}))

			// The token signing secret: generated, and named to the API and
			// authorizer functions (both, and only those, read it).
			tmpl.HasResourceProperties(jsii.String("AWS::SecretsManager::Secret"), props(map[string]any{
				"GenerateSecretString": assertions.Match_ObjectLike(&map[string]any{"PasswordLength": 64, "ExcludePunctuation": true}),
			}))
			withSecret := tmpl.FindResources(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"Properties": map[string]any{"Environment": map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{
					"TOKEN_SECRET_NAME": assertions.Match_AnyValue()})}},
			}))
			if n := len(*withSecret); n != 2 {
				t.Errorf("%d functions are given TOKEN_SECRET_NAME, want 2 (api, authorizer)", n)
			}

			// API: authorizer with caching, access logs, throttling, usage plan.
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Authorizer"), props(map[string]any{
				"Type": "REQUEST", "IdentitySource": "method.request.header.Authorization", "AuthorizerResultTtlInSeconds": 300,
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), props(map[string]any{
				"StageName": stage, "AccessLogSetting": assertions.Match_ObjectLike(&map[string]any{"DestinationArn": assertions.Match_AnyValue()}),
				"MethodSettings": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{"ThrottlingRateLimit": Stages[stage].ApiRateLimit})}),
			}))
			// Per-org usage plan: the API takes its API keys from the
			// authorizer, which is told the plan's name and may create keys
			// and add them to plans, and nothing else of API Gateway.
			plan := "agentmem-" + stage + "-tenants"
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), props(map[string]any{
				"UsagePlanName": plan,
				"Quota":         map[string]any{"Limit": Stages[stage].TenantDailyQuota, "Period": "DAY"},
				"Throttle":      assertions.Match_ObjectLike(&map[string]any{"RateLimit": assertions.Match_AnyValue()}),
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::RestApi"), props(map[string]any{"ApiKeySourceType": "AUTHORIZER"}))
			tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"FunctionName": "agentmem-" + stage + "-authorizer",
				"Environment":  map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{"USAGE_PLAN_NAME": plan})},
			}))
			withPlan := tmpl.FindResources(jsii.String("AWS::Lambda::Function"), props(map[string]any{
				"Properties": map[string]any{"Environment": map[string]any{"Variables": assertions.Match_ObjectLike(&map[string]any{
					"USAGE_PLAN_NAME": assertions.Match_AnyValue()})}},
			}))
			if n := len(*withPlan); n != 1 {
				t.Errorf("%d functions are given USAGE_PLAN_NAME, want 1 (the authorizer)", n)
			}
			authFn := logicalID(t, raw, "AWS::Lambda::Function", "FunctionName", "agentmem-"+stage+"-authorizer")
			fnRole, _ := json.Marshal(raw["Resources"].(map[string]any)[authFn].(map[string]any)["Properties"].(map[string]any)["Role"])
			var roleRef struct {
				GetAtt []string `json:"Fn::GetAtt"`
			}
			if json.Unmarshal(fnRole, &roleRef) != nil || len(roleRef.GetAtt) == 0 {
				t.Fatalf("the authorizer's role: %s", fnRole)
			}
			gwActions := map[string]bool{}
			for _, r := range raw["Resources"].(map[string]any) {
				r := r.(map[string]any)
				if r["Type"] != "AWS::IAM::Policy" {
					continue
				}
				js, _ := json.Marshal(r["Properties"])
				for _, a := range []string{"apigateway:GET", "apigateway:POST", "apigateway:PUT", "apigateway:DELETE", "apigateway:PATCH", "apigateway:*"} {
					if !strings.Contains(string(js), `"`+a+`"`) {
						continue
					}
					gwActions[a] = true
					if roles, _ := json.Marshal(r["Properties"].(map[string]any)["Roles"]); string(roles) != `[{"Ref":"`+roleRef.GetAtt[0]+`"}]` {
						t.Errorf("%s is granted to %s, want the authorizer's role only", a, roles)
					}
				}
			}
			if len(gwActions) != 2 || !gwActions["apigateway:GET"] || !gwActions["apigateway:POST"] {
				t.Errorf("API Gateway actions granted: %v, want GET and POST (to the authorizer)", gwActions)
			}
			// Routes: every method goes to the API function; only GET on the
			// public paths skips the authorizer, and every other path (/mcp
			// and /v1/* included) reaches the function through it.
			apiFn := logicalID(t, raw, "AWS::Lambda::Function", "FunctionName", "agentmem-"+stage+"-api")
			got := apiMethods(t, raw)
			want := map[string]string{
				"ANY /": "CUSTOM", "ANY /{proxy+}": "CUSTOM", "ANY /v1/{proxy+}": "CUSTOM", "GET /": "NONE",
				"GET /ui": "NONE", "GET /ui/{proxy+}": "NONE", "GET /docs": "NONE", "GET /docs/{proxy+}": "NONE",
				"GET /v1/openapi.json": "NONE",
			}
			for route, auth := range want {
				m, ok := got[route]
				if !ok {
					t.Errorf("no method %s", route)
					continue
				}
				if m.auth != auth {
					t.Errorf("%s: authorization %s, want %s", route, m.auth, auth)
				}
				if (auth == "CUSTOM") != m.authorizer {
					t.Errorf("%s: authorizer attached %v with authorization %s", route, m.authorizer, m.auth)
				}
				if (auth == "CUSTOM") != m.apiKey {
					t.Errorf("%s: api key required %v with authorization %s: the usage plan throttles by the authorizer's usage identifier", route, m.apiKey, m.auth)
				}
				if m.integration != "AWS_PROXY" || !strings.Contains(m.uri, `"`+apiFn+`"`) {
					t.Errorf("%s: integration %s to %s, want AWS_PROXY to %s", route, m.integration, m.uri, apiFn)
				}
			}
			for route, m := range got {
				if _, ok := want[route]; !ok {
					t.Errorf("unexpected method %s (authorization %s)", route, m.auth)
				}
				if m.auth == "NONE" && !strings.HasPrefix(route, "GET ") {
					t.Errorf("%s is public for more than GET", route)
				}
			}
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Method"), props(map[string]any{
				"HttpMethod": "ANY", "AuthorizationType": "CUSTOM", "AuthorizerId": assertions.Match_AnyValue(),
				"ResourceId":  assertions.Match_ObjectLike(&map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("proxy"))}),
				"Integration": assertions.Match_ObjectLike(&map[string]any{"Type": "AWS_PROXY"}),
			}))

			// Functions: Go on provided.al2023, arm64, each with its own role and log group.
			res := raw["Resources"].(map[string]any)
			roles := map[string]bool{}
			count := 0
			for _, r := range res {
				r := r.(map[string]any)
				if r["Type"] != "AWS::Lambda::Function" {
					continue
				}
				p := r["Properties"].(map[string]any)
				if p["Runtime"] != "provided.al2023" || p["Handler"] != "bootstrap" {
					continue // CDK's own helper functions
				}
				count++
				if a := p["Architectures"].([]any); a[0] != "arm64" {
					t.Errorf("%v is not arm64", p["FunctionName"])
				}
				role, _ := json.Marshal(p["Role"])
				if roles[string(role)] {
					t.Errorf("%v shares a role", p["FunctionName"])
				}
				roles[string(role)] = true
			}
			if count != len(functions) {
				t.Fatalf("%d service functions, want %d", count, len(functions))
			}
			tmpl.ResourceCountIs(jsii.String("AWS::Logs::LogGroup"), jsii.Number(float64(len(functions)+1)))

			// Alarms: DLQ, errors and throttles per function, API 5xx, search
			// red, and eight on the functions' own metrics and the queue.
			tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), props(map[string]any{
				"Namespace": "agentmem", "MetricName": "Items", "Dimensions": assertions.Match_ArrayWith(&[]any{
					map[string]any{"Name": "Outcome", "Value": "failed"}, map[string]any{"Name": "Pipeline", "Value": "ingest"}}),
			}))
			tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), props(map[string]any{
				"Namespace": "agentmem", "MetricName": "RerankFallbacks",
			}))
			// Tracing: X-Ray on every function and on the API stage.
			for _, f := range functions {
				tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), props(map[string]any{
					"FunctionName": "agentmem-" + stage + "-" + f.name, "TracingConfig": map[string]any{"Mode": "Active"},
				}))
			}
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), props(map[string]any{"TracingEnabled": true}))
			tmpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(float64(3+2*len(functions)+8)))

			// No statement grants every action or every resource, but the listed exceptions.
			for id, r := range res {
				r := r.(map[string]any)
				if r["Type"] != "AWS::IAM::Policy" {
					continue
				}
				doc := r["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
				for _, s := range doc["Statement"].([]any) {
					s := s.(map[string]any)
					actions := list(s["Action"])
					for _, a := range actions {
						if a == "*" || strings.HasSuffix(a, ":*") {
							t.Errorf("%s grants %q", id, a)
						}
					}
					for _, rs := range list(s["Resource"]) {
						if rs == "*" {
							for _, a := range actions {
								if !allowedWildcards[a] {
									t.Errorf("%s grants %s on every resource", id, a)
								}
							}
						}
					}
				}
			}
		})
	}
}

// list flattens a policy field (a string or a list) to strings; tokens
// (objects) are kept as their JSON.
func list(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			} else {
				js, _ := json.Marshal(e)
				out = append(out, string(js))
			}
		}
		return out
	}
	return nil
}

// logicalID returns the logical id of the one resource of type typ whose
// property prop is value.
func logicalID(t *testing.T, raw map[string]any, typ, prop, value string) string {
	t.Helper()
	var ids []string
	for id, r := range raw["Resources"].(map[string]any) {
		r := r.(map[string]any)
		if r["Type"] != typ {
			continue
		}
		if p, _ := r["Properties"].(map[string]any); p != nil && p[prop] == value {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%s with %s %q: %v", typ, prop, value, ids)
	}
	return ids[0]
}

// method is what the test checks of an API Gateway method.
type method struct {
	auth        string // AuthorizationType
	authorizer  bool   // AuthorizerId set
	apiKey      bool   // ApiKeyRequired
	integration string // Integration.Type
	uri         string // Integration.Uri, as JSON
}

// apiMethods returns the REST API's methods by "VERB /path", the path
// rebuilt from the resources' PathPart and ParentId (the root's parent is
// the API's RootResourceId).
func apiMethods(t *testing.T, raw map[string]any) map[string]method {
	t.Helper()
	res := raw["Resources"].(map[string]any)
	var path func(ref any) string
	path = func(ref any) string {
		m, _ := ref.(map[string]any)
		if _, root := m["Fn::GetAtt"]; root {
			return ""
		}
		id, _ := m["Ref"].(string)
		r, _ := res[id].(map[string]any)
		if r == nil || r["Type"] != "AWS::ApiGateway::Resource" {
			t.Fatalf("method or resource on %v: not a resource", ref)
		}
		p := r["Properties"].(map[string]any)
		return path(p["ParentId"]) + "/" + p["PathPart"].(string)
	}
	out := map[string]method{}
	for id, r := range res {
		r := r.(map[string]any)
		if r["Type"] != "AWS::ApiGateway::Method" {
			continue
		}
		p := r["Properties"].(map[string]any)
		route := p["HttpMethod"].(string) + " " + path(p["ResourceId"])
		if strings.HasSuffix(route, " ") {
			route += "/"
		}
		if _, dup := out[route]; dup {
			t.Fatalf("two methods %s (%s)", route, id)
		}
		in, _ := p["Integration"].(map[string]any)
		uri, _ := json.Marshal(in["Uri"])
		auth, _ := p["AuthorizationType"].(string)
		key, _ := p["ApiKeyRequired"].(bool)
		out[route] = method{auth: auth, authorizer: p["AuthorizerId"] != nil, apiKey: key, integration: fmt.Sprint(in["Type"]), uri: string(uri)}
	}
	return out
}
