package dynamodb_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestIndexProjectionCost measures what creating a memory with a
// 1,024-dimension vector costs when the global secondary indexes project
// all attributes (the table as CreateTable makes it) and when they project
// only their keys: the figures docs/aws.md quotes for the projection
// migration it describes (-v prints them). Keys-only indexes must cost
// less than half as much for a memory in five indexes, since each index
// then writes a few hundred bytes instead of the whole 5 KB item.
func TestIndexProjectionCost(t *testing.T) {
	c, meter := meteredClient(t)
	shapes := []struct {
		name  string
		place func(*memory.Memory)
	}{
		{"org and type indexes", func(*memory.Memory) {}},
		{"org, type, room, entity and session indexes", func(m *memory.Memory) { m.RoomID, m.EntityID, m.SessionID = "r", "e", "s" }},
	}
	wcu := map[string]float64{}
	for _, proj := range []types.ProjectionType{types.ProjectionTypeAll, types.ProjectionTypeKeysOnly} {
		var b [4]byte
		rand.Read(b[:])
		name := "test-projection-" + hex.EncodeToString(b[:])
		in := dynamodb.TableInput(name)
		for i := range in.GlobalSecondaryIndexes {
			in.GlobalSecondaryIndexes[i].Projection = &types.Projection{ProjectionType: proj}
		}
		if _, err := c.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dynamodb.DeleteTable(ctx, c, name) })
		if err := awsdynamodb.NewTableExistsWaiter(c).Wait(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
			t.Fatal(err)
		}
		s := dynamodb.New(c, name)
		for si, sh := range shapes {
			m := memorytest.New("org-projection", "agent", memory.TypeFact, fmt.Sprintf("a memory placed in the %s", sh.name), memorytest.Base)
			m.Embedding = make([]float32, 1024)
			for j := range m.Embedding {
				m.Embedding[j] = float32(j%11) / 11
			}
			sh.place(m)
			meter.Reset()
			if _, err := s.Create(ctx, []*memory.Memory{m}); err != nil {
				t.Fatal(err)
			}
			used, _ := meter.Used()
			wcu[fmt.Sprint(proj, si)] = used.WCU
			t.Logf("indexes projecting %s, memory in the %s: create %.1f WCU", proj, sh.name, used.WCU)
		}
	}
	for si, sh := range shapes {
		all, keys := wcu[fmt.Sprint(types.ProjectionTypeAll, si)], wcu[fmt.Sprint(types.ProjectionTypeKeysOnly, si)]
		if keys >= all || (si == 1 && 2*keys >= all) {
			t.Errorf("%s: keys-only indexes %.1f WCU against %.1f projecting all", sh.name, keys, all)
		}
	}
}
