// Package localstack holds the tests of the AWS deployment's event paths
// against a LocalStack process (scripts/localstack.sh, no Docker): the
// AWS backend (wiring/aws) on LocalStack's DynamoDB, an object put into a
// LocalStack bucket whose notification reaches an SQS queue and then the
// ingest handler, an extraction job sent on a LocalStack queue and run by
// the extract handler, and EventBridge rules (scheduled and PutEvents)
// delivering to a queue whose events run the consolidation handler.
//
// LocalStack community cannot run Lambda functions without Docker, so the
// queues stand in for the Lambda triggers: each test receives the real
// event LocalStack emitted and hands it, in process, to the handler the
// function's main.go builds, composed the same way.
//
// The tests skip unless LOCALSTACK_URL is set (REQUIRE_LOCALSTACK=1 makes a
// missing one a failure); they also need OPENSEARCH_URL for the index. make
// test runs them in its LocalStack stage (scripts/localstack-stage.sh).
package localstack
