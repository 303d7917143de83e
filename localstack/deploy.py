"""Deploy the synthesized CDK stack to LocalStack community, as far as it goes.

    python deploy.py TEMPLATE ENDPOINT [STACK]

The CloudFormation template `make synth` writes (cdk.out/<stage>/...) is
pruned of what LocalStack community cannot run without Docker, each removal
printed with its reason, written beside the template as
<name>.localstack.json, and created (or replaced) as STACK through
LocalStack's CloudFormation with boto3. It prints every resource created and
exits non-zero unless the stack reaches CREATE_COMPLETE.

Removed, by type:
  AWS::Lambda::Function            LocalStack community runs functions in Docker only;
                                   their code is in the CDK asset bucket, which cdk deploy fills
  AWS::Lambda::Permission,
  AWS::Lambda::EventSourceMapping  they name a function
  AWS::OpenSearchService::Domain   LocalStack would download an OpenSearch distribution
                                   from outside the package registries
  Custom::S3BucketNotifications    a custom resource run by a CDK Lambda function
  AWS::ApiGateway::Deployment      when its methods are gone (API Gateway refuses it)
and every resource that refers to a removed one (a Ref, Fn::GetAtt or
Fn::Sub): an EventBridge rule loses the targets that name a function, an IAM
policy the statements that name a removed resource, a DependsOn its removed
entries; anything else goes. The CDK bootstrap check (the BootstrapVersion
parameter, read from SSM, and the CheckBootstrapVersion rule) goes too: the
bootstrap stack is not deployed.
"""

import json
import sys
import time

import boto3

UNSUPPORTED = {
    "AWS::Lambda::Function": "LocalStack community runs Lambda functions in Docker containers only, "
    "and the code is a CDK asset (cdk deploy publishes it to the bootstrap bucket)",
    "AWS::Lambda::Permission": "it grants the invocation of a function that is not deployed",
    "AWS::Lambda::EventSourceMapping": "it feeds a function that is not deployed",
    "AWS::OpenSearchService::Domain": "LocalStack would download and run an OpenSearch distribution "
    "from outside the package registries",
    "Custom::S3BucketNotifications": "a custom resource whose handler is a CDK Lambda function",
}


def refs(value):
    """The logical ids value refers to (Ref, Fn::GetAtt, ${...} of Fn::Sub)."""
    out = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "Ref" and isinstance(v, str):
                out.add(v)
            elif k == "Fn::GetAtt":
                out.add(v[0] if isinstance(v, list) else v.split(".")[0])
            elif k == "Fn::Sub":
                text = v[0] if isinstance(v, list) else v
                for part in text.split("${")[1:]:
                    out.add(part.split("}")[0].split(".")[0])
                if isinstance(v, list):
                    out |= refs(v[1])
            else:
                out |= refs(v)
    elif isinstance(value, list):
        for v in value:
            out |= refs(v)
    return out


def prune(template):
    """Removes what LocalStack cannot run; returns [(logical id, type, reason)] removed and
    [(logical id, what)] trimmed."""
    res = template["Resources"]
    removed, trimmed = [], []
    for name, r in list(res.items()):
        if r["Type"] in UNSUPPORTED:
            removed.append((name, r["Type"], UNSUPPORTED[r["Type"]]))
            del res[name]
    gone = {n for n, _, _ in removed}
    changed = True
    while changed:
        changed = False
        for name, r in list(res.items()):
            deps = r.get("DependsOn")
            if deps:
                deps = [deps] if isinstance(deps, str) else deps
                kept = [d for d in deps if d not in gone]
                if kept != deps:
                    if r["Type"] == "AWS::ApiGateway::Deployment" and not any(
                            res[d]["Type"] == "AWS::ApiGateway::Method" for d in kept):
                        removed.append((name, r["Type"], "its methods name removed resources, and API Gateway "
                                                         "refuses a deployment of a REST API without methods"))
                        del res[name]
                        gone.add(name)
                        changed = True
                        continue
                    r["DependsOn"] = kept
                    if not kept:
                        del r["DependsOn"]
            props = r.get("Properties", {})
            hit = refs(props) & gone
            if not hit:
                continue
            if r["Type"] == "AWS::Events::Rule":
                before = props.get("Targets", [])
                props["Targets"] = [t for t in before if not refs(t) & gone]
                if not props["Targets"]:
                    del props["Targets"]
                trimmed.append((name, f"{len(before) - len(props.get('Targets', []))} target(s) naming "
                                      + ", ".join(sorted(refs(before) & gone))))
            elif r["Type"] == "AWS::IAM::Policy":
                stmts = props["PolicyDocument"]["Statement"]
                keep = [s for s in stmts if not refs(s) & gone]
                if keep and not refs({k: v for k, v in props.items() if k != "PolicyDocument"}) & gone:
                    props["PolicyDocument"]["Statement"] = keep
                    trimmed.append((name, f"{len(stmts) - len(keep)} statement(s) naming "
                                          + ", ".join(sorted(refs(stmts) & gone))))
                else:
                    removed.append((name, r["Type"], "its statements all name removed resources"))
                    del res[name]
                    gone.add(name)
            else:
                removed.append((name, r["Type"], "refers to " + ", ".join(sorted(hit))))
                del res[name]
                gone.add(name)
            changed = True
    for name, o in list(template.get("Outputs", {}).items()):
        if refs(o) & gone:
            removed.append((name, "Output", "refers to " + ", ".join(sorted(refs(o) & gone))))
            del template["Outputs"][name]
    if "BootstrapVersion" in template.get("Parameters", {}):
        del template["Parameters"]["BootstrapVersion"]
        template.pop("Rules", None)
        removed.append(("BootstrapVersion", "Parameter and CheckBootstrapVersion rule",
                        "the CDK bootstrap stack (its SSM version parameter) is not deployed"))
    return removed, trimmed


def main():
    path, endpoint = sys.argv[1], sys.argv[2]
    stack = sys.argv[3] if len(sys.argv) > 3 else "agentmem-dev"
    with open(path) as f:
        template = json.load(f)
    total = len(template["Resources"])
    removed, trimmed = prune(template)
    out = path.removesuffix(".template.json") + ".localstack.json"
    with open(out, "w") as f:
        json.dump(template, f, indent=1)
    print(f"{path}: {total} resources; {len(template['Resources'])} kept, written to {out}")
    print("not applied:")
    for name, typ, why in removed:
        print(f"  {name} ({typ}): {why}")
    for name, what in trimmed:
        print(f"  {name}: without {what}")

    cfn = boto3.client("cloudformation", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="test", aws_secret_access_key="test")
    if any(s["StackName"] == stack for s in cfn.list_stacks(StackStatusFilter=[
            "CREATE_COMPLETE", "CREATE_FAILED", "ROLLBACK_COMPLETE", "UPDATE_COMPLETE"])["StackSummaries"]):
        print(f"deleting the previous {stack}")
        cfn.delete_stack(StackName=stack)
        cfn.get_waiter("stack_delete_complete").wait(StackName=stack, WaiterConfig={"Delay": 2, "MaxAttempts": 150})
    t0 = time.monotonic()
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template), Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"])
    while True:
        st = cfn.describe_stacks(StackName=stack)["Stacks"][0]
        if not st["StackStatus"].endswith("_IN_PROGRESS"):
            break
        time.sleep(2)
    print(f"{stack}: {st['StackStatus']} in {time.monotonic() - t0:.0f} s")
    for r in cfn.describe_stack_resources(StackName=stack)["StackResources"]:
        print(f"  {r['ResourceStatus']:16} {r['ResourceType']:28} {r['LogicalResourceId']} -> {r.get('PhysicalResourceId', '')}")
    for o in st.get("Outputs", []):
        print(f"  output {o['OutputKey']} = {o['OutputValue']}")
    if st["StackStatus"] != "CREATE_COMPLETE":
        for e in cfn.describe_stack_events(StackName=stack)["StackEvents"]:
            if e["ResourceStatus"].endswith("FAILED") and e.get("ResourceStatusReason"):
                print(f"  {e['LogicalResourceId']}: {e.get('ResourceStatusReason', '')}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
