// Command authorizer is the API Gateway request authorizer Lambda: bearer
// keys are looked up, hashed, in the DynamoDB table (memctl keys create,
// POST /v1/admin/keys); end-user tokens (POST /v1/tokens) are verified
// with the Secrets Manager secret TOKEN_SECRET_NAME, when it is set. With
// USAGE_PLAN_NAME (the CDK app sets it), each org is enrolled in that API
// Gateway usage plan and the answer names its usage identifier, so that
// the plan throttles orgs, not keys.
// It is its own composition root: the configuration, the DynamoDB client
// and the key check, nothing of the memory service.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/auth/secretsmanager"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/transport/authorizer"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg, err := config.FromEnv()
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	c, err := dynamodb.NewClient(context.Background(), dynamodb.ClientOptions{Endpoint: cfg.Store.DynamoDBEndpoint, Region: cfg.AWS.Region})
	if err != nil {
		log.Error("dynamodb", "err", err)
		os.Exit(1)
	}
	keys, err := secretsmanager.OpenKeys(context.Background(), cfg.AWS.TokenSecretName, secretsmanager.ClientOptions{Region: cfg.AWS.Region})
	if err != nil {
		log.Error("token signing secret", "err", err)
		os.Exit(1)
	}
	h := authorizer.Handler{Keys: auth.StoreKeys{Store: dynamodb.New(c, cfg.Store.DynamoDBTable)}, Tokens: auth.TokensOf(keys)}
	if plan := os.Getenv("USAGE_PLAN_NAME"); plan != "" {
		gw, err := authorizer.NewAPIGateway(context.Background(), cfg.AWS.Region)
		if err != nil {
			log.Error("apigateway", "err", err)
			os.Exit(1)
		}
		h.Usage = &authorizer.UsagePlan{Client: gw, Plan: plan}
	}
	lambda.Start(h.Handle)
}
