#!/usr/bin/env bash
# make localstack-deploy: synthesizes the CDK app's STAGE (dev) and creates,
# through LocalStack's CloudFormation (scripts/localstack.sh, no Docker),
# what LocalStack community can run of it: localstack/deploy.py removes the
# rest (the Lambda functions and what names them, the OpenSearch domain),
# printing each removal with its reason, then prints what was created.
# LocalStack keeps running afterwards (make localstack-stop).
#
# The functions are not deployed, so the synthesis takes placeholder
# bootstraps instead of building them (make synth builds them).
set -euo pipefail
cd "$(dirname "$0")/.."

STAGE=${STAGE:-dev}
OUT=cdk.out/localstack-$STAGE
assets=$(mktemp -d)
trap 'rm -rf "$assets"' EXIT
for fn in api authorizer ingest extract consolidate; do
  mkdir -p "$assets/$fn" && echo "not deployed to LocalStack" >"$assets/$fn/bootstrap"
done
echo "localstack-deploy: synthesizing $STAGE into $OUT" >&2
(cd infra && CDK_OUTDIR="../$OUT" CDK_CONTEXT_JSON="{\"stage\":\"$STAGE\",\"assets\":\"$assets\"}" \
  JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=1 go run .)
url=$(scripts/localstack.sh start)
"$(scripts/localstack.sh python)" localstack/deploy.py "$OUT/agentmem-$STAGE.template.json" "$url" "agentmem-$STAGE"
echo "localstack-deploy: LocalStack keeps running at $url (make localstack-stop)" >&2
