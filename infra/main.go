package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stage := "dev"
	if v, ok := app.Node().TryGetContext(jsii.String("stage")).(string); ok && v != "" {
		stage = v
	}
	st, ok := Stages[stage]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown stage %q (dev or prod)\n", stage)
		os.Exit(1)
	}
	assets := "../bin/functions"
	if v, ok := app.Node().TryGetContext(jsii.String("assets")).(string); ok && v != "" {
		assets = v
	}
	var env *awscdk.Environment // environment-agnostic unless the CLI names one
	if a, r := os.Getenv("CDK_DEFAULT_ACCOUNT"), os.Getenv("CDK_DEFAULT_REGION"); a != "" && r != "" {
		env = &awscdk.Environment{Account: jsii.String(a), Region: jsii.String(r)}
	}
	NewStack(app, "agentmem-"+stage, Props{Stage: st, AssetsDir: assets, StackProps: awscdk.StackProps{Env: env}})
	app.Synth(nil)
}
