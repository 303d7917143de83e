// A type-level check of src/types.ts against the OpenAPI document:
// `npm run types:check` generates spec/openapi.d.ts from
// pkg/transport/contract/openapi.json with openapi-typescript, then compiles
// this file, which fails when the two disagree:
//   - every response the client reads must accept what the spec says the
//     server sends (the spec's schema is assignable to the client's type);
//   - every request the client sends must be one the spec accepts (the
//     client's type is assignable to the spec's schema).
// The schema names are the spec's (pkg/transport/contract/openapi.json).
// openapi-typescript runs with --empty-objects-unknown: an object schema
// without properties (metadata, a query expression) is any JSON object.
import type { components } from "./openapi.js";
import type * as T from "../src/types.js";

type S = components["schemas"];
/** Compiles only when A is assignable to B. */
type Assignable<A, B> = [A] extends [B] ? true : false;
type Check<X extends true> = X;

// Responses: spec -> client.
export type Responses = [
  Check<Assignable<S["Memory"], T.Memory>>,
  Check<Assignable<S["CreateResult"], T.CreateResult>>,
  Check<Assignable<S["MemoryPage"], T.MemoryPage>>,
  Check<Assignable<S["SearchResponse"], T.SearchResponse>>,
  Check<Assignable<S["ContextResult"], T.PromptContext>>,
  Check<Assignable<S["DocumentStatus"], T.Document>>,
  Check<Assignable<S["DocumentPage"], T.DocumentPage>>,
  Check<Assignable<S["MessagesResponse"], T.MessagesResult>>,
  Check<Assignable<S["KnowledgeSearchResult"], T.KnowledgeSearchResponse>>,
  Check<Assignable<S["KnowledgePrefetchResult"], T.KnowledgePrefetchResponse>>,
  Check<Assignable<S["Problem"], T.Problem>>,
  Check<Assignable<S["CreateTokenResponse"], T.Token>>,
  Check<Assignable<S["EntityProfile"], T.Entity>>,
  Check<Assignable<S["World"], T.World>>,
  Check<Assignable<S["Room"], T.Room>>,
  Check<Assignable<S["EntityPage"], T.EntityPage>>,
  Check<Assignable<S["WorldPage"], T.WorldPage>>,
  Check<Assignable<S["RoomPage"], T.RoomPage>>,
  Check<Assignable<S["Participants"], T.Participants>>,
  Check<Assignable<S["WorkstreamBlock"], T.WorkstreamBlock>>,
  Check<Assignable<S["WorkstreamList"], T.WorkstreamList>>,
  Check<Assignable<S["Relation"], T.Relation>>,
  Check<Assignable<S["ForgetResponse"], T.ForgetResult>>,
  Check<Assignable<S["ImportReport"], T.ImportReport>>,
  Check<Assignable<S["MemoryHistory"], T.MemoryHistory>>,
  Check<Assignable<S["Whoami"], T.Whoami>>,
  Check<Assignable<S["CreateKeyResponse"], T.CreatedKey>>,
  Check<Assignable<S["APIKey"], T.APIKey>>,
  Check<Assignable<S["UsageResponse"], T.Usage>>,
  Check<Assignable<S["AuditEntry"], T.AuditEntry>>,
  Check<Assignable<S["ConsolidationReport"], T.ConsolidationReport>>,
  Check<Assignable<S["SettingsResponse"], T.StoredSettings>>,
  Check<Assignable<S["KnowledgeItem"], T.KnowledgeListItem>>,
];

// Requests: client -> spec.
export type Requests = [
  Check<Assignable<T.NewMemory, S["NewMemory"]>>,
  Check<Assignable<T.Patch, S["Patch"]>>,
  Check<Assignable<T.SearchRequest, S["SearchRequest"]>>,
  Check<Assignable<T.ContextRequest, S["ContextRequest"]>>,
  Check<Assignable<T.KnowledgeSearchRequest, S["KnowledgeSearchRequest"]>>,
  Check<Assignable<T.KnowledgePrefetchRequest, S["KnowledgePrefetchRequest"]>>,
  Check<Assignable<T.KnowledgeScope, S["KnowledgeScope"]>>,
  Check<Assignable<T.MessagesRequest, S["MessagesRequest"]>>,
  Check<Assignable<T.ChatMessage, S["ChatMessage"]>>,
  Check<Assignable<T.TokenRequest, S["CreateTokenRequest"]>>,
  Check<Assignable<T.NewEntity, S["NewEntity"]>>,
  Check<Assignable<T.EntityPatch, S["EntityPatch"]>>,
  Check<Assignable<T.NewWorld, S["NewWorld"]>>,
  Check<Assignable<T.WorldPatch, S["WorldPatch"]>>,
  Check<Assignable<T.NewRoom, S["NewRoom"]>>,
  Check<Assignable<T.RoomPatch, S["RoomPatch"]>>,
  Check<Assignable<T.NewWorkstream, S["NewWorkstream"]>>,
  Check<Assignable<T.NewWorkstreamEntry, S["NewWorkstreamEntry"]>>,
  Check<Assignable<T.NewRelation, S["RelationRequest"]>>,
  Check<Assignable<T.ForgetRequest, S["ForgetRequest"]>>,
  Check<Assignable<T.KeyRequest, S["CreateKeyRequest"]>>,
  Check<Assignable<T.ExtractionSettings, S["ExtractionSettings"]>>,
];
