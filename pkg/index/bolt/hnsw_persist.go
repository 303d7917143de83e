package bolt

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// The graphs are saved when the index closes and restored when it opens,
// so a restart does not rebuild them. The snapshot names each node by its
// memory id (ordinals are renumbered at load, in key order), and is
// removed once read: a process that dies without closing leaves none, and
// the next start builds the graphs again from the vectors (in the
// background; searches are exact meanwhile). A restored graph is mapped
// onto the loaded ordinals like a compaction: nodes whose memory is gone
// are repaired away, and memories the snapshot lacks are inserted before
// the graph answers.
//
// Layout: the magic line, uvarint dims, the number of orgs; per org its
// id, its M, the number of nodes, the entry node and top layer, then per node
// its memory id ("" for a removed memory kept as a waypoint), its top
// layer, and per layer the count and the neighbours (node numbers of the
// snapshot).

const (
	graphFile  = "graphs.hnsw"
	graphMagic = "agentmem-hnsw/1\n"
)

// saveGraphs writes the built graphs to dir (ix.mu held; builds stopped).
func (ix *Index) saveGraphs(dir string) error {
	var orgs []string
	for id, o := range ix.orgs {
		if o.graph != nil && o.graph.ready {
			orgs = append(orgs, id)
		}
	}
	if len(orgs) == 0 {
		return nil
	}
	tmp := filepath.Join(dir, graphFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	uv := func(x uint64) { w.Write(binary.AppendUvarint(nil, x)) }
	str := func(s string) { uv(uint64(len(s))); w.WriteString(s) }
	w.WriteString(graphMagic)
	uv(uint64(ix.dims))
	uv(uint64(len(orgs)))
	for _, id := range orgs {
		o := ix.orgs[id]
		g := o.graph
		num := make([]int64, len(g.level)) // ordinal → node number
		var nodes []uint32
		for ord, l := range g.level {
			num[ord] = -1
			if l >= 0 {
				num[ord] = int64(len(nodes))
				nodes = append(nodes, uint32(ord))
			}
		}
		str(id)
		uv(uint64(g.m))
		uv(uint64(len(nodes)))
		uv(uint64(max(num[g.entry], 0)))
		uv(uint64(g.maxLevel + 1))
		for _, ord := range nodes {
			name := ""
			if int(ord) < len(o.ids) {
				name = o.ids[ord]
			}
			str(name)
			lvl := int(g.level[ord])
			uv(uint64(lvl))
			for l := 0; l <= lvl; l++ {
				nb := g.neighbours(ord, l)
				uv(uint64(len(nb)))
				for _, n := range nb {
					uv(uint64(num[n]))
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, graphFile))
}

var errSnapshot = errors.New("malformed graph snapshot")

// restoreGraphs reads the snapshot in dir, if any, onto the loaded orgs
// (before any other use of the index), and removes it. A snapshot of
// other dimensions is ignored; one of another M is dropped by SetANN.
func (ix *Index) restoreGraphs(dir string) {
	path := filepath.Join(dir, graphFile)
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer os.Remove(path)
	defer f.Close()
	start := time.Now()
	n, err := ix.readGraphs(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		slog.Warn("boltindex: vector graphs not restored, rebuilding", "err", err)
		for _, o := range ix.orgs {
			o.graph = nil
		}
		return
	}
	ix.restored = n
	slog.Info("boltindex: vector graphs restored", "orgs", n, "ms", time.Since(start).Milliseconds())
}

func (ix *Index) readGraphs(r *bufio.Reader) (int, error) {
	magic := make([]byte, len(graphMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != graphMagic {
		return 0, errSnapshot
	}
	var bad error
	uv := func() uint64 {
		x, err := binary.ReadUvarint(r)
		if err != nil && bad == nil {
			bad = errSnapshot
		}
		return x
	}
	str := func() string {
		n := uv()
		if bad != nil || n > 1<<16 {
			bad = errSnapshot
			return ""
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			bad = errSnapshot
		}
		return string(b)
	}
	dims := uv()
	if bad != nil || int(dims) != ix.dims {
		return 0, fmt.Errorf("snapshot of %d dimensions, index has %d", dims, ix.dims)
	}
	orgs := uv()
	for range orgs {
		id := str()
		m, count, entry, top := uv(), uv(), uv(), int(uv())-1
		if bad != nil || m < 2 || m > 127 || count > 1<<32 || (count > 0 && entry >= count) || top > 30 {
			return 0, errSnapshot
		}
		g := newHNSW(ANNConfig{M: int(m), EfConstruction: ix.ann.EfConstruction})
		g.grow(int(count))
		next := make([]int32, count)
		o := ix.orgs[id]
		for i := range uint32(count) {
			name := str()
			lvl := int(uv())
			if bad != nil || lvl > 30 {
				return 0, errSnapshot
			}
			next[i] = -1
			if o != nil && name != "" {
				if ord, ok := o.pos[name]; ok && o.hasVec[ord] {
					next[i] = int32(ord)
				}
			}
			g.level[i] = int8(lvl)
			if lvl > 0 {
				g.upper[i] = make([][]uint32, lvl)
			}
			for l := 0; l <= lvl; l++ {
				k := uv()
				limit := uint64(g.m)
				if l == 0 {
					limit = uint64(g.m0)
				}
				if bad != nil || k > limit {
					return 0, errSnapshot
				}
				nb := make([]uint32, k)
				for j := range nb {
					x := uv()
					if x >= count {
						return 0, errSnapshot
					}
					nb[j] = uint32(x)
				}
				g.setNeighbours(i, l, nb)
			}
		}
		if bad != nil {
			return 0, bad
		}
		for i := range uint32(count) { // every edge on layer l leads to a node of that layer
			for l := 0; l <= int(g.level[i]); l++ {
				for _, nb := range g.neighbours(i, l) {
					if int(g.level[nb]) < l {
						return 0, errSnapshot
					}
				}
			}
		}
		if count > 0 && int(g.level[entry]) != top {
			return 0, errSnapshot
		}
		if o == nil || count == 0 {
			continue
		}
		g.entry, g.maxLevel = uint32(entry), top
		r := g.compacted(spaceOf(o, ix.dims), next, len(o.ids))
		r.built, r.ready = 0, false // the builder inserts what the snapshot lacks, then it answers
		o.graph = r
	}
	return int(orgs), nil
}
