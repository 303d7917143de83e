#!/usr/bin/env bash
# Runs inside LocalStack when it is ready: the resources the CDK app creates
# in AWS, minus the table (the application creates it with the same code the
# tests use).
set -euo pipefail
BUCKET=${AGENTMEM_BUCKET:-agentmem-documents}
QUEUE=${AGENTMEM_QUEUE:-agentmem-extract}

awslocal s3api create-bucket --bucket "$BUCKET" >/dev/null 2>&1 || true
awslocal s3api put-public-access-block --bucket "$BUCKET" --public-access-block-configuration \
  BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true

dlq_url=$(awslocal sqs create-queue --queue-name "$QUEUE-dlq" --attributes MessageRetentionPeriod=1209600 \
  --query QueueUrl --output text)
dlq_arn=$(awslocal sqs get-queue-attributes --queue-url "$dlq_url" --attribute-names QueueArn \
  --query Attributes.QueueArn --output text)
awslocal sqs create-queue --queue-name "$QUEUE" --attributes \
  "{\"VisibilityTimeout\":\"120\",\"RedrivePolicy\":\"{\\\"deadLetterTargetArn\\\":\\\"$dlq_arn\\\",\\\"maxReceiveCount\\\":\\\"5\\\"}\"}" >/dev/null

echo "agentmem: bucket $BUCKET, queue $QUEUE (DLQ $QUEUE-dlq) ready"
