"""Over-the-wire smoke test of a running LocalStack (scripts/localstack.sh start).

Run it with the Python of LocalStack's virtual environment (it has boto3):

    ep=$(scripts/localstack.sh start)
    "$(scripts/localstack.sh python)" localstack/smoke.py "$ep" [--schedule] [--cloudformation]

Checks DynamoDB (table, put, get), S3 (bucket, put, get), SQS (send, receive),
S3 event notifications to SQS (put object -> ObjectCreated event), EventBridge
(rule with a schedule and an SQS target, listed; PutEvents delivered to the
target), and with --schedule that the scheduled rule delivers within 150 s,
with --cloudformation that a stack of a table, a bucket and a queue is created.
Prints one line per check and 'N passed, N failed'; exits non-zero on a failure.
"""

import json
import sys
import time
import uuid

import boto3
from botocore.config import Config

ENDPOINT = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "http://127.0.0.1:14566"
FLAGS = set(a for a in sys.argv[1:] if a.startswith("--"))
REGION = "us-east-1"
RUN = uuid.uuid4().hex[:8]

passed, failed = 0, 0


def client(name):
    return boto3.client(
        name,
        endpoint_url=ENDPOINT,
        region_name=REGION,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}),
    )


def check(name, fn):
    global passed, failed
    t0 = time.monotonic()
    try:
        detail = fn()
        passed += 1
        print(f"ok   {name} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}", flush=True)
    except Exception as e:  # noqa: BLE001 - report every failure and go on
        failed += 1
        print(f"FAIL {name} ({time.monotonic() - t0:.1f} s): {type(e).__name__}: {e}", flush=True)


def receive(sqs, url, wait_s, want=lambda body: True):
    """Messages of url whose body satisfies want, polling up to wait_s seconds."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        out = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=min(5, max(1, int(deadline - time.monotonic()))))
        got = [m for m in out.get("Messages", []) if want(m["Body"])]
        for m in out.get("Messages", []):
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        if got:
            return got
    return []


ddb, s3, sqs, events = client("dynamodb"), client("s3"), client("sqs"), client("events")


def dynamodb():
    table = f"smoke-{RUN}"
    ddb.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    ddb.put_item(TableName=table, Item={"PK": {"S": "T#1"}, "SK": {"S": "M#1"}, "text": {"S": "hello"}})
    item = ddb.get_item(TableName=table, Key={"PK": {"S": "T#1"}, "SK": {"S": "M#1"}}, ConsistentRead=True)["Item"]
    assert item["text"]["S"] == "hello", item
    ddb.delete_table(TableName=table)
    return f"table {table}: put/get ok"


def s3_roundtrip():
    bucket = f"smoke-{RUN}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="a/b.txt", Body=b"payload")
    body = s3.get_object(Bucket=bucket, Key="a/b.txt")["Body"].read()
    assert body == b"payload", body
    return f"bucket {bucket}: put/get ok"


def sqs_roundtrip():
    url = sqs.create_queue(QueueName=f"smoke-{RUN}")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="ping")
    got = receive(sqs, url, 10)
    assert got and got[0]["Body"] == "ping", got
    return f"queue URL {url}"


def queue_arn(url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def s3_notifications():
    bucket = f"smoke-notify-{RUN}"
    url = sqs.create_queue(QueueName=f"smoke-notify-{RUN}")["QueueUrl"]
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": queue_arn(url), "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]}]
        },
    )
    receive(sqs, url, 2)  # drop the s3:TestEvent AWS sends on configuration
    s3.put_object(Bucket=bucket, Key="docs/x.txt", Body=b"x")
    got = receive(sqs, url, 15, lambda b: "Records" in json.loads(b))
    assert got, "no S3 event in the queue"
    rec = json.loads(got[0]["Body"])["Records"][0]
    assert rec["eventName"].startswith("ObjectCreated") and rec["s3"]["object"]["key"] == "docs/x.txt", rec
    return f"{rec['eventSource']} {rec['eventName']} key={rec['s3']['object']['key']}"


SCHEDULE = {}


def eventbridge():
    url = sqs.create_queue(QueueName=f"smoke-events-{RUN}")["QueueUrl"]
    arn = queue_arn(url)
    rule = f"smoke-schedule-{RUN}"
    events.put_rule(Name=rule, ScheduleExpression="rate(1 minute)", State="ENABLED")
    events.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": arn}])
    listed = [r["Name"] for r in events.list_rules(NamePrefix="smoke-schedule-")["Rules"]]
    assert rule in listed, listed
    targets = events.list_targets_by_rule(Rule=rule)["Targets"]
    assert targets and targets[0]["Arn"] == arn, targets
    SCHEDULE.update(url=url, rule=rule, created=time.monotonic())
    # an event pattern rule on the same queue: PutEvents is delivered
    prule = f"smoke-pattern-{RUN}"
    events.put_rule(Name=prule, EventPattern=json.dumps({"source": ["agentmem.smoke"]}))
    events.put_targets(Rule=prule, Targets=[{"Id": "q", "Arn": arn}])
    out = events.put_events(Entries=[{"Source": "agentmem.smoke", "DetailType": "t", "Detail": json.dumps({"run": RUN})}])
    assert out["FailedEntryCount"] == 0, out
    got = receive(sqs, url, 15, lambda b: json.loads(b).get("source") == "agentmem.smoke")
    assert got, "PutEvents not delivered to the SQS target"
    return f"rule {rule} listed with its SQS target; PutEvents delivered"


def scheduled_delivery():
    deadline = SCHEDULE["created"] + 150
    while time.monotonic() < deadline:
        got = receive(sqs, SCHEDULE["url"], deadline - time.monotonic(),
                      lambda b: json.loads(b).get("detail-type") == "Scheduled Event")
        if got:
            ev = json.loads(got[0]["Body"])
            return f"{ev['detail-type']} from {ev['source']} {time.monotonic() - SCHEDULE['created']:.0f} s after the rule"
    raise AssertionError("no scheduled event within 150 s")


def cloudformation():
    cfn = client("cloudformation")
    stack = f"smoke-{RUN}"
    template = {
        "Resources": {
            "Table": {
                "Type": "AWS::DynamoDB::Table",
                "Properties": {
                    "BillingMode": "PAY_PER_REQUEST",
                    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                },
            },
            "Bucket": {"Type": "AWS::S3::Bucket"},
            "DLQ": {"Type": "AWS::SQS::Queue"},
            "Queue": {
                "Type": "AWS::SQS::Queue",
                "Properties": {
                    "VisibilityTimeout": 120,
                    "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["DLQ", "Arn"]}, "maxReceiveCount": 5},
                },
            },
            "Schedule": {
                "Type": "AWS::Events::Rule",
                "Properties": {
                    "ScheduleExpression": "rate(5 minutes)",
                    "Targets": [{"Id": "q", "Arn": {"Fn::GetAtt": ["Queue", "Arn"]}}],
                },
            },
        },
        "Outputs": {
            "TableName": {"Value": {"Ref": "Table"}},
            "BucketName": {"Value": {"Ref": "Bucket"}},
            "QueueUrl": {"Value": {"Ref": "Queue"}},
        },
    }
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template))
    cfn.get_waiter("stack_create_complete").wait(StackName=stack, WaiterConfig={"Delay": 2, "MaxAttempts": 60})
    out = {o["OutputKey"]: o["OutputValue"] for o in cfn.describe_stacks(StackName=stack)["Stacks"][0]["Outputs"]}
    assert ddb.describe_table(TableName=out["TableName"])["Table"]["TableStatus"] == "ACTIVE"
    s3.head_bucket(Bucket=out["BucketName"])
    attrs = sqs.get_queue_attributes(QueueUrl=out["QueueUrl"], AttributeNames=["RedrivePolicy"])["Attributes"]
    assert "maxReceiveCount" in attrs["RedrivePolicy"], attrs
    types = sorted(r["ResourceType"] for r in cfn.describe_stack_resources(StackName=stack)["StackResources"])
    cfn.delete_stack(StackName=stack)
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack, WaiterConfig={"Delay": 2, "MaxAttempts": 60})
    return f"CREATE_COMPLETE then deleted: {', '.join(types)}"


check("dynamodb create table, put/get item", dynamodb)
check("s3 create bucket, put/get object", s3_roundtrip)
check("sqs create queue, send/receive", sqs_roundtrip)
check("s3 event notification to sqs", s3_notifications)
check("eventbridge scheduled rule with sqs target", eventbridge)
if "--cloudformation" in FLAGS:
    check("cloudformation stack: table, bucket, queues, rule", cloudformation)
if "--schedule" in FLAGS and SCHEDULE:
    check("eventbridge schedule delivers to sqs", scheduled_delivery)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
