#!/usr/bin/env python3
"""Learned fusion of the pipeline's lists, held out by conversation.

An offline measurement for issue 43 (docs/benchmarks.md, "a learned
fusion"), not part of the service. It reads bench-locomo's -dump (one JSON
line per question: the evidence and every result with each list's score
and rank), re-orders each question's first N results of `full` by a model
trained on the other conversations (leave one conversation out), and
prints recall@10 per conversation before and after:

    go run ./cmd/bench/locomo -modes full -facts=false -dump /tmp/dump.jsonl
    python3 -m venv /tmp/ltr && /tmp/ltr/bin/pip install numpy scikit-learn lightgbm
    /tmp/ltr/bin/python scripts/locomo-ltr.py /tmp/dump.jsonl [N=50] [trees=100]

Features per candidate: its fused rank and score (relative to the best),
its length in words, how many lists found it, and for each list whether it
found it, the log of its rank there and its score relative to that list's
best. Models: logistic regression, and LightGBM's LambdaMART ranker.
"""
import json, sys, math, numpy as np
from collections import defaultdict
import lightgbm as lgb
from sklearn.linear_model import LogisticRegression
LISTS=["keyword","semantic","knowledge","entity","when","time","decompose","neighbours"]
N=int(sys.argv[2]) if len(sys.argv)>2 else 50
qs=[json.loads(l) for l in open(sys.argv[1])]
def feats(q):
    rs=q["results"][:N]
    top=rs[0]["score"] if rs else 1
    mx={L:max([r["scores"][L]["score"] for r in q["results"] if L in (r["scores"] or {})] or [1]) for L in LISTS}
    X=[]
    for i,r in enumerate(rs):
        sc=r["scores"] or {}
        f=[math.log1p(i), r["score"]/top if top else 0, math.log1p(r["words"]), len(sc)]
        for L in LISTS:
            if L in sc:
                f+= [1, math.log1p(sc[L]["rank"]), sc[L]["score"]/mx[L] if mx[L] else 0]
            else:
                f+= [0, math.log1p(500), 0]
        X.append(f)
    y=[1 if r["dia"] in q["evidence"] else 0 for r in rs]
    return np.array(X,dtype=float), np.array(y)
data=[(q,)+feats(q) for q in qs]
files=sorted(set(q["file"] for q in qs))
def r10(q, order):
    ids=[q["results"][i]["dia"] for i in order[:10]]
    return sum(1 for e in q["evidence"] if e in ids)/len(q["evidence"])
def evaluate(test, scorer):
    per=defaultdict(list); base=defaultdict(list); cats=defaultdict(list)
    for q,X,y in test:
        n=len(X)
        s=scorer(X) if n else []
        order=list(np.argsort(-np.array(s),kind="stable")) if n else []
        order += list(range(n, len(q["results"])))
        per[q["file"]].append(r10(q,order)); base[q["file"]].append(r10(q,list(range(len(q["results"])))))
        cats[q["category"]].append(r10(q,order))
    return {f:np.mean(v) for f,v in per.items()},{f:np.mean(v) for f,v in base.items()},{c:np.mean(v) for c,v in cats.items()}
def fit(kind, train):
    X=np.vstack([d[1] for d in train if len(d[1])]); y=np.concatenate([d[2] for d in train if len(d[1])])
    if kind=="lr":
        m=LogisticRegression(C=1.0,max_iter=2000).fit(X,y); return lambda Z: m.decision_function(Z)
    grp=[len(d[1]) for d in train if len(d[1])]
    m=lgb.LGBMRanker(n_estimators=int(sys.argv[3]) if len(sys.argv)>3 else 100, learning_rate=0.05, num_leaves=15, min_child_samples=20, verbose=-1)
    m.fit(X,y,group=grp); return lambda Z: m.predict(Z)
for kind in ["lr","lgb"]:
    res={}; bas={}; cat=defaultdict(list)
    for f in files:
        train=[d for d in data if d[0]["file"]!=f]; test=[d for d in data if d[0]["file"]==f]
        r,b,c=evaluate(test, fit(kind,train)); res.update(r); bas.update(b)
        for k,v in c.items(): cat[k].append(v)
    print(kind, " ".join(f"{f} {bas[f]:.3f}->{res[f]:.3f}" for f in files), f"mean {np.mean(list(bas.values())):.3f}->{np.mean(list(res.values())):.3f}")
