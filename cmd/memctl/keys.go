package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

const keysUsage = `usage:
  memctl keys create -org ORG [-agent AGENT] [-name NAME] [-grants read,write,delete,delete:org,admin,write:org]
  memctl keys list   -org ORG
  memctl keys revoke -org ORG KEY_ID
  memctl quota       -org ORG [-memories N] [-bytes N] [-documents N]   (show, or set the org's own limits; 0 keeps the default)

Keys live in the store the environment names (SQLite in DATA_DIR, or DynamoDB
with BACKEND=aws). A new key's secret is printed once; only its SHA-256 is kept.`

// adminStore is what the key and quota commands need of a store.
type adminStore interface {
	memory.KeyStore
	memory.RecordStore
	memory.UsageCounter
}

func openAdminStore(ctx context.Context) (adminStore, func(), error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	if cfg.Store.Backend == config.BackendAWS {
		s, err := aws.OpenStore(ctx, cfg.Store, cfg.AWS)
		return s, func() {}, err
	}
	s, err := local.OpenStore(cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	return s, func() { s.Close() }, nil
}

// keysCmd runs memctl keys create|list|revoke.
func keysCmd(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", keysUsage)
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	org := fs.String("org", "", "the org (tenant) of the keys")
	agent := fs.String("agent", "", "create: bind the key to one agent of the org")
	name := fs.String("name", "", "create: a description, e.g. the client using it")
	grants := fs.String("grants", "", "create: comma-separated grants (default: every grant of the binding)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *org == "" {
		return fmt.Errorf("keys %s: -org is required", args[0])
	}
	s, done, err := openAdminStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	switch args[0] {
	case "create":
		g := memory.DefaultGrants(*agent)
		if *grants != "" {
			if g, err = memory.ParseGrants("-grants", strings.Split(*grants, ",")); err != nil {
				return err
			}
		}
		secret, k, err := auth.NewKey(*org, *agent, *name, g, time.Now())
		if err != nil {
			return err
		}
		if err := s.CreateKey(ctx, k); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "created %s for %s (grants %s); the secret is shown once:\n", k.ID, owner(k), k.Grants)
		fmt.Println(secret)
		return nil
	case "list":
		keys, err := s.ListKeys(ctx, *org)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tOWNER\tGRANTS\tPREFIX\tNAME\tCREATED\tREVOKED")
		for _, k := range keys {
			revoked := "-"
			if k.RevokedAt != nil {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, owner(k), k.Grants, k.Prefix, k.Name, k.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return fmt.Errorf("keys revoke: give one key id (memctl keys list shows them)")
		}
		k, err := s.RevokeKey(ctx, *org, fs.Arg(0), time.Now())
		if err != nil {
			return err
		}
		fmt.Printf("revoked %s at %s\n", k.ID, k.RevokedAt.Format(time.RFC3339))
		return nil
	}
	return fmt.Errorf("%s", keysUsage)
}

func owner(k memory.APIKey) string {
	if k.AgentID != "" {
		return k.OrgID + "/" + k.AgentID
	}
	return k.OrgID
}

// quotaCmd shows an org's usage and limits, or sets its own limits.
func quotaCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("quota", flag.ContinueOnError)
	org := fs.String("org", "", "the org")
	var set memory.OrgUsage
	fs.Int64Var(&set.Memories, "memories", -1, "the org's memory quota (0: the default)")
	fs.Int64Var(&set.Bytes, "bytes", -1, "the org's quota of content bytes (0: the default)")
	fs.Int64Var(&set.Documents, "documents", -1, "the org's document quota (0: the default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !memory.ValidName(*org) {
		return fmt.Errorf("quota: -org is required (1-%d of A-Z a-z 0-9 . _ -)", memory.MaxNameLen)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	s, done, err := openAdminStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	if set.Memories >= 0 || set.Bytes >= 0 || set.Documents >= 0 {
		var cur memory.OrgUsage
		if _, err := s.GetRecord(ctx, *org, httpapi.QuotaRecordKind, httpapi.QuotaRecordID, &cur); err != nil && !memory.IsNotFound(err) {
			return err
		}
		for _, f := range []struct{ dst, v *int64 }{{&cur.Memories, &set.Memories}, {&cur.Bytes, &set.Bytes}, {&cur.Documents, &set.Documents}} {
			if *f.v >= 0 {
				*f.dst = *f.v
			}
		}
		if _, err := s.PutRecord(ctx, *org, httpapi.QuotaRecordKind, httpapi.QuotaRecordID, cur, 0); err != nil {
			return err
		}
	}
	l, err := api.Quotas(cfg.Quotas, s, s).LimitsOf(ctx, *org)
	if err != nil {
		return err
	}
	u, err := s.Usage(ctx, *org)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(httpapi.UsageResponse{OrgID: *org, Usage: u, Limits: l})
}
