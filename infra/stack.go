// Package main is the CDK app (aws-cdk-go) that deploys the memory service:
// the API behind API Gateway with a request authorizer, the ingestion,
// extraction and consolidation Lambdas, DynamoDB, OpenSearch, S3, SQS and
// EventBridge, with least-privilege roles and alarms. The stage (dev or
// prod) comes from the "stage" context value and selects names and sizes.
package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsopensearchservice"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3notifications"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Stage holds what differs between stages.
type Stage struct {
	Name             string
	Prod             bool
	SearchNodes      float64
	SearchInstance   string
	SearchVolumeGiB  float64
	ApiRateLimit     float64 // requests per second, per stage
	ApiBurstLimit    float64
	TenantDailyQuota float64
	LogRetention     awslogs.RetentionDays
	EmbedModel       string
	// LLMModel is the chat model of knowledge and fact extraction: the
	// api and ingest functions name it so that their writes are left
	// pending for it, and the extract function calls it.
	LLMModel string
	// QueryLLM makes the api function call LLMModel for searches too (it
	// plans a full search's decomposition and translates natural-language
	// knowledge searches, one bounded call per search; LLM_QUERIES);
	// false keeps searches on the offline rules.
	QueryLLM bool
	// ADOTCollectorLayer, when set, is the ARN of the AWS Distro for
	// OpenTelemetry collector Lambda layer (arm64) added to the functions,
	// which then export their spans (store, index, embedder, pipelines) to
	// it as OTLP/HTTP JSON, and it to X-Ray. Empty: X-Ray active tracing
	// only (each invocation, and API Gateway, but no spans from inside).
	ADOTCollectorLayer string
}

// Stages are the known stages.
var Stages = map[string]Stage{
	"dev": {Name: "dev", SearchNodes: 1, SearchInstance: "t3.small.search", SearchVolumeGiB: 10,
		ApiRateLimit: 50, ApiBurstLimit: 100, TenantDailyQuota: 100_000, LogRetention: awslogs.RetentionDays_TWO_WEEKS,
		EmbedModel: "amazon.titan-embed-text-v2:0", LLMModel: "anthropic.claude-3-5-haiku-20241022-v1:0", QueryLLM: true},
	"prod": {Name: "prod", Prod: true, SearchNodes: 2, SearchInstance: "r6g.large.search", SearchVolumeGiB: 100,
		ApiRateLimit: 500, ApiBurstLimit: 1000, TenantDailyQuota: 1_000_000, LogRetention: awslogs.RetentionDays_THREE_MONTHS,
		EmbedModel: "amazon.titan-embed-text-v2:0", LLMModel: "anthropic.claude-3-5-haiku-20241022-v1:0", QueryLLM: true},
}

// Props configures the stack.
type Props struct {
	awscdk.StackProps
	Stage Stage
	// AssetsDir holds one folder per function with its "bootstrap" binary
	// (make build-lambdas writes them to bin/functions).
	AssetsDir string
}

// fn describes one Lambda.
type fn struct {
	name    string
	memory  float64
	timeout float64
}

var functions = []fn{
	{"api", 1024, 29}, {"authorizer", 256, 5}, {"ingest", 1536, 300}, {"extract", 1024, 120}, {"consolidate", 1024, 900},
}

// NewStack defines the whole service.
func NewStack(scope constructs.Construct, id string, p Props) awscdk.Stack {
	b := &stackBuilder{stack: awscdk.NewStack(scope, &id, &p.StackProps), st: p.Stage, assets: p.AssetsDir, removal: awscdk.RemovalPolicy_DESTROY}
	if b.st.Prod {
		b.removal = awscdk.RemovalPolicy_RETAIN
	}
	b.data()
	b.functions()
	b.search()
	b.grants()
	b.triggers()
	b.restAPI()
	b.alarms()
	awscdk.NewCfnOutput(b.stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{Value: b.api.Url()})
	awscdk.NewCfnOutput(b.stack, jsii.String("BucketName"), &awscdk.CfnOutputProps{Value: b.bucket.BucketName()})
	awscdk.NewCfnOutput(b.stack, jsii.String("TableName"), &awscdk.CfnOutputProps{Value: b.table.TableName()})
	return b.stack
}

// stackBuilder makes the stack's resources step by step (NewStack runs
// the steps in order); each step reads what the earlier ones made.
type stackBuilder struct {
	stack   awscdk.Stack
	st      Stage
	assets  string
	removal awscdk.RemovalPolicy
	table   awsdynamodb.Table
	bucket  awss3.Bucket
	dlq     awssqs.Queue
	queue   awssqs.Queue
	fns     map[string]awslambda.Function
	domain  awsopensearchservice.Domain
	api     awsapigateway.LambdaRestApi
}

// name is a resource's name in the stage.
func (b *stackBuilder) name(s string) *string {
	return jsii.String(fmt.Sprintf("agentmem-%s-%s", b.st.Name, s))
}

// data makes the data: the table the DynamoDB store expects, the documents bucket, the extraction queue and its dead letters.
func (b *stackBuilder) data() {
	// Data: the b.table the DynamoDB store expects, from its schema (keys,
	// indexes, TTL; store/dynamodb/schema).
	str := func(a string) *awsdynamodb.Attribute {
		return &awsdynamodb.Attribute{Name: jsii.String(a), Type: awsdynamodb.AttributeType_STRING}
	}
	b.table = awsdynamodb.NewTable(b.stack, jsii.String("Table"), &awsdynamodb.TableProps{
		TableName:                        b.name("memories"),
		PartitionKey:                     str(schema.PartitionKey),
		SortKey:                          str(schema.SortKey),
		BillingMode:                      awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)},
		TimeToLiveAttribute:              jsii.String(schema.TTLAttribute),
		Encryption:                       awsdynamodb.TableEncryption_AWS_MANAGED,
		DeletionProtection:               jsii.Bool(b.st.Prod),
		RemovalPolicy:                    b.removal,
	})
	for _, ix := range schema.Indexes {
		b.table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   str(ix.PartitionKey),
			SortKey:        str(ix.SortKey),
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		})
	}
	b.bucket = awss3.NewBucket(b.stack, jsii.String("Documents"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     b.removal,
	})
	b.dlq = awssqs.NewQueue(b.stack, jsii.String("ExtractDLQ"), &awssqs.QueueProps{
		QueueName: b.name("extract-dlq"), Encryption: awssqs.QueueEncryption_SQS_MANAGED, EnforceSSL: jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	b.queue = awssqs.NewQueue(b.stack, jsii.String("ExtractQueue"), &awssqs.QueueProps{
		QueueName: b.name("extract"), Encryption: awssqs.QueueEncryption_SQS_MANAGED, EnforceSSL: jsii.Bool(true),
		VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(6 * 120)),
		DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: b.dlq, MaxReceiveCount: jsii.Number(5)},
	})
}

// functions makes the Lambdas, each with its own role and log group, traced.
func (b *stackBuilder) functions() {
	// Functions: each with its own role and log group.
	b.fns = map[string]awslambda.Function{}
	for _, f := range functions {
		logs := awslogs.NewLogGroup(b.stack, jsii.String(f.name+"Logs"), &awslogs.LogGroupProps{
			LogGroupName: jsii.String(fmt.Sprintf("/aws/lambda/agentmem-%s-%s", b.st.Name, f.name)),
			Retention:    b.st.LogRetention, RemovalPolicy: b.removal,
		})
		b.fns[f.name] = awslambda.NewFunction(b.stack, jsii.String(f.name+"Function"), &awslambda.FunctionProps{
			FunctionName: b.name(f.name),
			Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
			Architecture: awslambda.Architecture_ARM_64(),
			Handler:      jsii.String("bootstrap"),
			Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(b.assets, f.name)), nil),
			MemorySize:   jsii.Number(f.memory),
			Timeout:      awscdk.Duration_Seconds(jsii.Number(f.timeout)),
			LogGroup:     logs,
			Tracing:      awslambda.Tracing_ACTIVE, // X-Ray: the function's segments, linked to API Gateway's
		})
		b.fns[f.name].AddEnvironment(jsii.String("OTEL_SERVICE_NAME"), b.name(f.name), nil)
		if b.st.ADOTCollectorLayer != "" {
			b.fns[f.name].AddLayers(awslambda.LayerVersion_FromLayerVersionArn(b.stack, jsii.String(f.name+"ADOT"), jsii.String(b.st.ADOTCollectorLayer)))
			for k, v := range map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"} {
				b.fns[f.name].AddEnvironment(jsii.String(k), jsii.String(v), nil)
			}
		}
	}
}

// search makes the OpenSearch domain.
func (b *stackBuilder) search() {
	// Search: encryption at rest and in transit, HTTPS only, fine-grained
	// access control with the API function's role as master (it creates
	// the index at first start); the others get HTTP access to the indices.
	var zone *awsopensearchservice.ZoneAwarenessConfig
	if b.st.SearchNodes > 1 {
		zone = &awsopensearchservice.ZoneAwarenessConfig{Enabled: jsii.Bool(true), AvailabilityZoneCount: jsii.Number(2)}
	}
	b.domain = awsopensearchservice.NewDomain(b.stack, jsii.String("Search"), &awsopensearchservice.DomainProps{
		Version: awsopensearchservice.EngineVersion_OPENSEARCH_2_19(),
		Capacity: &awsopensearchservice.CapacityConfig{DataNodes: jsii.Number(b.st.SearchNodes),
			DataNodeInstanceType: jsii.String(b.st.SearchInstance), MultiAzWithStandbyEnabled: jsii.Bool(false)},
		Ebs:                  &awsopensearchservice.EbsOptions{VolumeSize: jsii.Number(b.st.SearchVolumeGiB), VolumeType: awsec2.EbsDeviceVolumeType_GP3},
		ZoneAwareness:        zone,
		EncryptionAtRest:     &awsopensearchservice.EncryptionAtRestOptions{Enabled: jsii.Bool(true)},
		NodeToNodeEncryption: jsii.Bool(true),
		EnforceHttps:         jsii.Bool(true),
		TlsSecurityPolicy:    awsopensearchservice.TLSSecurityPolicy_TLS_1_2,
		FineGrainedAccessControl: &awsopensearchservice.AdvancedSecurityOptions{
			MasterUserArn: b.fns["api"].Role().RoleArn(),
		},
		RemovalPolicy: b.removal,
	})
}

// grants makes the functions' environment and least-privilege grants.
func (b *stackBuilder) grants() {
	// Environment and least-privilege grants.
	region := *b.stack.Region()
	bedrockModel := func(model string) string {
		return fmt.Sprintf("arn:%s:bedrock:%s::foundation-model/%s", *b.stack.Partition(), region, model)
	}
	common := map[string]string{
		"BACKEND": "aws", "DYNAMODB_TABLE": *b.table.TableName(), "INDEX": "opensearch",
		"OPENSEARCH_URL": "https://" + *b.domain.DomainEndpoint(), "OPENSEARCH_SIGV4": "true",
		"EMBEDDER": "bedrock", "BEDROCK_EMBED_MODEL": b.st.EmbedModel, "LOG_LEVEL": "info",
	}
	for _, f := range functions {
		for k, v := range common {
			b.fns[f.name].AddEnvironment(jsii.String(k), jsii.String(v), nil)
		}
	}
	b.fns["api"].AddEnvironment(jsii.String("EXTRACT_QUEUE_URL"), b.queue.QueueUrl(), nil)
	// The API function is the domain's master user: at start it maps the
	// pipeline functions' roles to the writer role (pkg/index/opensearch).
	b.fns["api"].AddEnvironment(jsii.String("OPENSEARCH_WRITER_ROLES"), awscdk.Fn_Join(jsii.String(","), &[]*string{
		b.fns["ingest"].Role().RoleArn(), b.fns["extract"].Role().RoleArn(), b.fns["consolidate"].Role().RoleArn()}), nil)
	// The model extracts knowledge off the write path: the api and ingest
	// functions name it so that their writes are left pending for it
	// (wiring.KnowledgeModel); the extract function calls it after each
	// batch and the ingest function's scheduled maintenance for what is
	// left. The api function calls it for searches only with QueryLLM
	// (LLM_QUERIES).
	for _, n := range []string{"api", "ingest", "extract"} {
		b.fns[n].AddEnvironment(jsii.String("BEDROCK_LLM_MODEL"), jsii.String(b.st.LLMModel), nil)
	}
	b.fns["api"].AddEnvironment(jsii.String("LLM_QUERIES"), jsii.String(strconv.FormatBool(b.st.QueryLLM)), nil)

	// The secret that signs end-user tokens (POST /v1/tokens): the API
	// mints with it, the authorizer verifies with it; a rotation makes a
	// new version, and the tokens of the previous one verify until they
	// expire (pkg/auth/secretsmanager).
	tokenSecret := awssecretsmanager.NewSecret(b.stack, jsii.String("TokenSigningSecret"), &awssecretsmanager.SecretProps{
		Description:          jsii.String("signs agentmem end-user tokens (HMAC-SHA256)"),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{PasswordLength: jsii.Number(64), ExcludePunctuation: jsii.Bool(true)},
	})
	for _, n := range []string{"api", "authorizer"} {
		b.fns[n].AddEnvironment(jsii.String("TOKEN_SECRET_NAME"), tokenSecret.SecretArn(), nil)
		tokenSecret.GrantRead(b.fns[n], nil)
	}

	// The authorizer reads API keys and the token secret, and enrols each
	// org in the tenants usage plan (found by name: naming its id would
	// make the authorizer depend on the API it authorizes): it creates the
	// org's API key, whose value is the usage identifier it returns, and
	// adds it to the plan (pkg/transport/authorizer.UsagePlan).
	b.table.GrantReadData(b.fns["authorizer"])
	b.fns["authorizer"].AddEnvironment(jsii.String("USAGE_PLAN_NAME"), b.name("tenants"), nil)
	apigw := func(path string) string {
		return fmt.Sprintf("arn:%s:apigateway:%s::%s", *b.stack.Partition(), *b.stack.Region(), path)
	}
	b.fns["authorizer"].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("apigateway:GET"),
		Resources: jsii.Strings(apigw("/usageplans"), apigw("/apikeys")),
	}))
	b.fns["authorizer"].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("apigateway:POST"),
		Resources: jsii.Strings(apigw("/apikeys"), apigw("/usageplans/*/keys")),
	}))
	for _, n := range []string{"api", "ingest", "extract", "consolidate"} {
		b.table.GrantReadWriteData(b.fns[n])
		b.domain.GrantIndexReadWrite(jsii.String("memories*"), b.fns[n])
		b.domain.GrantPathReadWrite(jsii.String("_alias/*"), b.fns[n])
		b.fns[n].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("bedrock:InvokeModel"),
			Resources: jsii.Strings(bedrockModel(b.st.EmbedModel)),
		}))
	}
	b.domain.GrantPathReadWrite(jsii.String("_msearch"), b.fns["api"])
	b.domain.GrantPathReadWrite(jsii.String("_bulk"), b.fns["api"])
	for _, n := range []string{"ingest", "extract", "consolidate"} {
		b.domain.GrantPathReadWrite(jsii.String("_msearch"), b.fns[n])
		b.domain.GrantPathReadWrite(jsii.String("_bulk"), b.fns[n])
	}
	llmCallers := []string{"extract", "ingest"} // the api function calls the model for searches only
	if b.st.QueryLLM {
		llmCallers = append(llmCallers, "api")
	}
	for _, n := range llmCallers {
		b.fns[n].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("bedrock:InvokeModel"),
			Resources: jsii.Strings(bedrockModel(b.st.LLMModel)),
		}))
	}
	b.bucket.GrantRead(b.fns["ingest"], jsii.String("*/*"))
	b.queue.GrantSendMessages(b.fns["api"])
}

// triggers makes what starts the pipelines: S3 events, the queue, schedules.
func (b *stackBuilder) triggers() {
	// Triggers.
	b.bucket.AddEventNotification(awss3.EventType_OBJECT_CREATED, awss3notifications.NewLambdaDestination(b.fns["ingest"]))
	b.bucket.AddEventNotification(awss3.EventType_OBJECT_REMOVED, awss3notifications.NewLambdaDestination(b.fns["ingest"]))
	b.fns["extract"].AddEventSource(awslambdaeventsources.NewSqsEventSource(b.queue, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize: jsii.Number(10), ReportBatchItemFailures: jsii.Bool(true),
	}))
	awsevents.NewRule(b.stack, jsii.String("ConsolidateDaily"), &awsevents.RuleProps{
		RuleName: b.name("consolidate-daily"),
		Schedule: awsevents.Schedule_Cron(&awsevents.CronOptions{Hour: jsii.String("3"), Minute: jsii.String("0")}),
		Targets:  &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(b.fns["consolidate"], nil)},
	})
	// Maintenance of a shared store, which no process start runs: the ingest
	// function settles or rolls back interrupted ingestions (older than
	// three of its timeouts) and retries pending knowledge extraction
	// (ingest.Maintenance). Hourly: each pass lists the orgs by a scan.
	awsevents.NewRule(b.stack, jsii.String("IngestMaintenance"), &awsevents.RuleProps{
		RuleName: b.name("ingest-maintenance"),
		Schedule: awsevents.Schedule_Rate(awscdk.Duration_Hours(jsii.Number(1))),
		Targets:  &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(b.fns["ingest"], nil)},
	})
}

// restAPI makes the REST API in front of the API function, behind the authorizer.
func (b *stackBuilder) restAPI() {
	// API: REST, access logs, throttling, a usage plan for tenants. Every
	// path goes to the API function behind the request authorizer (cached
	// five minutes per key), /v1/* and the MCP server at /mcp alike
	// (streamable HTTP, stateless, JSON responses: nothing outlives a
	// request, as API Gateway requires), except publicPaths.
	accessLogs := awslogs.NewLogGroup(b.stack, jsii.String("ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention: b.st.LogRetention, RemovalPolicy: b.removal,
	})
	authorizer := awsapigateway.NewRequestAuthorizer(b.stack, jsii.String("KeyAuthorizer"), &awsapigateway.RequestAuthorizerProps{
		Handler:         b.fns["authorizer"],
		IdentitySources: &[]*string{awsapigateway.IdentitySource_Header(jsii.String("Authorization"))},
		ResultsCacheTtl: awscdk.Duration_Minutes(jsii.Number(5)),
	})
	b.api = awsapigateway.NewLambdaRestApi(b.stack, jsii.String("Api"), &awsapigateway.LambdaRestApiProps{
		RestApiName: b.name("api"),
		Handler:     b.fns["api"], // the integration of every method below
		Proxy:       jsii.Bool(false),
		// The usage plan throttles by the usage identifier the authorizer
		// returns, one per org (every authorized method requires it): all
		// the keys and tokens of an org share the plan's rate.
		ApiKeySourceType: awsapigateway.ApiKeySourceType_AUTHORIZER,
		DeployOptions: &awsapigateway.StageOptions{
			StageName:            jsii.String(b.st.Name),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(accessLogs),
			AccessLogFormat: awsapigateway.AccessLogFormat_JsonWithStandardFields(&awsapigateway.JsonWithStandardFieldProps{
				Caller: jsii.Bool(true), HttpMethod: jsii.Bool(true), Ip: jsii.Bool(true), Protocol: jsii.Bool(true),
				RequestTime: jsii.Bool(true), ResourcePath: jsii.Bool(true), ResponseLength: jsii.Bool(true),
				Status: jsii.Bool(true), User: jsii.Bool(true),
			}),
			ThrottlingRateLimit:  jsii.Number(b.st.ApiRateLimit),
			ThrottlingBurstLimit: jsii.Number(b.st.ApiBurstLimit),
			MetricsEnabled:       jsii.Bool(true),
			TracingEnabled:       jsii.Bool(true),
		},
		// The handler enforces 1 MiB bodies; API Gateway's own limit is 10 MB.
		MinCompressionSize: awscdk.Size_Kibibytes(jsii.Number(1)),
		CloudWatchRole:     jsii.Bool(true),
	})
	routeAPI(b.api, authorizer)
	// Per org: the authorizer enrols each org's usage identifier in it.
	b.api.AddUsagePlan(jsii.String("Tenants"), &awsapigateway.UsagePlanProps{
		Name:      b.name("tenants"),
		Throttle:  &awsapigateway.ThrottleSettings{RateLimit: jsii.Number(b.st.ApiRateLimit / 5), BurstLimit: jsii.Number(b.st.ApiBurstLimit / 5)},
		Quota:     &awsapigateway.QuotaSettings{Limit: jsii.Number(b.st.TenantDailyQuota), Period: awsapigateway.Period_DAY},
		ApiStages: &[]*awsapigateway.UsagePlanPerApiStage{{Api: b.api, Stage: b.api.DeploymentStage()}},
	})
}

// alarms makes the alarms and the topic they are sent to.
func (b *stackBuilder) alarms() {
	// Alarms, sent to one topic.
	alarms := awssns.NewTopic(b.stack, jsii.String("Alarms"), &awssns.TopicProps{TopicName: b.name("alarms"), EnforceSSL: jsii.Bool(true)})
	alarm := func(id string, metric awscloudwatch.IMetric, threshold float64, what string) {
		a := awscloudwatch.NewAlarm(b.stack, jsii.String(id), &awscloudwatch.AlarmProps{
			Metric: metric, Threshold: jsii.Number(threshold), EvaluationPeriods: jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING, AlarmDescription: jsii.String(what),
		})
		a.AddAlarmAction(awscloudwatchactions.NewSnsAction(alarms))
	}
	alarm("DLQDepth", b.dlq.MetricApproximateNumberOfMessagesVisible(nil), 1, "extraction jobs reached the dead-letter queue")
	for _, f := range functions {
		alarm(f.name+"Errors", b.fns[f.name].MetricErrors(nil), 1, f.name+" function errors")
		alarm(f.name+"Throttles", b.fns[f.name].MetricThrottles(nil), 1, f.name+" function throttles")
	}
	alarm("Api5xx", awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String("100 * errors / MAX([errors, requests])"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"errors":   b.api.MetricServerError(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")}),
			"requests": b.api.MetricCount(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")}),
		},
		Period: awscdk.Duration_Minutes(jsii.Number(5)),
	}), 1, "more than 1% of API requests answered 5xx")
	alarm("SearchRed", b.domain.MetricClusterStatusRed(nil), 1, "the OpenSearch cluster is red")

	// Alarms on the functions' own metrics: embedded-metric-format lines
	// (telemetry/emf; the names and dimensions are its constants).
	five := awscdk.Duration_Minutes(jsii.Number(5))
	emf := func(metric, stat string, dims map[string]*string) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{Namespace: jsii.String("agentmem"), MetricName: jsii.String(metric),
			DimensionsMap: &dims, Statistic: jsii.String(stat), Period: five})
	}
	items := func(fn, pipeline, outcome string) awscloudwatch.IMetric {
		return emf("Items", "Sum", map[string]*string{"Function": b.name(fn), "Pipeline": jsii.String(pipeline), "Outcome": jsii.String(outcome)})
	}
	alarm("ApiServerErrors", emf("ServerErrors", "Sum", map[string]*string{"Function": b.name("api")}), 5,
		"the API function answered 5 or more 5xx in 5 minutes")
	alarm("SearchLatencyP95", emf("Latency", "p95", map[string]*string{"Function": b.name("api"), "Route": jsii.String("POST /v1/search")}), 1000,
		"search p95 latency reached 1 s over 5 minutes")
	alarm("RerankFallbacks", emf("RerankFallbacks", "Sum", map[string]*string{"Function": b.name("api")}), 10,
		"10 or more searches in 5 minutes fell back to the fused order because the reranker failed")
	alarm("IngestFailures", items("ingest", "ingest", "failed"), 1, "documents failed to ingest")
	alarm("ExtractFailures", items("extract", "extract", "failed"), 5, "5 or more extraction jobs failed in 5 minutes (retried, then dead-lettered)")
	alarm("ConsolidateFailures", items("consolidate", "consolidate", "failed"), 1, "a consolidation run failed")
	alarm("ExtractQueueDepth", b.queue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: five, Statistic: jsii.String("Maximum")}),
		1000, "1,000 or more extraction jobs wait in the queue")
	alarm("ExtractQueueAge", b.queue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: five, Statistic: jsii.String("Maximum")}),
		900, "the oldest extraction job has waited 15 minutes")
}

// publicPaths are the paths the stage serves without the authorizer, GET
// only: the root (a redirect to /ui/), the memory explorer's static files (/ui, /ui/...), the API
// reference page and its script (/docs, /docs/...) and the OpenAPI
// document. memoryd serves them with no key; none holds tenant data (the
// explorer calls the API with the key the user signs in with, through the
// authorizer like any client).
var publicPaths = []string{"ui", "ui/{proxy+}", "docs", "docs/{proxy+}", "v1/openapi.json"}

// routeAPI defines the API's resources, all integrated with the API
// function (api's default integration): ANY on the root and on {proxy+}
// behind authorizer, and GET without it on the root and on publicPaths. The static
// resources of publicPaths take precedence over the root's {proxy+} for
// their own paths only; v1/{proxy+} (ANY, behind authorizer) keeps every
// other /v1/... path on the authorizer without relying on API Gateway
// falling back from the static v1 resource to the root's proxy.
func routeAPI(api awsapigateway.RestApi, authorizer awsapigateway.IAuthorizer) {
	private := &awsapigateway.MethodOptions{Authorizer: authorizer, AuthorizationType: awsapigateway.AuthorizationType_CUSTOM,
		ApiKeyRequired: jsii.Bool(true)} // the authorizer's usage identifier: per-org throttling
	public := &awsapigateway.MethodOptions{AuthorizationType: awsapigateway.AuthorizationType_NONE}
	api.Root().AddMethod(jsii.String("ANY"), nil, private)
	api.Root().AddProxy(&awsapigateway.ProxyResourceOptions{AnyMethod: jsii.Bool(true), DefaultMethodOptions: private})
	v1 := api.Root().ResourceForPath(jsii.String("v1"))
	v1.AddProxy(&awsapigateway.ProxyResourceOptions{AnyMethod: jsii.Bool(true), DefaultMethodOptions: private})
	api.Root().AddMethod(jsii.String("GET"), nil, public) // GET / redirects to the explorer; the root's other methods keep the authorizer
	for _, p := range publicPaths {
		api.Root().ResourceForPath(jsii.String(p)).AddMethod(jsii.String("GET"), nil, public)
	}
}
