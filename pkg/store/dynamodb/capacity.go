package dynamodb

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Capacity counts the read and write capacity units DynamoDB reports as
// consumed by a client's calls: with it in ClientOptions, every call asks
// for ReturnConsumedCapacity TOTAL and its response's ConsumedCapacity is
// added here. It is off unless set (benchmarks: cmd/bench/capacity) and
// safe for concurrent use.
type Capacity struct {
	mu       sync.Mutex
	used     CapacityUsed
	inFlight int
}

// CapacityUsed is what a Capacity counted: units as DynamoDB reports them
// (table and its indexes together), calls per operation name (GetItem,
// Query, ...), and the calls whose response carried no ConsumedCapacity
// (Unreported; a DynamoDB feature some emulators lack).
type CapacityUsed struct {
	RCU, WCU   float64
	Calls      map[string]int
	Unreported int
}

// Used returns what was counted since the last Reset, and how many calls
// are still in flight.
func (c *Capacity) Used() (CapacityUsed, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.used
	u.Calls = make(map[string]int, len(c.used.Calls))
	for k, v := range c.used.Calls {
		u.Calls[k] = v
	}
	return u, c.inFlight
}

// Reset sets the counts to zero (calls in flight are still counted when
// they end).
func (c *Capacity) Reset() {
	c.mu.Lock()
	c.used = CapacityUsed{}
	c.mu.Unlock()
}

// apply adds the counting middleware to a client's options.
func (c *Capacity) apply(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("agentmemConsumedCapacity", c.handle), middleware.After)
	})
}

func (c *Capacity) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	askTotal(in.Parameters)
	c.mu.Lock()
	c.inFlight++
	c.mu.Unlock()
	out, md, err := next.HandleInitialize(ctx, in)
	rcu, wcu, reported := consumed(out.Result)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	if c.used.Calls == nil {
		c.used.Calls = map[string]int{}
	}
	c.used.Calls[middleware.GetOperationName(ctx)]++
	c.used.RCU += rcu
	c.used.WCU += wcu
	if !reported && err == nil {
		c.used.Unreported++
	}
	return out, md, err
}

// askTotal sets ReturnConsumedCapacity TOTAL on the inputs that take it.
func askTotal(p any) {
	t := types.ReturnConsumedCapacityTotal
	switch in := p.(type) {
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.ScanInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.TransactGetItemsInput:
		in.ReturnConsumedCapacity = t
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = t
	}
}

// consumed reads the units of a response; reported is false for a data
// operation whose response carried none, true for every other call
// (DescribeTable and the like consume none).
func consumed(result any) (rcu, wcu float64, reported bool) {
	var list []types.ConsumedCapacity
	one := func(cc *types.ConsumedCapacity) {
		if cc != nil {
			list = append(list, *cc)
		}
	}
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		list = out.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		list = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		list = out.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		list = out.ConsumedCapacity
	default:
		return 0, 0, true
	}
	for _, cc := range list {
		r, w := deref(cc.ReadCapacityUnits), deref(cc.WriteCapacityUnits)
		if r == 0 && w == 0 { // DynamoDB Local reports only the total
			if isWrite(result) {
				w = deref(cc.CapacityUnits)
			} else {
				r = deref(cc.CapacityUnits)
			}
		}
		rcu, wcu = rcu+r, wcu+w
	}
	return rcu, wcu, len(list) > 0
}

// isWrite reports whether result answers a write, whose total units are
// write units.
func isWrite(result any) bool {
	switch result.(type) {
	case *dynamodb.PutItemOutput, *dynamodb.UpdateItemOutput, *dynamodb.DeleteItemOutput,
		*dynamodb.BatchWriteItemOutput, *dynamodb.TransactWriteItemsOutput:
		return true
	}
	return false
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
