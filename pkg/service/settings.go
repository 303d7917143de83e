package service

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The orgs' extraction settings (PUT /v1/admin/settings/extraction): the
// fact extraction pipeline's instructions, language and filters, and the
// metadata keys the knowledge service reads as structure. One store serves
// both readers and the admin API.

// DefaultSettingsTTL is how long SettingsStore serves an org's settings
// from its cache: a change made through another process (another Lambda)
// applies to jobs that start at most this long after it.
const DefaultSettingsTTL = 10 * time.Second

// maxCachedOrgs bounds the cache; past it expired entries are dropped,
// then all of them.
const maxCachedOrgs = 10000

// SettingsStore reads and writes the orgs' extraction settings, kept as
// records (memory.SettingsKind, memory.ExtractionSettingsID), and caches
// reads for TTL with their record version. A write through it replaces its
// cached copy at once, so in one process (memoryd) a change applies to the
// next job. It implements the OrgSettings the extraction pipeline and the
// knowledge service read; the zero TTL is DefaultSettingsTTL.
type SettingsStore struct {
	Records memory.RecordStore
	TTL     time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]cachedSettings
}

type cachedSettings struct {
	s       memory.ExtractionSettings
	version int64
	until   time.Time
}

// NewSettingsStore returns a SettingsStore over records with the default
// TTL.
func NewSettingsStore(records memory.RecordStore) *SettingsStore {
	return &SettingsStore{Records: records}
}

func (s *SettingsStore) clock() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Read returns org's extraction settings from the store, not the cache,
// and their version; the zero settings and version 0 when the org has set
// none.
func (s *SettingsStore) Read(ctx context.Context, org string) (memory.ExtractionSettings, int64, error) {
	var set memory.ExtractionSettings
	v, err := s.Records.GetRecord(ctx, org, memory.SettingsKind, memory.ExtractionSettingsID, &set)
	if memory.IsNotFound(err) {
		return memory.ExtractionSettings{}, 0, nil
	} else if err != nil {
		if memory.ErrorCode(err) == memory.EINTERNAL {
			// Not %w: a malformed record is not the job's fault, so it
			// must not look like a permanent (JSON) failure of the job.
			return memory.ExtractionSettings{}, 0, fmt.Errorf("settings: read the extraction settings of org %s: %v", org, err)
		}
		return memory.ExtractionSettings{}, 0, fmt.Errorf("settings: read the extraction settings of org %s: %w", org, err)
	}
	s.remember(org, set, v)
	return set, v, nil
}

// ExtractionSettings implements their OrgSettings: org's settings from the cache
// when read less than TTL ago, else from the store.
func (s *SettingsStore) ExtractionSettings(ctx context.Context, org string) (memory.ExtractionSettings, int64, error) {
	s.mu.Lock()
	c, ok := s.cache[org]
	s.mu.Unlock()
	if ok && s.clock().Before(c.until) {
		return c.s, c.version, nil
	}
	return s.Read(ctx, org)
}

// Write validates and normalizes set (memory.ExtractionSettings.Normalize)
// and stores it as org's settings. With ifVersion 0 it replaces them
// unconditionally; otherwise the stored version must be ifVersion
// (ECONFLICT). It returns the settings as stored and their new version.
func (s *SettingsStore) Write(ctx context.Context, org string, set memory.ExtractionSettings, ifVersion int64) (memory.ExtractionSettings, int64, error) {
	if err := set.Normalize(); err != nil {
		return set, 0, err
	}
	v, err := s.Records.PutRecord(ctx, org, memory.SettingsKind, memory.ExtractionSettingsID, set, ifVersion)
	if err != nil {
		return set, 0, fmt.Errorf("settings: write the extraction settings of org %s: %w", org, err)
	}
	s.remember(org, set, v)
	return set, v, nil
}

func (s *SettingsStore) remember(org string, set memory.ExtractionSettings, v int64) {
	ttl := s.TTL
	if ttl == 0 {
		ttl = DefaultSettingsTTL
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]cachedSettings{}
	}
	if c, ok := s.cache[org]; ok && c.version > v {
		// A slower reader must not put back an older version than a
		// writer already cached.
		return
	}
	if len(s.cache) >= maxCachedOrgs {
		for o, c := range s.cache {
			if !now.Before(c.until) {
				delete(s.cache, o)
			}
		}
		if len(s.cache) >= maxCachedOrgs {
			clear(s.cache)
		}
	}
	s.cache[org] = cachedSettings{s: set, version: v, until: now.Add(ttl)}
}
