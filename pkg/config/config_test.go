package config

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{"defaults", nil, Config{Port: 8080, Addr: "127.0.0.1", DataDir: "./data", Backend: "embedded", LogLevel: slog.LevelInfo,
			Index: "embedded", OpenSearchAlias: "memories"}, ""},
		{"all set", map[string]string{"PORT": "9000", "ADDR": "0.0.0.0", "DATA_DIR": "/tmp/x", "API_KEYS": "k=o", "BACKEND": "EMBEDDED", "LOG_LEVEL": "debug",
			"INDEX": "opensearch", "OPENSEARCH_URL": "http://a:9200, https://b:9200", "OPENSEARCH_ALIAS": "mem", "OPENSEARCH_USERNAME": "u", "OPENSEARCH_PASSWORD": "p"},
			Config{Port: 9000, Addr: "0.0.0.0", DataDir: "/tmp/x", APIKeys: "k=o", Backend: "embedded", LogLevel: slog.LevelDebug,
				Index: "opensearch", OpenSearchURLs: []string{"http://a:9200", "https://b:9200"}, OpenSearchAlias: "mem", OpenSearchUser: "u", OpenSearchSecret: "p"}, ""},
		{"opensearch without url", map[string]string{"INDEX": "opensearch"}, Config{}, "OPENSEARCH_URL: required"},
		{"opensearch bad url", map[string]string{"INDEX": "opensearch", "OPENSEARCH_URL": "a:9200"}, Config{}, "not an http(s) URL"},
		{"bad index", map[string]string{"INDEX": "solr"}, Config{}, "INDEX"},
		{"bad port", map[string]string{"PORT": "http"}, Config{}, "PORT"},
		{"port out of range", map[string]string{"PORT": "70000"}, Config{}, "PORT"},
		{"bad backend", map[string]string{"BACKEND": "mongo"}, Config{}, "BACKEND"},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, Config{}, "LOG_LEVEL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error naming %s, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
